import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globals: true,
    include: ['*.test.cjs'],
    globalSetup: ['adkproxy-test/vitest-global'],
    setupFiles: ['adkproxy-test/vitest-setup'],
  },
});
