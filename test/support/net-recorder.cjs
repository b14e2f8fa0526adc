// Preloaded (`node --require`) into a child process: records every outgoing connection attempt
// (host:port, before any DNS lookup) and every DNS lookup, and writes them to $NET_RECORD_TO as a
// JSON array when the process exits. A test that must prove "nothing was sent anywhere" reads it.
const net = require("node:net");
const dns = require("node:dns");
const { writeFileSync } = require("node:fs");

const seen = [];
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (first && typeof first === "object")
    seen.push(first.path ? `unix:${first.path}` : `${first.host ?? "localhost"}:${first.port}`);
  else seen.push(`${typeof args[1] === "string" ? args[1] : "localhost"}:${first}`);
  return connect.apply(this, args);
};
for (const owner of [dns, dns.promises]) {
  const lookup = owner.lookup;
  owner.lookup = function (host, ...rest) {
    seen.push(`dns:${host}`);
    return lookup.call(this, host, ...rest);
  };
}
process.on("exit", () => writeFileSync(process.env.NET_RECORD_TO, JSON.stringify(seen)));
