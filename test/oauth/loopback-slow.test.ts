// The loopback receiver's time limits on a connection, in real time (about 11 s): kept out of the
// mutation run (scripts/mutation-modules.mjs), where loopback-limits.test.ts reads the same limits.
import assert from "node:assert/strict";
import { connect } from "node:net";
import { test } from "node:test";
import { startLoopbackReceiver } from "../../dist/oauth/loopback.js";
import { freePortRange } from "./support.ts";

/** Opens a request whose headers never end; resolves with how long the receiver let it live, in ms. */
function slowClient(port: number, dribble: boolean): Promise<number> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, "127.0.0.1");
    socket.on("error", () => {}); // the receiver resets it: that is the point
    socket.write(`GET / HTTP/1.1\r\nHost: localhost:${port}\r\n`);
    // A slowloris sends a header line now and then, so the connection is never idle.
    const timer = dribble ? setInterval(() => socket.write("X-Slow: 1\r\n"), 1000) : undefined;
    socket.once("close", () => {
      clearInterval(timer);
      resolve(Date.now() - started);
    });
  });
}

test("a client that never finishes its headers is cut at 10 s, whether idle or dribbling", async () => {
  const receiver = await startLoopbackReceiver({ state: "s", ports: await freePortRange(1) });
  try {
    const [idle, dribbling] = await Promise.all([slowClient(receiver.port, false), slowClient(receiver.port, true)]);
    for (const [name, lived] of [
      ["idle", idle],
      ["dribbling", dribbling],
    ] as const) {
      assert.ok(lived >= 9_900 && lived < 12_500, `${name} client lived ${lived} ms`);
    }
  } finally {
    receiver.close();
  }
});
