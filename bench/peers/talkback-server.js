// Starts talkback 4.2.0 as a replay-only server for the benchmark:
//   node talkback-server.js PORT TAPES_DIR
// record: DISABLED (a request without a tape gets talkback's fallback, 404),
// and the per-request console logging and the exit summary are off, so the
// measurement is talkback's matching and serving, not its terminal output.
const talkback = require("talkback");

const [port, path] = process.argv.slice(2);
if (!port || !path) {
  console.error("usage: node talkback-server.js PORT TAPES_DIR");
  process.exit(2);
}
const server = talkback({
  host: "http://127.0.0.1:9", // never contacted: recording is disabled
  port: Number(port),
  path,
  record: talkback.Options.RecordMode.DISABLED,
  fallbackMode: talkback.Options.FallbackMode.NOT_FOUND,
  silent: true,
  summary: false,
});
server.start(() => console.log(`talkback replaying ${path} on 127.0.0.1:${port}`));
const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
