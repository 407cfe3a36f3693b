// Vitest globalSetup: one adkproxy for the whole run (see core.cjs).
import core from './core.cjs';

let proxy;

export async function setup() {
  proxy = await core.startProxy();
}

export async function teardown() {
  await proxy?.stop();
}
