// A Jest test environment: Jest's node environment plus Node's fetch
// dispatcher. Node keeps the dispatcher on its own global, which Jest's
// sandbox does not share, and @google/genai 2 dispatches through it, so
// under plain Jest every call fails with "Undici globalDispatcher is not
// available". Nothing of adkproxy's needs it; it is here because the
// agents adkproxy-test serves do.
// Jest's own, found from the project (this package may be linked from elsewhere).
const NodeEnvironment = require(require.resolve('jest-environment-node', { paths: [process.cwd(), __dirname] })).TestEnvironment;

const DISPATCHER = Symbol.for('undici.globalDispatcher.1');

class AdkproxyEnvironment extends NodeEnvironment {
  constructor(config, context) {
    super(config, context);
    if (!globalThis[DISPATCHER] && typeof Headers !== 'undefined') new Headers(); // Node sets it up lazily
    if (globalThis[DISPATCHER] && !this.global[DISPATCHER]) this.global[DISPATCHER] = globalThis[DISPATCHER];
  }
}

module.exports = AdkproxyEnvironment;
