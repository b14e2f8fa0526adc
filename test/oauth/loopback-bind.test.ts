// How the loopback receiver takes its port when the OS refuses an address: a machine without
// IPv6, a port it may not use, an error it does not expect. The OS's refusal is stubbed
// (support.ts refuseListen); the receiver, its servers and the requests are real.
import assert from "node:assert/strict";
import type { ListenOptions } from "node:net";
import { test } from "node:test";
import { CredConnectionError } from "cred-auth";
import { type LoopbackHost, type LoopbackReceiver, startLoopbackReceiver } from "../../dist/oauth/loopback.js";
import { completeSignIn, freePortRange, listenError, refuseListen, withCreatedServers } from "./support.ts";

const STATE = "c3RhdGUtb2YtdGhpcy1zaWduLWluLTEyMzQ1Njc4OTA";

/** Starts a receiver while the OS refuses `listen` where `refuse` says so. */
function startRefused(
  ports: { first: number; last: number },
  refuse: (options: ListenOptions) => NodeJS.ErrnoException | undefined,
  host?: LoopbackHost,
) {
  return withCreatedServers(
    (server) => refuseListen(server, refuse),
    () => startLoopbackReceiver({ state: STATE, ports, ...(host ? { host } : {}) }),
  );
}

/** The receiver listens on `port` and a sign-in completes there; it is closed after. */
async function assertSignsInOn(receiver: LoopbackReceiver, port: number, label: string): Promise<void> {
  try {
    assert.equal(receiver.port, port, label);
    const { page } = await completeSignIn(receiver, `/?state=${STATE}&code=c`);
    assert.equal(page.status, 200, label);
  } finally {
    receiver.close();
  }
}

test("without IPv6, however the OS says so, localhost is 127.0.0.1 alone and the sign-in works", async () => {
  for (const code of ["EADDRNOTAVAIL", "EAFNOSUPPORT", "EINVAL"]) {
    const ports = await freePortRange(1);
    const receiver = await startRefused(ports, (o) => (o.host === "::1" ? listenError(code) : undefined));
    await assertSignsInOn(receiver, ports.first, code);
  }
});

test("only localhost's ::1 may be missing: ::1 asked for alone, or a missing 127.0.0.1, gives the port up", async () => {
  const ports = await freePortRange(2);
  for (const [host, missing] of [
    ["::1", "::1"],
    ["localhost", "127.0.0.1"],
  ] as const) {
    await assert.rejects(
      startRefused(ports, (o) => (o.host === missing ? listenError("EADDRNOTAVAIL") : undefined), host),
      (e: Error & { code?: string }) =>
        e instanceof CredConnectionError &&
        e.code === "ERR_PORTS_BUSY" &&
        e.message.includes("Could not find open port"),
      `${host} without ${missing}`,
    );
  }
});

test("a port the OS forbids (EACCES) counts as taken: the next one is used", async () => {
  const ports = await freePortRange(2);
  const receiver = await startRefused(ports, (o) => (o.port === ports.first ? listenError("EACCES") : undefined));
  await assertSignsInOn(receiver, ports.first + 1, "EACCES");
});

test("any other listen error ends the search at once, naming the address, the port and the error code", async () => {
  const ports = await freePortRange(2);
  for (const [code, shown] of [
    ["EMFILE", "EMFILE"],
    [undefined, "error"],
  ] as const) {
    await assert.rejects(
      startRefused(ports, (o) => (o.host === "127.0.0.1" ? listenError(code) : undefined)),
      (e: Error & { code?: string; cause?: unknown }) => {
        assert.ok(e instanceof CredConnectionError);
        assert.equal(e.code, "ERR_CONNECTION");
        assert.equal(e.message, `Could not listen on 127.0.0.1:${ports.first} for the sign-in redirect (${shown}).`);
        assert.equal((e.cause as Error).message, `listen ${code ?? "failed"}`);
        return true;
      },
    );
  }
});

test("a server that stops accepting (no file descriptors left) fails the sign-in and frees the port, without crashing", async () => {
  const ports = await freePortRange(1);
  const servers: Array<import("node:http").Server> = [];
  const receiver = await withCreatedServers(
    (server) => servers.push(server),
    () => startLoopbackReceiver({ state: STATE, ports }),
  );
  assert.ok(servers.length > 0);
  // Stands for the OS: accept() failing is what makes a listening server emit "error".
  servers[0]!.emit("error", listenError("EMFILE"));
  await assert.rejects(
    receiver.callback,
    (e: Error & { code?: string }) =>
      e instanceof CredConnectionError &&
      e.code === "ERR_CONNECTION" &&
      e.message === "The sign-in redirect receiver stopped accepting connections (EMFILE); run the sign-in again.",
  );
  servers[0]!.emit("error", listenError(undefined)); // after the end: still no crash
  const again = await startLoopbackReceiver({ state: STATE, ports });
  assert.equal(again.port, ports.first, "the port was given back");
  again.close();
});
