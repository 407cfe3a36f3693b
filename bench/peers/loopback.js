// Preloaded (node -r ./loopback.js) into the peers so that a server told
// only a port listens on 127.0.0.1, not on every interface: the benchmark
// stays on loopback. Nothing else about the peers changes.
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const port = args[0];
  if ((typeof port === "number" || (typeof port === "string" && /^\d+$/.test(port))) && typeof args[1] !== "string") {
    args.splice(1, 0, "127.0.0.1");
  }
  return listen.apply(this, args);
};
