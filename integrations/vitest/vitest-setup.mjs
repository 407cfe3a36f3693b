// Vitest setupFiles: each test's cassette, and its failure when replay could not match a request.
import { afterEach, beforeEach, expect } from 'vitest';
import core from './core.cjs';

beforeEach(async () => {
  const { testPath, currentTestName } = expect.getState();
  await core.beginTest(core.cassetteName(testPath, currentTestName));
});

afterEach(async () => {
  await core.endTest();
});
