import assert from "node:assert/strict";
import { test } from "node:test";
import { CredCancelledError, CredConnectionError, CredCredentialsError } from "cred-auth";
import { startLoopbackReceiver } from "../../dist/oauth/loopback.js";
import { freePortRange, hasIpv6Loopback, occupy, rawRequest } from "./support.ts";

const STATE = "state-abc";

test("binds the first free port on loopback only, with redirect URI http://localhost:PORT/", async () => {
  const ports = await freePortRange(3);
  const release = await occupy({ first: ports.first, last: ports.first });
  try {
    const receiver = await startLoopbackReceiver({ state: STATE, ports });
    try {
      assert.equal(receiver.port, ports.first + 1);
      assert.equal(receiver.redirectUri, `http://localhost:${ports.first + 1}/`);
      // Nothing listens on a non-loopback address of this machine for that port.
      const { networkInterfaces } = await import("node:os");
      const external = Object.values(networkInterfaces())
        .flat()
        .find((i) => i && !i.internal && i.family === "IPv4");
      if (external) await assert.rejects(rawRequest(receiver.port, "/", { host: external.address }), /ECONNREFUSED/);
    } finally {
      receiver.close();
    }
  } finally {
    await release();
  }
});

test("stray requests get 404 and the receiver keeps waiting; wrong state gets 400 without consuming it", async () => {
  const ports = await freePortRange(2);
  const receiver = await startLoopbackReceiver({ state: STATE, ports });
  let settled = false;
  void receiver.callback.then(
    () => (settled = true),
    () => (settled = true),
  );
  try {
    assert.equal((await rawRequest(receiver.port, "/favicon.ico")).status, 404);
    assert.equal((await rawRequest(receiver.port, "/")).status, 404);
    assert.equal((await rawRequest(receiver.port, `/wp-login.php?code=x&state=${STATE}`)).status, 404);
    assert.equal((await rawRequest(receiver.port, `/?code=x&state=${STATE}`, { method: "HEAD" })).status, 404);
    assert.equal((await rawRequest(receiver.port, `/?code=x&state=${STATE}`, { method: "POST" })).status, 404);
    assert.equal((await rawRequest(receiver.port, `/?${"a".repeat(9000)}`)).status, 404);
    const wrong = await rawRequest(receiver.port, "/?code=STOLEN&state=wrong");
    assert.equal(wrong.status, 400);
    assert.match(wrong.body, /does not match/);
    assert.equal((await rawRequest(receiver.port, "/?code=STOLEN")).status, 400);
    assert.equal((await rawRequest(receiver.port, "/?error=access_denied&state=wrong")).status, 400);
    assert.equal(settled, false);
    const ok = rawRequest(receiver.port, `/?code=the-code&state=${STATE}&scope=a`);
    const callback = await receiver.callback;
    assert.equal(callback.code, "the-code");
    callback.finish({ ok: true });
    const page = await ok;
    assert.equal(page.status, 200);
    assert.match(page.body, /Signed in\. You may close this window\./);
    assert.equal(page.headers.connection, "close");
    assert.equal(page.headers["cache-control"], "no-store");
  } finally {
    receiver.close();
  }
  // Closed in every outcome: the port is free again.
  const again = await startLoopbackReceiver({ state: STATE, ports: { first: receiver.port, last: receiver.port } });
  again.close();
});

test("error=access_denied with the right state fails the flow and shows the error in words", async () => {
  const ports = await freePortRange(1);
  const receiver = await startLoopbackReceiver({ state: STATE, ports });
  const denied = assert.rejects(receiver.callback, (error: Error) => {
    assert.ok(error instanceof CredCredentialsError);
    assert.match(error.message, /The sign-in was denied in the browser/);
    return true;
  });
  const page = await rawRequest(receiver.port, `/?error=access_denied&state=${STATE}`);
  assert.equal(page.status, 400);
  assert.match(page.body, /denied/);
  await denied;
  await assert.rejects(rawRequest(receiver.port, "/"), /ECONNREFUSED/);
});

test("an unknown error= is named only by its code, never by attacker-chosen text", async () => {
  const ports = await freePortRange(1);
  const receiver = await startLoopbackReceiver({ state: STATE, ports });
  const failed = assert.rejects(receiver.callback, (error: Error) => {
    assert.doesNotMatch(error.message, /script/);
    return true;
  });
  const page = await rawRequest(receiver.port, `/?error=%3Cscript%3E&state=${STATE}`);
  assert.doesNotMatch(page.body, /<script>/);
  await failed;
});

test("the callback works over IPv6 ::1 as well as 127.0.0.1", async (t) => {
  if (!(await hasIpv6Loopback())) return t.skip("no IPv6 loopback on this machine");
  const ports = await freePortRange(1);
  const receiver = await startLoopbackReceiver({ state: STATE, ports });
  try {
    assert.equal((await rawRequest(receiver.port, "/favicon.ico", { host: "::1" })).status, 404);
    const ok = rawRequest(receiver.port, `/?code=v6&state=${STATE}`, { host: "::1" });
    const callback = await receiver.callback;
    assert.equal(callback.code, "v6");
    callback.finish({ ok: true });
    assert.equal((await ok).status, 200);
  } finally {
    receiver.close();
  }
  await assert.rejects(rawRequest(receiver.port, "/", { host: "::1" }), /ECONNREFUSED/);
});

test("times out with a CredCredentialsError saying how long it waited, and frees the port", async () => {
  const ports = await freePortRange(1);
  const receiver = await startLoopbackReceiver({ state: STATE, ports, timeoutMs: 50 });
  await assert.rejects(receiver.callback, (error: Error) => {
    assert.ok(error instanceof CredCredentialsError);
    assert.match(error.message, /Timed out waiting for the browser sign-in after 0 s; run again/);
    return true;
  });
  await assert.rejects(rawRequest(receiver.port, "/"), /ECONNREFUSED/);
});

test("an AbortSignal cancels with CredCancelledError; an aborted signal binds nothing", async () => {
  const ports = await freePortRange(1);
  const controller = new AbortController();
  const receiver = await startLoopbackReceiver({ state: STATE, ports, signal: controller.signal });
  controller.abort();
  await assert.rejects(receiver.callback, CredCancelledError);
  await assert.rejects(rawRequest(receiver.port, "/"), /ECONNREFUSED/);
  await assert.rejects(startLoopbackReceiver({ state: STATE, ports, signal: controller.signal }), CredCancelledError);
});

test("every port of the range busy: CredConnectionError naming the range", async () => {
  const ports = await freePortRange(3);
  const release = await occupy(ports);
  try {
    await assert.rejects(startLoopbackReceiver({ state: STATE, ports }), (error: Error) => {
      assert.ok(error instanceof CredConnectionError);
      assert.equal(error.code, "ERR_PORTS_BUSY");
      assert.match(error.message, new RegExp(`Could not find open port in ${ports.first}-${ports.last}`));
      return true;
    });
  } finally {
    await release();
  }
});

test("a slow client cannot hold the receiver: an idle connection does not block closing", async () => {
  const ports = await freePortRange(1);
  const receiver = await startLoopbackReceiver({ state: STATE, ports });
  const { connect } = await import("node:net");
  const socket = connect(receiver.port, "127.0.0.1");
  socket.on("error", () => {}); // the receiver resets it: that is the point
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.write("GET / HTTP/1.1\r\nHost: localhost\r\n"); // headers never finished
  const closed = new Promise((resolve) => socket.once("close", resolve));
  receiver.close();
  await closed;
  await assert.rejects(receiver.callback, CredCancelledError);
});
