// The keychain store's edges, in this process, against a real Secret Service (gnome-keyring on a
// private D-Bus): a save whose file cannot be written keeps the old file's entry and leaves none of its
// own; an entry is read once per file read; an entry that is not its save's whole secret asks for a
// sign-in; the sweep removes an entry whose cache directory is gone, and keeps one it cannot prove stale.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type TestContext, after, test } from "node:test";
import { promisify } from "node:util";
import { cache, ERROR_CODES } from "cred-auth";
import { DEMO_CLIENT } from "cred-auth/emulator";
import { readPendingSecrets, userRefreshClientFrom } from "../../dist/credentials/kinds/user/client.js";
import { readAdcFile } from "../../dist/credentials/kinds/table.js";
import { forgetStoredSecrets } from "../../dist/stores/index.js";
import { sha256Hex } from "../../dist/util/sha256.js";
import { withEmulator } from "../support/emulator.ts";
import { isolateHome } from "../support/files.ts";
import { startSecretService } from "../support/secret-service.ts";

const run = promisify(execFile);
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const DIST = new URL("../../dist/", import.meta.url).pathname;
const emu = await withEmulator();
let skipped: string | undefined;
const service = await startSecretService({ skip: (why) => (skipped = why) });
after(() => service?.stop());

/** A home of its own, this process pointed at the Secret Service and the emulator; false when there is none. */
function world(t: TestContext): string | false {
  if (!service) {
    t.skip(skipped);
    return false;
  }
  const home = isolateHome(t);
  const names = ["DBUS_SESSION_BUS_ADDRESS", "CRED_AUTH_KEYCHAIN_TIMEOUT_MS", "CRED_AUTH_EMULATOR_HOST"] as const;
  const saved = names.map((name) => process.env[name]);
  Object.assign(process.env, {
    DBUS_SESSION_BUS_ADDRESS: service.address,
    CRED_AUTH_KEYCHAIN_TIMEOUT_MS: "30000", // a loaded machine starts node slowly
    CRED_AUTH_EMULATOR_HOST: emu.host,
  });
  t.after(async () => {
    names.forEach((name, i) => {
      if (saved[i] === undefined) delete process.env[name];
      else process.env[name] = saved[i];
    });
    for (const account of await accounts()) await clear(account);
  });
  return home;
}

function client() {
  return userRefreshClientFrom({
    type: "authorized_user",
    clientId: DEMO_CLIENT.clientId,
    clientSecret: DEMO_CLIENT.clientSecret,
    refreshToken: emu.issueRefreshToken({ scopes: [CLOUD] }),
    tokenUrl: `${emu.url}/token`,
    scopes: [CLOUD],
  });
}

function named(path: string): { account: string; id: string } {
  return JSON.parse(readFileSync(path, "utf8")).cred_auth_keychain;
}

async function accounts(): Promise<string[]> {
  return ((await service?.entries()) ?? []).map((e) => e.account).sort();
}

async function clear(account: string): Promise<void> {
  await run("secret-tool", ["clear", "service", "cred-auth", "username", account], {
    env: { PATH: process.env.PATH, DBUS_SESSION_BUS_ADDRESS: service?.address },
  });
}

test("a save whose file cannot be written (a full disk) keeps the old file's entry, and leaves no entry of its own", async (t) => {
  const home = world(t);
  if (!home) return;
  const dir = join(home, ".config", "full");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  await run("mount", ["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", dir]);
  try {
    await fullDisk(dir);
  } finally {
    await run("umount", ["-l", dir]); // before the home goes
  }
});

async function fullDisk(dir: string): Promise<void> {
  const store = new cache.ReadWriteCredentialsCache({ dirname: "full" });
  await store.save(await client());
  const before = await accounts();
  await run("sh", ["-c", `cat /dev/zero > ${join(dir, "filler")} 2>/dev/null; true`]);
  await assert.rejects(store.save(await client()), { code: ERROR_CODES.FILE_UNWRITABLE });
  assert.deepEqual(await accounts(), before, "the old entry stays, the new one is gone");
  assert.deepEqual(before, [named(store.path).account]);
  const loaded = await store.load();
  assert.ok(loaded);
  await readPendingSecrets(loaded); // the old file still reads its secrets
  rmSync(store.path);
  await assert.rejects(store.save(await client()), { code: ERROR_CODES.FILE_UNWRITABLE });
  assert.deepEqual(await accounts(), before, "a failed first save leaves no entry");
}

test("a file read for its secrets asks the keychain once: both secrets come from that one answer", async (t) => {
  if (!world(t)) return;
  const store = new cache.ReadWriteCredentialsCache({ dirname: "once" });
  await store.save(await client());
  const file = readAdcFile(store.path) as { refreshToken: string; clientSecret: string };
  assert.match(file.refreshToken, /./);
  await clear(named(store.path).account);
  assert.equal(file.clientSecret, DEMO_CLIENT.clientSecret, "the second secret without a second read");
  assert.match(file.refreshToken, /./);
});

test("an entry that is not its save's whole secret asks for a sign-in, naming no secret", async (t) => {
  if (!world(t) || !service) return;
  const store = new cache.ReadWriteCredentialsCache({ dirname: "whole" });
  await store.save(await client());
  const { account, id } = named(store.path);
  const sha256 = sha256Hex(readFileSync(store.path, "utf8"));
  const whole = { cred_auth_cache: 1, id, refresh_token: "1//SECRET", client_secret: "SECRET", sha256 };
  const cases: [string, unknown, RegExp][] = [
    ["another save's id", { ...whole, id: "f".repeat(32) }, /gone or belongs to another save; sign in again/],
    ["an empty refresh token", { ...whole, refresh_token: "" }, /gone or belongs to another save/],
    ["a refresh token that is no string", { ...whole, refresh_token: 1 }, /gone or belongs to another save/],
    ["an empty client secret", { ...whole, client_secret: "" }, /gone or belongs to another save/],
    ["a client secret that is no string", { ...whole, client_secret: ["SECRET"] }, /gone or belongs/],
    ["null", null, /gone or belongs to another save/],
    ["no mark", { ...whole, cred_auth_cache: undefined }, /is not the file its keychain entry was saved with/],
    ["another mark", { ...whole, cred_auth_cache: 2 }, /is not the file its keychain entry was saved with/],
  ];
  for (const [what, secret, words] of cases) {
    await service.plant(account, JSON.stringify(secret));
    assert.throws(
      () => (readAdcFile(store.path) as { refreshToken: string }).refreshToken,
      (error: Error & { code?: string }) => {
        assert.equal(error.code, ERROR_CODES.FILE_INVALID, what);
        assert.match(error.message, words, what);
        assert.doesNotMatch(error.message, /SECRET/, what);
        return true;
      },
    );
  }
  // The whole secret reads, for a file without token_uri too (Google's token URL then).
  const { token_uri: _, ...rest } = JSON.parse(readFileSync(store.path, "utf8"));
  writeFileSync(store.path, `${JSON.stringify(rest, null, 2)}\n`, { mode: 0o600 });
  await service.plant(account, JSON.stringify({ ...whole, sha256: sha256Hex(readFileSync(store.path, "utf8")) }));
  assert.equal((readAdcFile(store.path) as { refreshToken: string }).refreshToken, "1//SECRET");
});

test("the sweep removes what no file names, and keeps what it cannot prove stale", async (t) => {
  const home = world(t);
  if (!home || !service) return;
  const caches = ["live", "gone", "blocked", "nothing", "odd", "seven"].map(
    (d) => new cache.ReadWriteCredentialsCache({ dirname: d }),
  );
  const [live, gone, blocked, nothing, odd, seven] = caches;
  for (const c of caches) await c.save(await client());
  const keep = [named(blocked.path).account, named(odd.path).account];
  rmSync(dirname(gone.path), { recursive: true }); // the whole cache directory removed by hand: its entry goes
  // The blocked cache's directory replaced by a link to itself: its file cannot be looked at (ELOOP).
  rmSync(dirname(blocked.path), { recursive: true });
  symlinkSync(dirname(blocked.path), dirname(blocked.path));
  writeFileSync(nothing.path, "null\n"); // files that name no entry: their entries go
  writeFileSync(seven.path, "7\n");
  const form = JSON.parse(readFileSync(odd.path, "utf8"));
  writeFileSync(odd.path, JSON.stringify({ ...form, cred_auth_keychain: { ...form.cred_auth_keychain, id: "x" } }));
  // Entries named like this cache's: one unmarked (another program's), one whose save id is not its name's.
  const other = `${live.path}:${"b".repeat(32)}`;
  const misnamed = `${live.path}:${"c".repeat(32)}`;
  await service.plant(other, JSON.stringify({ id: "b".repeat(32), refresh_token: "1//SECRET" }));
  await service.plant(misnamed, JSON.stringify({ cred_auth_cache: 1, id: "d".repeat(32) }));
  await live.save(await client());
  assert.deepEqual(await accounts(), [named(live.path).account, ...keep, other, misnamed].sort());
});

test("`auto` asks a keychain that could not be used once per process: the next save keeps the file too", async (t) => {
  const home = world(t);
  if (!home || !service) return;
  const script = `
    const { cache } = require(${JSON.stringify(join(DIST, "index.js"))});
    const { userRefreshClientFrom } = require(${JSON.stringify(join(DIST, "credentials/kinds/user/client.js"))});
    (async () => {
      const c = new cache.ReadWriteCredentialsCache();
      const client = () => userRefreshClientFrom(${JSON.stringify({ type: "authorized_user", clientId: "c", clientSecret: "s", refreshToken: "r", tokenUrl: "https://oauth2.googleapis.com/token", scopes: [CLOUD] })});
      for (const address of ["unix:path=/nonexistent/bus", process.env.REAL_BUS]) {
        process.env.DBUS_SESSION_BUS_ADDRESS = address;
        await c.save(await client());
        console.log(require("node:fs").readFileSync(c.path, "utf8").includes("refresh_token") ? "file" : "keychain");
      }
    })();`;
  const { stdout } = await run(process.execPath, ["-e", script], {
    env: { ...process.env, REAL_BUS: service.address },
  });
  assert.equal(stdout, "file\nfile\n");
  assert.deepEqual(await accounts(), []);
});

test("`file` moves the secrets out of the keychain: the entry the file named goes", async (t) => {
  if (!world(t)) return;
  await new cache.ReadWriteCredentialsCache({ dirname: "out" }).save(await client());
  const plain = new cache.ReadWriteCredentialsCache({ dirname: "out", secretStore: "file" });
  await plain.save(await client());
  assert.deepEqual(await accounts(), []);
  assert.match(readFileSync(plain.path, "utf8"), /"refresh_token"/);
});

test("delete() removes the file, its entry and this cache's stale entries", async (t) => {
  if (!world(t) || !service) return;
  const store = new cache.ReadWriteCredentialsCache({ dirname: "delete" });
  await store.save(await client());
  const id = "e".repeat(32);
  await service.plant(`${store.path}:${id}`, JSON.stringify({ cred_auth_cache: 1, id, refresh_token: "1//SECRET" }));
  assert.equal((await accounts()).length, 2);
  assert.equal(await store.delete(), true);
  assert.deepEqual(await accounts(), []);
});

test("a file read before another save replaced it and its entry reads the new entry; a spread copies its secrets", async (t) => {
  if (!world(t)) return;
  const store = new cache.ReadWriteCredentialsCache({ dirname: "follow" });
  await store.save(await client());
  const file = readAdcFile(store.path) as { refreshToken: string; clientSecret: string };
  const next = await client();
  await store.save(next);
  assert.equal(file.refreshToken, next.credentials.refresh_token, "the new save's refresh token");
  const copy = { ...file };
  assert.equal(copy.refreshToken, next.credentials.refresh_token);
  assert.equal(copy.clientSecret, DEMO_CLIENT.clientSecret);
});

test("revoke's forget removes the entry of the file it read, its cache directory gone", async (t) => {
  if (!world(t)) return;
  const store = new cache.ReadWriteCredentialsCache({ dirname: "forget" });
  await store.save(await client());
  const file = readAdcFile(store.path);
  rmSync(dirname(store.path), { recursive: true });
  await forgetStoredSecrets(file, store.path);
  assert.deepEqual(await accounts(), []);
});
