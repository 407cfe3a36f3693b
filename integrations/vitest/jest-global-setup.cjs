// Jest globalSetup: one adkproxy for the whole run (see core.cjs); globalTeardown stops it.
const core = require('./core.cjs');

module.exports = async function globalSetup() {
  globalThis.__adkproxy = await core.startProxy();
};
