// Jest globalTeardown: stops the adkproxy globalSetup started, failing the run on what it reports.
module.exports = async function globalTeardown() {
  await globalThis.__adkproxy?.stop();
};
