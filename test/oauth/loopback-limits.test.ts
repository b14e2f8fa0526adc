// The loopback receiver's limits and clean-ups, each a behaviour a regression would silently
// drop: an empty code, a second callback, the URL and header size limits, the Host check, a
// half-bound localhost port, the abort listener.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { getEventListeners } from "node:events";
import { request, type Server } from "node:http";
import { connect, createServer } from "node:net";
import { test } from "node:test";
import { CredCancelledError, CredConnectionError, CredCredentialsError } from "cred-auth";
import { DEFAULT_TIMEOUT_MS, startLoopbackReceiver } from "../../dist/oauth/loopback.js";
import { completeSignIn, freePortRange, hasIpv6Loopback, rawRequest, withCreatedServers } from "./support.ts";

const STATE = "c3RhdGUtb2YtdGhpcy1zaWduLWluLTEyMzQ1Njc4OTA";
const CODE = "4/0AeanS0b-x_Yz";

/** A GET with a given Host header (or extra headers); resolves with status, or "closed" when the socket is dropped. */
function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string } | "closed"> {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path, headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", () => resolve("closed"));
    req.end();
  });
}

/** Sends raw bytes to the receiver; resolves with everything it answered before closing. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (answer += chunk));
    socket.on("error", () => {}); // a reset ends the answer like a close
    socket.once("close", () => resolve(answer));
    socket.write(bytes);
  });
}

test("a callback with the right state but an empty code is refused and the sign-in keeps waiting", async () => {
  const receiver = await startLoopbackReceiver({ state: STATE, ports: await freePortRange(1) });
  try {
    const empty = await rawRequest(receiver.port, `/?state=${STATE}&code=`);
    assert.equal(empty.status, 400);
    assert.match(empty.body, /The redirect carried no authorization code/);
    const page = rawRequest(receiver.port, `/?state=${STATE}&code=${encodeURIComponent(CODE)}`);
    const callback = await receiver.callback;
    assert.equal(callback.code, CODE);
    callback.finish({ ok: false, message: "The exchange failed." });
    const answer = await page;
    assert.equal(answer.status, 500);
    assert.match(answer.body, /<title>Sign-in failed<\/title>.*The exchange failed\. You may close this window\./);
  } finally {
    receiver.close();
  }
});

test("once a code arrived, another callback is told the sign-in is complete and cannot replace it", async () => {
  const receiver = await startLoopbackReceiver({ state: STATE, ports: await freePortRange(1) });
  const first = rawRequest(receiver.port, `/?state=${STATE}&code=first-code-1`);
  const callback = await receiver.callback;
  const second = await rawRequest(receiver.port, `/?state=${STATE}&code=second-code-2`);
  assert.equal(second.status, 400);
  assert.match(second.body, /already complete/);
  const error = await rawRequest(receiver.port, `/?state=${STATE}&error=access_denied`);
  assert.equal(error.status, 400);
  assert.match(error.body, /already complete/);
  assert.equal(callback.code, "first-code-1");
  callback.finish({ ok: true });
  callback.finish({ ok: false, message: "ignored" });
  const page = await first;
  assert.equal(page.status, 200);
  assert.match(page.body, /Signed in/);
  await assert.rejects(rawRequest(receiver.port, "/"), /ECONNREFUSED/);
});

test("the request target may be 8192 characters, not one more", async () => {
  const receiver = await startLoopbackReceiver({ state: STATE, ports: await freePortRange(1) });
  try {
    const base = `/?state=${STATE}&code=${CODE}&pad=`;
    const over = await rawRequest(receiver.port, base + "a".repeat(8193 - base.length));
    assert.equal(over.status, 404);
    const { code, page } = await completeSignIn(receiver, base + "a".repeat(8192 - base.length));
    assert.equal(code, CODE);
    assert.equal(page.status, 200);
  } finally {
    receiver.close();
  }
});

test("headers beyond 16 KiB are refused by dropping the connection; below, the request is answered", async () => {
  const receiver = await startLoopbackReceiver({ state: STATE, ports: await freePortRange(1) });
  try {
    assert.equal(await get(receiver.port, "/favicon.ico", { "x-pad": "a".repeat(17 * 1024) }), "closed");
    const small = await get(receiver.port, "/favicon.ico", { "x-pad": "a".repeat(8 * 1024) });
    assert.notEqual(small, "closed");
    assert.equal(small !== "closed" && small.status, 404);
  } finally {
    receiver.close();
  }
});

test("only a loopback Host with the receiver's port is answered (DNS rebinding gets 421)", async () => {
  const receiver = await startLoopbackReceiver({ state: STATE, ports: await freePortRange(1) });
  try {
    const p = receiver.port;
    const rebound = [`evil.example:${p}`, `localhost:${p + 1}`, "localhost", `127.0.0.2:${p}`, `[::2]:${p}`];
    const disguised = [`evil.example:localhost:${p}`, `localhost:${p}.evil.example`, "evil.example:http"];
    for (const host of [...rebound, ...disguised]) {
      const res = await get(p, `/?state=${STATE}&code=${CODE}`, { host });
      assert.ok(res !== "closed", host);
      assert.equal(res.status, 421, host);
      assert.match(res.body, /<title>Wrong address<\/title>.*only answers requests for the loopback address/);
    }
    // HTTP/1.0 may leave Host out: not a loopback Host either.
    assert.match(await rawExchange(p, "GET / HTTP/1.0\r\n\r\n"), /^HTTP\/1\.1 421 /);
    for (const host of [`LOCALHOST:${p}`, ` 127.0.0.1:${p} `, `[::1]:${p}`]) {
      const res = await get(p, "/favicon.ico", { host });
      assert.ok(res !== "closed" && res.status === 404, `${host}: ${JSON.stringify(res)}`);
    }
  } finally {
    receiver.close();
  }
});

test("a Host without a port means port 80: a receiver on port 80 answers it", async (t) => {
  const receiver = await startLoopbackReceiver({ state: STATE, ports: { first: 80, last: 80 } }).catch(() => undefined);
  if (!receiver) return t.skip("port 80 is not ours to bind here (not root, or taken)");
  try {
    for (const host of ["localhost", "127.0.0.1", "[::1]", "localhost:80"]) {
      const res = await get(80, "/favicon.ico", { host });
      assert.ok(res !== "closed" && res.status === 404, `${host}: ${JSON.stringify(res)}`);
    }
  } finally {
    receiver.close();
  }
});

test("each page says what happened in its title", async () => {
  const receiver = await startLoopbackReceiver({ state: STATE, ports: await freePortRange(1) });
  try {
    const titleOf = async (path: string) =>
      /<title>(.*)<\/title>/.exec((await rawRequest(receiver.port, path)).body)?.[1];
    assert.equal(await titleOf("/favicon.ico"), "Not found");
    assert.match((await rawRequest(receiver.port, "/favicon.ico")).body, /<p>Nothing here\.<\/p>/);
    assert.equal(await titleOf(`/?state=wrong&code=${CODE}`), "This sign-in link is not for this session");
    const { page } = await completeSignIn(receiver, `/?state=${STATE}&code=${CODE}`);
    assert.match(page.body, /<title>Signed in<\/title>/);
  } finally {
    receiver.close();
  }
  const denied = await startLoopbackReceiver({ state: STATE, ports: await freePortRange(1) });
  const page = await rawRequest(denied.port, `/?state=${STATE}&error=access_denied`);
  assert.match(page.body, /<title>Sign-in failed<\/title>/);
  await assert.rejects(denied.callback, /denied/);
});

test("a request target that is no URL at all is a stray request: 404, and the sign-in goes on", async () => {
  const receiver = await startLoopbackReceiver({ state: STATE, ports: await freePortRange(1) });
  try {
    for (const target of ["//[", `//[?state=${STATE}&code=${CODE}`, "http://["]) {
      assert.match(
        await rawExchange(receiver.port, `GET ${target} HTTP/1.1\r\nHost: localhost:${receiver.port}\r\n\r\n`),
        /^HTTP\/1\.1 404 /,
        target,
      );
    }
    const { code, page } = await completeSignIn(receiver, `/?state=${STATE}&code=${CODE}`);
    assert.equal(code, CODE);
    assert.equal(page.status, 200);
  } finally {
    receiver.close();
  }
});

test("a port whose ::1 is taken is given up whole: its 127.0.0.1 server does not stay behind", async (t) => {
  if (!(await hasIpv6Loopback())) return t.skip("no IPv6 loopback here");
  const ports = await freePortRange(2);
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen({ port: ports.first, host: "::1", ipv6Only: true }, resolve));
  try {
    const receiver = await startLoopbackReceiver({ state: STATE, ports });
    try {
      assert.equal(receiver.port, ports.first + 1);
      const refused = await new Promise<boolean>((resolve) => {
        const socket = connect(ports.first, "127.0.0.1");
        socket.once("connect", () => {
          socket.destroy();
          resolve(false);
        });
        socket.once("error", () => resolve(true));
      });
      assert.equal(refused, true, "the half-bound port's IPv4 server was closed");
    } finally {
      receiver.close();
    }
  } finally {
    await new Promise((resolve) => blocker.close(resolve));
  }
});

test("the abort listener is removed however the sign-in ends", async () => {
  const controller = new AbortController();
  const { signal } = controller;
  const ok = await startLoopbackReceiver({ state: STATE, ports: await freePortRange(1), signal });
  assert.equal(getEventListeners(signal, "abort").length, 1);
  const page = rawRequest(ok.port, `/?state=${STATE}&code=${CODE}`);
  (await ok.callback).finish({ ok: true });
  await page;
  assert.equal(getEventListeners(signal, "abort").length, 0, "after a code");
  const timedOut = await startLoopbackReceiver({ state: STATE, ports: await freePortRange(1), signal, timeoutMs: 1 });
  await assert.rejects(timedOut.callback, CredCredentialsError);
  assert.equal(getEventListeners(signal, "abort").length, 0, "after a time-out");
  const closed = await startLoopbackReceiver({ state: STATE, ports: await freePortRange(1), signal });
  closed.close();
  closed.close();
  await assert.rejects(closed.callback, (e: Error) => e instanceof CredCancelledError && /cancelled/.test(e.message));
  assert.equal(getEventListeners(signal, "abort").length, 0, "after close()");
  const denied = await startLoopbackReceiver({ state: STATE, ports: await freePortRange(1), signal });
  await rawRequest(denied.port, `/?state=${STATE}&error=access_denied`);
  await assert.rejects(denied.callback, /denied/);
  assert.equal(getEventListeners(signal, "abort").length, 0, "after error=");
});

/** Lets pending I/O callbacks run (setTimeout may be mocked: setImmediate is not). */
async function ioTurns(count = 50): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
}

test("without timeoutMs the sign-in waits 300 s, not a moment less, then fails saying so", async (t) => {
  assert.equal(DEFAULT_TIMEOUT_MS, 300_000);
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const receiver = await startLoopbackReceiver({ state: STATE, ports: await freePortRange(1) });
  let settled = false;
  void receiver.callback.then(
    () => (settled = true),
    () => (settled = true),
  );
  t.mock.timers.tick(299_999);
  await ioTurns();
  assert.equal(settled, false, "still waiting at 299.999 s");
  t.mock.timers.tick(1);
  await assert.rejects(
    receiver.callback,
    (e: Error) => e instanceof CredCredentialsError && /after 300 s; run again/.test(e.message),
  );
  await assert.rejects(rawRequest(receiver.port, "/"), /ECONNREFUSED/);
});

test("a browser kept waiting while the code is exchanged gets a failure page after 60 s", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const receiver = await startLoopbackReceiver({ state: STATE, ports: await freePortRange(1), timeoutMs: 1000 });
  let answered = false;
  const page = rawRequest(receiver.port, `/?state=${STATE}&code=${CODE}`).finally(() => (answered = true));
  const callback = await receiver.callback;
  t.mock.timers.tick(59_999);
  await ioTurns();
  assert.equal(answered, false, "still waiting at 59.999 s");
  t.mock.timers.tick(1);
  const answer = await page;
  assert.equal(answer.status, 500);
  assert.match(answer.body, /The sign-in did not complete in time\. You may close this window\./);
  callback.finish({ ok: true }); // too late: ignored
  await assert.rejects(rawRequest(receiver.port, "/"), /ECONNREFUSED/);
});

test("closing the receiver once the code arrived does not cut off the browser's page", async () => {
  const receiver = await startLoopbackReceiver({ state: STATE, ports: await freePortRange(1) });
  const page = rawRequest(receiver.port, `/?state=${STATE}&code=${CODE}`);
  const callback = await receiver.callback;
  receiver.close();
  assert.equal((await get(receiver.port, "/favicon.ico")) !== "closed", true, "still listening for the finish");
  callback.finish({ ok: true });
  const answer = await page;
  assert.equal(answer.status, 200);
  assert.match(answer.body, /Signed in/);
  await assert.rejects(rawRequest(receiver.port, "/"), /ECONNREFUSED/);
});

test("each connection is bounded as documented: headers in 10 s, a request in 15 s", async () => {
  // The bounds take 10-15 s of real time to show (loopback-slow.test.ts waits for them): here the
  // receiver's real servers are only looked at.
  const created: Server[] = [];
  const receiver = await withCreatedServers(
    (server) => created.push(server),
    async () => startLoopbackReceiver({ state: STATE, ports: await freePortRange(1), host: "127.0.0.1" }),
  );
  try {
    assert.equal(created.length, 1);
    const [server] = created as [Server];
    assert.equal(server.headersTimeout, 10_000);
    assert.equal(server.requestTimeout, 15_000);
    assert.equal(server.timeout, 15_000);
    const { connectionsCheckingInterval } = server as Server & { connectionsCheckingInterval: number };
    assert.ok(connectionsCheckingInterval <= 1000, "the bounds are checked every second, not every 30 s");
  } finally {
    receiver.close();
  }
});

test("the time-out message rounds to seconds", async () => {
  const receiver = await startLoopbackReceiver({ state: STATE, ports: await freePortRange(1), timeoutMs: 1500 });
  receiver.close();
  await assert.rejects(receiver.callback, CredCancelledError);
  const quick = await startLoopbackReceiver({ state: STATE, ports: await freePortRange(1), timeoutMs: 600 });
  await assert.rejects(
    quick.callback,
    (e: Error & { code?: string }) =>
      e instanceof CredCredentialsError && /after 1 s; run again/.test(e.message) && e.code === "ERR_TIMEOUT",
  );
});

test("redirect URIs name the host as a browser would; the path is the caller's", async (t) => {
  const v4 = await startLoopbackReceiver({
    state: STATE,
    ports: await freePortRange(1),
    host: "127.0.0.1",
    path: "/cb",
  });
  try {
    assert.equal(v4.redirectUri, `http://127.0.0.1:${v4.port}/cb`);
    assert.equal((await rawRequest(v4.port, `/?state=${STATE}&code=${CODE}`)).status, 404, "not the redirect path");
  } finally {
    v4.close();
  }
  if (!(await hasIpv6Loopback())) return t.skip("no IPv6 loopback here");
  const v6 = await startLoopbackReceiver({ state: STATE, ports: await freePortRange(1), host: "::1" });
  try {
    assert.equal(v6.redirectUri, `http://[::1]:${v6.port}/`);
    await assert.rejects(rawRequest(v6.port, "/"), /ECONNREFUSED/, "only ::1 was bound");
  } finally {
    v6.close();
  }
});

test("a port that cannot be listened on for another reason fails with CredConnectionError, not a hang", async () => {
  await assert.rejects(
    startLoopbackReceiver({ state: STATE, ports: { first: 70000, last: 70000 }, host: "127.0.0.1" }),
    (e: Error) => e instanceof CredConnectionError || e instanceof RangeError,
  );
});

test("the receiver's states, each left once: listening, answering, closed; a late finish or close changes nothing", async () => {
  const receiver = await startLoopbackReceiver({ state: STATE, ports: await freePortRange(1) });
  assert.equal(receiver.state, "listening");
  const page = rawRequest(receiver.port, `/?state=${STATE}&code=${CODE}`);
  const callback = await receiver.callback;
  assert.equal(receiver.state, "answering");
  receiver.close(); // a code came: only finish ends it
  assert.equal(receiver.state, "answering");
  callback.finish({ ok: true });
  assert.equal(receiver.state, "closed");
  callback.finish({ ok: false, message: "Too late." }); // the page is gone: no second answer, no throw
  receiver.close();
  assert.equal(receiver.state, "closed");
  assert.equal((await page).status, 200);

  const failed = await startLoopbackReceiver({ state: STATE, ports: await freePortRange(1) });
  failed.close();
  assert.equal(failed.state, "closed");
  await assert.rejects(failed.callback, CredCancelledError);
  failed.close();
  assert.equal(failed.state, "closed");
});

test("aborted while its port is being bound: the receiver comes up closed, cancelled", async () => {
  const controller = new AbortController();
  const starting = startLoopbackReceiver({ state: STATE, ports: await freePortRange(1), signal: controller.signal });
  controller.abort();
  const receiver = await starting;
  assert.equal(receiver.state, "closed");
  await assert.rejects(receiver.callback, CredCancelledError);
  await assert.rejects(rawRequest(receiver.port, "/"), /ECONNREFUSED/);
});

test("each state's timer ends with it: a process whose sign-in ended exits at once", async () => {
  const loopback = JSON.stringify(new URL("../../dist/oauth/loopback.js", import.meta.url).pathname);
  const ports = await freePortRange(2);
  // A code that is answered, then a receiver closed while listening: no timer may keep the process up.
  const script = `const { startLoopbackReceiver } = require(${loopback});
const http = require("node:http");
(async () => {
  const a = await startLoopbackReceiver({ state: "s", ports: { first: ${ports.first}, last: ${ports.first} } });
  http.get({ host: "127.0.0.1", port: a.port, path: "/?state=s&code=c" }, (res) => res.resume());
  (await a.callback).finish({ ok: true });
  const b = await startLoopbackReceiver({ state: "s", ports: { first: ${ports.last}, last: ${ports.last} } });
  b.close();
  await b.callback.catch(() => {});
})();`;
  const started = Date.now();
  const child = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 30_000 });
  assert.equal(child.status, 0, child.stderr);
  assert.ok(Date.now() - started < 20_000, "the process did not wait for a 60 s or 300 s timer");
});
