module.exports = {
  testMatch: ['**/*.test.cjs'],
  testEnvironment: 'adkproxy-test/jest-environment',
  globalSetup: 'adkproxy-test/jest-global-setup',
  globalTeardown: 'adkproxy-test/jest-global-teardown',
  setupFilesAfterEnv: ['adkproxy-test/jest-setup'],
};
