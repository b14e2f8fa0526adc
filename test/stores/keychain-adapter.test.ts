// The keychain adapter (os/keychain.ts) on its own, against a real Secret Service (gnome-keyring on a
// private D-Bus): a hung keychain is given up on at the deadline, by a call's helper and by a sync read,
// and the next call starts a new helper; a deadline that is no positive whole number is the default; under Deno or Bun
// the helper runs on a `node` from PATH, and without one says so.
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { after, test } from "node:test";
import { keychainSync, withKeychain } from "../../dist/os/keychain.js";
import { startSecretService } from "../support/secret-service.ts";

const SERVICE = "cred-auth-adapter-test";
let skipped: string | undefined;
const service = await startSecretService({ skip: (why) => (skipped = why) });
after(() => service?.stop());

/** This process's environment pointed at the Secret Service, with a deadline (ms). */
function envWith(timeoutMs: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DBUS_SESSION_BUS_ADDRESS: service?.address,
    CRED_AUTH_KEYCHAIN_TIMEOUT_MS: timeoutMs,
    ...extra,
  };
}

const patient = () => envWith("30000"); // a loaded machine starts node slowly

test("a hung keychain is given up on at the deadline, in a call and in a sync read; the next call starts anew", async (t) => {
  if (!service) return t.skip(skipped);
  const set = await withKeychain(SERVICE, (ask) => ask({ op: "set", account: "hung", secret: "s" }), patient());
  assert.deepEqual(set, { ok: true });
  const pid = await service.daemonPid();
  process.kill(pid, "SIGSTOP");
  t.after(() => process.kill(pid, "SIGCONT"));
  const why = (ms: number) => `the keychain did not answer within ${ms} ms (locked, prompting or hung)`;
  await withKeychain(
    SERVICE,
    async (ask) => {
      assert.deepEqual(await ask({ op: "get", account: "hung" }), { ok: false, why: why(500) });
      assert.deepEqual(await ask({ op: "list" }), { ok: false, why: why(500) }, "the helper is gone: so is the next");
    },
    envWith("500"),
  );
  const sync = keychainSync(SERVICE, { op: "get", account: "hung" }, envWith("200")); // start and answer within 1 s
  assert.deepEqual(sync, { ok: false, why: why(200) });
  process.kill(pid, "SIGCONT");
  // The next call starts a new helper; a deadline that is no positive whole number of ms is the default (4 s).
  for (const timeout of ["30000", "2.5", "0", "-1", "soon"]) {
    const got = await withKeychain(SERVICE, (ask) => ask({ op: "get", account: "hung" }), envWith(timeout));
    assert.deepEqual(got, { ok: true, secret: "s" }, timeout);
  }
  assert.deepEqual(keychainSync(SERVICE, { op: "delete", account: "hung" }, patient()), { ok: true });
});

for (const runtime of ["deno", "bun"] as const)
  test(`under ${runtime} the helper runs on a node from PATH, and without one says so`, async (t) => {
    if (!service) return t.skip(skipped);
    const versions = process.versions as Record<string, string>;
    versions[runtime] = "2.0.0";
    t.after(() => delete versions[runtime]);
    const onPath = patient();
    onPath.PATH = `/nonexistent:${dirname(process.execPath)}`;
    const set = await withKeychain(SERVICE, (ask) => ask({ op: "set", account: runtime, secret: "s" }), onPath);
    assert.deepEqual(set, { ok: true });
    assert.deepEqual(keychainSync(SERVICE, { op: "get", account: runtime }, onPath), { ok: true, secret: "s" });
    assert.deepEqual(keychainSync(SERVICE, { op: "delete", account: runtime }, onPath), { ok: true });
    const none = { ok: false, why: "no node executable to run the keychain binding with" };
    const noNode = { ...patient(), PATH: "/nonexistent" };
    assert.deepEqual(keychainSync(SERVICE, { op: "list" }, noNode), none);
    assert.deepEqual(await withKeychain(SERVICE, (ask) => ask({ op: "list" }), noNode), none);
  });
