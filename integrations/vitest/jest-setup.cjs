// Jest setupFilesAfterEnv: each test's cassette, and its failure when replay could not match a request.
const core = require('./core.cjs');

beforeEach(async () => {
  const { testPath, currentTestName } = expect.getState();
  await core.beginTest(core.cassetteName(testPath, currentTestName));
});

afterEach(async () => {
  await core.endTest();
});
