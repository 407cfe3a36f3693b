'use strict';
// adkproxy-test's core, shared by the Vitest and Jest entry points: the one
// adkproxy a test run uses (started by the global setup, or the one the run
// is wrapped in), the cassette of each test, and the failure of a test whose
// requests replay could not match.

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// What a client with no key of its own gets in replay (never sent anywhere).
const PLACEHOLDER_KEY = 'adkproxy-replay-placeholder-key';
const KEY_VARS = ['GOOGLE_API_KEY', 'GEMINI_API_KEY'];

/** The run's settings, from the environment. */
function settings(env = process.env) {
  let mode = 'replay';
  if (env.ADKPROXY_OFF === '1') mode = 'off';
  else if (env.ADKPROXY_RECORD === '1') mode = 'record';
  return {
    mode,
    cassettes: path.resolve(env.ADKPROXY_CASSETTES || 'cassettes'),
    bin: env.ADKPROXY_BIN || 'adkproxy',
    upstream: env.ADKPROXY_UPSTREAM || '',
  };
}

function googleHost(url) {
  try {
    const host = new URL(url).hostname;
    return host === 'googleapis.com' || host.endsWith('.googleapis.com');
  } catch {
    return false;
  }
}

/**
 * Starts adkproxy for the run unless ADKPROXY_URL names a running one (the
 * run is wrapped in `adkproxy replay --`) or ADKPROXY_OFF=1, and points the
 * clients the tests create at it through the environment.
 * @returns {Promise<{started: boolean, stop: () => Promise<void>}>}
 */
async function startProxy(env = process.env) {
  const s = settings(env);
  if (s.mode === 'off' || env.ADKPROXY_URL) return { started: false, stop: async () => {} };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adkproxy-test-'));
  const addrFile = path.join(dir, 'addr');
  const logFile = path.join(dir, 'adkproxy.log');
  const reportFile = path.join(dir, 'report.json');
  const args = [s.mode, '--cassettes', s.cassettes, '--listen', '127.0.0.1:0', '--addr-file', addrFile,
    '--report', reportFile, '--no-forward-proxy', '--log-format', 'text'];
  if (s.mode === 'record' && s.upstream) args.push('--upstream', s.upstream);
  const log = fs.openSync(logFile, 'w');
  const child = spawn(s.bin, args, { stdio: ['ignore', log, log], env });
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? 128 + (os.constants.signals[signal] || 0)));
    child.on('error', (err) => resolve(err));
  });
  const tail = () => fs.readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n');
  const deadline = Date.now() + 60_000;
  let addr = '';
  while (!addr && Date.now() < deadline) {
    const early = await Promise.race([exited, new Promise((r) => setTimeout(() => r(undefined), 50))]);
    if (early instanceof Error && early.code === 'ENOENT') {
      throw new Error(`adkproxy not found (${s.bin}): install it, or set ADKPROXY_BIN`);
    }
    if (early !== undefined) throw new Error(`adkproxy ${s.mode} did not start (exit ${early}); it said:\n${tail()}`);
    if (fs.existsSync(addrFile)) addr = fs.readFileSync(addrFile, 'utf8').trim();
  }
  if (!addr) {
    child.kill();
    throw new Error(`adkproxy ${s.mode} did not write its address within a minute; it said:\n${tail()}`);
  }
  const url = `http://${addr}`;
  Object.assign(env, { ADKPROXY_URL: url, GOOGLE_GEMINI_BASE_URL: url, GOOGLE_VERTEX_BASE_URL: url });
  const noKeyNeeded = s.mode === 'replay' || (s.upstream && !googleHost(s.upstream));
  if (noKeyNeeded && !KEY_VARS.some((k) => env[k])) env.GOOGLE_API_KEY = PLACEHOLDER_KEY;
  return {
    started: true,
    async stop() {
      child.kill('SIGTERM');
      const status = await exited;
      fs.closeSync(log);
      const problems = unusedProblems(reportFile);
      if (status !== 0 && status !== 76) problems.push(`adkproxy ${s.mode} exited ${status}:\n${tail()}`);
      if (problems.length) throw new Error(`adkproxy:\n${problems.join('\n')}`);
    },
  };
}

/**
 * Recordings left unused in cassettes that tests of this run used without a
 * mismatch: the agent now stops early or skips a call. (A cassette no test
 * of this run used, as with a filtered run, is left alone.)
 */
function unusedProblems(reportFile) {
  let outcomes = [];
  try {
    outcomes = JSON.parse(fs.readFileSync(reportFile, 'utf8')).outcomes || [];
  } catch {
    return [];
  }
  const used = new Set(outcomes.filter((o) => o.outcome === 'matched').map((o) => o.cassette));
  const failed = new Set(outcomes.filter((o) => o.outcome === 'mismatched' || o.outcome === 'unmatched').map((o) => o.cassette));
  const byCassette = new Map();
  for (const o of outcomes) {
    if (o.outcome === 'unused' && used.has(o.cassette) && !failed.has(o.cassette)) {
      byCassette.set(o.cassette, [...(byCassette.get(o.cassette) || []), o]);
    }
  }
  return [...byCassette].map(([c, os]) => `cassette ${JSON.stringify(c)}: ${os.length} recording(s) no request used; the first: ${os[0].message || os[0].path}`);
}

/**
 * The cassette of a test: its file relative to the working folder, without
 * its extension, then its full name (describe blocks and title; Vitest's
 * " > " becomes "/"). E.g. "tests/weather.test/answers about Paris".
 */
function cassetteName(testPath, fullName, root = process.cwd()) {
  let file = testPath ? path.relative(root, testPath) : 'tests';
  file = file.split(path.sep).join('/').replace(/\.[cm]?[jt]sx?$/, '');
  return `${file}/${String(fullName || 'test').split(' > ').join('/')}`;
}

async function control(method, what, body) {
  const base = process.env.ADKPROXY_URL.replace(/\/$/, '');
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (process.env.ADKPROXY_CONTROL_TOKEN) headers.Authorization = `Bearer ${process.env.ADKPROXY_CONTROL_TOKEN}`;
  const resp = await fetch(`${base}/_adkproxy/${what}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await resp.text();
  if (!resp.ok) throw new Error(`adkproxy at ${base} refused ${method} /_adkproxy/${what}: ${text.trim()}`);
  return JSON.parse(text);
}

// The running test's state. On globalThis, not in this module: Vitest loads
// the setup file and the test's own require() of this package as two modules.
const CURRENT = Symbol.for('adkproxy-test.current');
const state = {
  get current() { return globalThis[CURRENT]; },
  set current(v) { globalThis[CURRENT] = v; },
};

/** Before a test: selects its cassette. Does nothing without a proxy. */
async function beginTest(name) {
  state.current = undefined;
  if (!process.env.ADKPROXY_URL) return;
  const { previous } = await control('PUT', 'cassette', { name });
  const { outcomes = [] } = await control('GET', 'report');
  state.current = { name, previous, before: outcomes.length };
}

/**
 * Within a test: sends its requests to another cassette (several tests,
 * one cassette) from now on; the end of the test checks that one.
 */
async function useCassette(name) {
  if (!state.current) return;
  await control('PUT', 'cassette', { name });
  state.current.name = name;
}

/** After a test: puts the previous cassette back, and throws when a request of the test did not match. */
async function endTest() {
  const test = state.current;
  state.current = undefined;
  if (!test) return;
  const { outcomes = [] } = await control('GET', 'report');
  await control('PUT', 'cassette', { name: test.previous });
  const bad = outcomes.slice(test.before).filter((o) => o.cassette === test.name && (o.outcome === 'mismatched' || o.outcome === 'unmatched'));
  if (bad.length) {
    const err = new Error(describe(test.name, bad));
    err.stack = err.message; // the difference is the whole story; no stack inside the helper
    throw err;
  }
}

/** adkproxy's explanation of each request replay could not answer from the recording. */
function describe(name, outcomes) {
  const lines = [`adkproxy: ${outcomes.length} request(s) of this test did not match cassette ${JSON.stringify(name)}:`];
  for (const o of outcomes) {
    const where = ['session', 'invocation', 'step'].filter((k) => k in o).map((k) => `${k} ${o[k]}`).join(', ');
    lines.push(`- ${o.outcome} ${o.method || ''} ${o.path || ''}${where ? ` (${where})` : ''}`);
    for (const d of o.diffs || []) {
      let text = `${d.path}: ${d.kind}`;
      if ('recorded' in d) text += `; recorded ${d.recorded.slice(0, 300)}`;
      if ('got' in d) text += `; sent ${d.got.slice(0, 300)}`;
      lines.push(`    ${text}`);
    }
    if (o.message && !(o.diffs && o.diffs.length)) {
      for (const line of o.message.split('\n')) if (!line.startsWith('Re-record with')) lines.push(`    ${line}`);
    }
  }
  lines.push('If the change is intended, re-record: ADKPROXY_RECORD=1 with a key (or adkproxy record -- your test command).');
  return lines.join('\n');
}

module.exports = { settings, startProxy, cassetteName, beginTest, endTest, useCassette, describe, PLACEHOLDER_KEY };
