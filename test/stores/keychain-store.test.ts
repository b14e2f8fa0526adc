// The keychain store's rules, in this process, against a real Secret Service (gnome-keyring on a
// private D-Bus, test/support/secret-service.ts): entries of the version before are read, the form
// refuses what the store does not write, an entry is bound to its file's bytes and goes to no token
// server on this machine but the emulator's, the right words when an entry is gone or the keychain
// cannot be read, the sweep removes only what is provably stale, one helper per process, `file`
// loads none of it, and a store of the user's own plugs in.
import assert from "node:assert/strict";
import childProcess, { execFile } from "node:child_process";
import {
  chownSync,
  existsSync,
  lchownSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { dirname, join, relative } from "node:path";
import { type TestContext, after, test } from "node:test";
import { promisify } from "node:util";
import { cache, CredConnectionError, CredCredentialsError, ERROR_CODES } from "cred-auth";
import { DEMO_CLIENT } from "cred-auth/emulator";
import { readPendingSecrets, userRefreshClientFrom } from "../../dist/credentials/kinds/user/client.js";
import { readAdcFile as readAdcFileSync } from "../../dist/credentials/kinds/table.js";
import { forgetStoredSecrets } from "../../dist/stores/index.js";
import { readCachedToken, tokenCacheKey } from "../../dist/token-cache/index.js";
import { tryLock } from "../../dist/token-cache/lock.js";
import { sha256Hex } from "../../dist/util/sha256.js";
import { withEmulator } from "../support/emulator.ts";
import { isolateHome, keyFileFields } from "../support/files.ts";
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
  const saved = { ...process.env };
  Object.assign(process.env, {
    DBUS_SESSION_BUS_ADDRESS: service.address,
    CRED_AUTH_KEYCHAIN_TIMEOUT_MS: "30000", // a loaded machine starts node slowly
    CRED_AUTH_EMULATOR_HOST: emu.host,
    CRED_AUTH_TOKEN_CACHE: "off", // every token from a refresh, so every refresh reads the keychain
    XDG_CACHE_HOME: join(home, ".cache"),
  });
  t.after(async () => {
    for (const name of [
      "DBUS_SESSION_BUS_ADDRESS",
      "CRED_AUTH_KEYCHAIN_TIMEOUT_MS",
      "CRED_AUTH_EMULATOR_HOST",
      "CRED_AUTH_TOKEN_CACHE",
      "XDG_CACHE_HOME",
    ])
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    for (const { account } of await service.entries()) await clear(account);
  });
  return home;
}

/** A client the emulator accepts, as a sign-in would make it. */
function client(extra: Record<string, unknown> = {}) {
  return userRefreshClientFrom({
    type: "authorized_user",
    clientId: DEMO_CLIENT.clientId,
    clientSecret: DEMO_CLIENT.clientSecret,
    refreshToken: emu.issueRefreshToken({ scopes: [CLOUD] }),
    tokenUrl: `${emu.url}/token`,
    scopes: [CLOUD],
    ...extra,
  });
}

/** The user file at `path`, as print-token and status read it. */
function userFile(path: string): { refreshToken: string } {
  return readAdcFileSync(path) as { refreshToken: string };
}

/** The form and entry the cache file at `path` holds. */
function formOf(path: string): Record<string, unknown> & { cred_auth_keychain: { account: string; id: string } } {
  return JSON.parse(readFileSync(path, "utf8"));
}

async function accounts(): Promise<string[]> {
  return service ? (await service.entries()).map((e) => e.account).sort() : [];
}

async function held(account: string): Promise<Record<string, unknown>> {
  const entry = (await service?.entries())?.find((e) => e.account === account);
  return JSON.parse(entry?.secret ?? "{}");
}

async function clear(account: string): Promise<void> {
  await run("secret-tool", ["clear", "service", "cred-auth", "username", account], {
    env: { PATH: process.env.PATH, DBUS_SESSION_BUS_ADDRESS: service?.address },
  });
}

/** Writes `json` as a cache file would be: ours, 0600, in a 0700 directory. */
function writeCacheFile(path: string, json: unknown): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(json, null, 2)}\n`, { mode: 0o600 });
}

test("an entry and a file written before this version are read; the next save moves them to an entry of the save's own", async (t) => {
  if (!world(t)) return;
  const store = new cache.ReadWriteCredentialsCache({ dirname: "before" });
  const refreshToken = emu.issueRefreshToken({ scopes: [CLOUD] });
  const id = "0123456789abcdef0123456789abcdef";
  await service?.plant(
    store.path,
    JSON.stringify({ id, refresh_token: refreshToken, client_secret: DEMO_CLIENT.clientSecret }),
  );
  writeCacheFile(store.path, {
    type: "authorized_user",
    client_id: DEMO_CLIENT.clientId,
    token_uri: `${emu.url}/token`,
    scopes: [CLOUD],
    cred_auth_keychain: { service: "cred-auth", account: store.path, id },
  });
  const loaded = await store.load();
  assert.ok(loaded);
  assert.ok(emu.checkAccessToken((await loaded.getAccessToken()).token ?? ""), "refreshed with the old entry's token");
  assert.equal(userFile(store.path).refreshToken, refreshToken, "print-token and status read it too");

  await store.save(loaded);
  const entry = formOf(store.path).cred_auth_keychain;
  assert.equal(entry.account, `${store.path}:${entry.id}`);
  assert.notEqual(entry.id, id);
  assert.deepEqual(await accounts(), [entry.account], "the old entry went with the file that named it");
  assert.equal((await held(entry.account)).refresh_token, refreshToken);
});

test("the keychain form refuses what the store does not write, naming the problem and never a secret", async (t) => {
  const home = world(t);
  if (!home) return;
  const path = join(home, ".config", "cred", "cred_credentials.json");
  const id = "0123456789abcdef0123456789abcdef";
  const base = { type: "authorized_user", client_id: DEMO_CLIENT.clientId, token_uri: `${emu.url}/token` };
  const entry = { service: "cred-auth", account: `${path}:${id}`, id };
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      "another service",
      { ...base, cred_auth_keychain: { ...entry, service: "other" } },
      /malformed "cred_auth_keychain"/,
    ],
    [
      "an id that is not hex",
      { ...base, cred_auth_keychain: { ...entry, id: "0123456789abcdefghij456789abcdef" } },
      /malformed/,
    ],
    ["an id in capitals", { ...base, cred_auth_keychain: { ...entry, id: id.toUpperCase() } }, /malformed/],
    ["an id too short", { ...base, cred_auth_keychain: { ...entry, id: id.slice(1) } }, /malformed/],
    ["an id too long", { ...base, cred_auth_keychain: { ...entry, id: `${id}0` } }, /malformed/],
    ["no entry", { ...base, cred_auth_keychain: null }, /malformed/],
    ["an entry that is a string", { ...base, cred_auth_keychain: "x" }, /malformed/],
    [
      "another file's entry",
      { ...base, cred_auth_keychain: { ...entry, account: `${path}.other:${id}` } },
      /the keychain entry of another file/,
    ],
    [
      "another save's account",
      { ...base, cred_auth_keychain: { ...entry, account: `${path}:${"f".repeat(32)}` } },
      /another file/,
    ],
    [
      "a refresh token too",
      { ...base, refresh_token: "1//SECRET", cred_auth_keychain: entry },
      /holds both "cred_auth_keychain" and a secret/,
    ],
    ["a client secret too", { ...base, client_secret: "SECRET", cred_auth_keychain: entry }, /holds both/],
    [
      "another type",
      { ...base, ...keyFileFields(), cred_auth_keychain: entry, refresh_token: undefined },
      /but is not "authorized_user"/,
    ],
  ];
  for (const [what, json, words] of cases) {
    writeCacheFile(path, json);
    assert.throws(
      () => readAdcFileSync(path),
      (error: Error & { code?: string }) => {
        assert.equal(error.code, ERROR_CODES.FILE_INVALID, what);
        assert.match(error.message, words, what);
        assert.doesNotMatch(error.message, /SECRET/, what);
        return true;
      },
    );
    const warnings: string[] = [];
    const listen = (w: Error) => warnings.push(w.message);
    process.on("warning", listen);
    assert.equal(await cache.READ_WRITE.load(), null, what);
    await new Promise((resolve) => setImmediate(resolve));
    process.off("warning", listen);
    assert.match(warnings.join("\n"), words, `${what}: one warning, and the next sign-in replaces the file`);
  }
});

test("a save writes neither secret nor ID token to the file; its entry is bound to the file's bytes", async (t) => {
  if (!world(t)) return;
  const store = new cache.ReadWriteCredentialsCache({ dirname: "bound" });
  const credentials = await client();
  credentials.credentials.id_token = "eyJID.TOKEN.SECRET";
  await store.save(credentials);
  const text = readFileSync(store.path, "utf8");
  for (const secret of ["refresh_token", "client_secret", "id_token", DEMO_CLIENT.clientSecret, "eyJID"])
    assert.ok(!text.includes(secret), `the file holds no ${secret}`);
  const entry = await held(formOf(store.path).cred_auth_keychain.account);
  assert.equal(entry.sha256, sha256Hex(text), "the entry holds the file's digest");
  assert.equal(entry.cred_auth_cache, 1, "and the mark of this cache");
  assert.equal(entry.ns, readlinkNs(), "and the mount namespace it was saved from");

  // The same entry named by a file that is not the one saved with it (here: its scopes widened).
  const widened = { ...formOf(store.path), scopes: [CLOUD, "https://www.googleapis.com/auth/drive"] };
  writeCacheFile(store.path, widened);
  const loaded = await store.load();
  assert.ok(loaded);
  await assert.rejects(loaded.getAccessToken(), (error: Error & { code?: string }) => {
    assert.equal(error.code, ERROR_CODES.FILE_INVALID);
    assert.match(error.message, /is not the file its keychain entry was saved with; sign in again/);
    return true;
  });
  assert.throws(() => userFile(store.path).refreshToken, /is not the file its keychain entry was saved with/);
});

function readlinkNs(): string {
  return readlinkSync("/proc/self/ns/mnt");
}

test("a keychain secret goes to no token server on this machine but the emulator's", async (t) => {
  if (!world(t)) return;
  const connections: number[] = [];
  const server = createServer((socket) => {
    connections.push(1);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => server.close());
  const port = (server.address() as { port: number }).port;
  const store = new cache.ReadWriteCredentialsCache({ dirname: "loopback" });
  // A client of the caller's own whose token URL is on this machine: its own secret may go there; the keychain's not.
  await store.save(await client({ tokenUrl: `http://127.0.0.1:${port}/token` }));
  const loaded = await store.load();
  assert.ok(loaded);
  await assert.rejects(
    loaded.getAccessToken(),
    (error: Error & { code?: string }) => error.code === ERROR_CODES.UNSAFE_TOKEN_URL,
  );
  assert.throws(
    () => userFile(store.path).refreshToken,
    (error: Error & { code?: string }) => error.code === ERROR_CODES.UNSAFE_TOKEN_URL,
  );
  assert.deepEqual(connections, [], "nothing was sent there");
});

test("an entry that is gone asks for a sign-in; a keychain that cannot be read asks to unlock it", async (t) => {
  if (!world(t)) return;
  const store = new cache.ReadWriteCredentialsCache({ dirname: "words" });
  await store.save(await client());
  const gone = await store.load();
  await clear(formOf(store.path).cred_auth_keychain.account);
  await assert.rejects(gone!.getAccessToken(), (error: Error & { code?: string }) => {
    assert.ok(error instanceof CredCredentialsError);
    assert.equal(error.code, ERROR_CODES.FILE_INVALID);
    assert.match(error.message, /names a keychain entry that is gone or belongs to another save; sign in again/);
    return true;
  });

  await store.save(await client());
  const locked = await store.load();
  process.env.DBUS_SESSION_BUS_ADDRESS = "unix:path=/nonexistent/bus";
  await assert.rejects(locked!.getAccessToken(), (error: Error & { code?: string }) => {
    assert.ok(error instanceof CredConnectionError, "a connection error: getUserCredentials() signs nobody in");
    assert.equal(error.code, ERROR_CODES.KEYCHAIN_UNAVAILABLE);
    assert.match(
      error.message,
      /the session bus is gone \(\/nonexistent\/bus is missing\)\. Unlock the keychain \(or start it\), then try again\./,
    );
    return true;
  });
  assert.throws(() => userFile(store.path).refreshToken, /which could not be read: the session bus is gone/);
});

test("credentials loaded before another save replaced the file and its entry read the new entry", async (t) => {
  if (!world(t)) return;
  const store = new cache.ReadWriteCredentialsCache({ dirname: "replaced" });
  await store.save(await client());
  const first = await store.load();
  await new cache.ReadWriteCredentialsCache({ dirname: "replaced" }).save(await client());
  assert.equal((await accounts()).length, 1, "the first save's entry is gone");
  assert.ok(emu.checkAccessToken((await first!.getAccessToken()).token ?? ""));
});

test("the sweep removes only what is provably stale: this cache's, from this mount namespace, its file gone or naming another", async (t) => {
  const home = world(t);
  if (!home || !service) return;
  const cacheOf = (name: string) => new cache.ReadWriteCredentialsCache({ dirname: name });
  const [live, gone, plain, elsewhere, foreign, busy] = ["live", "gone", "plain", "elsewhere", "foreign", "busy"].map(
    cacheOf,
  );
  for (const c of [live, gone, plain, elsewhere, foreign, busy]) await c.save(await client());
  const named = new Map(
    [live, gone, plain, elsewhere, foreign, busy].map((c) => [c, formOf(c.path).cred_auth_keychain.account]),
  );
  const kept = (c: cache.ReadWriteCredentialsCache) => named.get(c) ?? "";
  const keep = [kept(busy), kept(foreign), kept(elsewhere)];
  rmSync(gone.path); // a file removed by hand: its entry is stale
  const plainEntry = (await service.entries()).find((e) => e.account === kept(plain))?.secret ?? "";
  await new cache.ReadWriteCredentialsCache({ dirname: "plain", secretStore: "file" }).save(await client());
  await service.plant(kept(plain), plainEntry); // the plain file's old entry, left by a save killed after its rename
  rmSync(busy.path); // another save of that cache runs: its lock is held
  const lock = tryLock(join(dirname(busy.path), ".cred_credentials.json.lock"), 60_000);
  t.after(() => lock.state === "held" && lock.lock.release());
  // Another mount namespace's entry for a file this one does not see: a save elsewhere.
  const other = JSON.parse((await service.entries()).find((e) => e.account === kept(elsewhere))?.secret ?? "{}");
  await service.plant(kept(elsewhere), JSON.stringify({ ...other, ns: "mnt:[1]" }));
  rmSync(elsewhere.path);
  // Another user's file naming some other entry: not ours to read, so nothing is proven.
  writeCacheFile(foreign.path, {
    ...formOf(foreign.path),
    cred_auth_keychain: { ...formOf(live.path).cred_auth_keychain },
  });
  chownSync(foreign.path, 65534, 65534);
  // Another program's entries under service cred-auth: one shaped like ours, unmarked; one of any name.
  const strangers = [`${join(home, "nowhere.json")}:${"a".repeat(32)}`, join(home, "nowhere.json")];
  for (const account of strangers)
    await service.plant(account, JSON.stringify({ id: "a".repeat(32), note: "not yours" }));

  await live.save(await client());
  assert.deepEqual(await accounts(), [formOf(live.path).cred_auth_keychain.account, ...keep, ...strangers].sort());
});

test("one helper process per process: a save's operations share it, and two saves at once too", async (t) => {
  if (!world(t)) return;
  const spawned: string[] = [];
  const spawn = childProcess.spawn;
  t.mock.method(childProcess, "spawn", (...args: Parameters<typeof spawn>) => {
    spawned.push(String(args[0]));
    return spawn(...args);
  });
  const [a, b] = [
    new cache.ReadWriteCredentialsCache({ dirname: "a" }),
    new cache.ReadWriteCredentialsCache({ dirname: "b" }),
  ];
  await a.save(await client());
  assert.equal(spawned.length, 1, "set, delete, list and gets through one helper");
  await Promise.all([a.save(await client()), b.save(await client())]);
  assert.equal(spawned.length, 2, "the two saves at once shared the second");
  const loaded = await a.load();
  await readPendingSecrets(loaded!);
  assert.equal(spawned.length, 3);
});

test("`file` loads none of the keychain's code; a store of the user's own plugs in", async (t) => {
  const home = world(t);
  if (!home) return;
  const record = join(home, "modules.json");
  const script = `
    const { cache } = require(${JSON.stringify(join(DIST, "index.js"))});
    const { userRefreshClientFrom } = require(${JSON.stringify(join(DIST, "credentials/kinds/user/client.js"))});
    (async () => {
      const store = new cache.ReadWriteCredentialsCache();
      await store.save(await userRefreshClientFrom(${JSON.stringify({ type: "authorized_user", clientId: "c", clientSecret: "s", refreshToken: "r", tokenUrl: "https://oauth2.googleapis.com/token", scopes: [CLOUD] })}));
      await store.load();
      await store.delete();
      require("node:fs").writeFileSync(process.env.RECORD, JSON.stringify(Object.keys(require.cache)));
    })();`;
  await run(process.execPath, ["-e", script], {
    env: { ...process.env, CRED_AUTH_SECRET_STORE: "file", RECORD: record },
  });
  const loaded = (JSON.parse(readFileSync(record, "utf8")) as string[]).map((m) => relative(DIST, m));
  assert.ok(loaded.includes("stores/file.js"), "the run did save and load");
  assert.deepEqual(
    loaded.filter((m) => /keychain|@napi-rs/.test(m)),
    [],
    "nothing of the keychain loaded",
  );

  // A store of one's own: here, in memory.
  const kept = new Map<string, cache.AuthorizedUserFile>();
  const mine: cache.SecretStore = {
    async load(path) {
      const file = kept.get(path);
      if (!file) return null;
      const { refreshToken, clientSecret, ...fields } = file;
      return { fields, standIn: `mine:${path}`, secrets: async () => ({ refreshToken, clientSecret }) };
    },
    async save(path, credentials) {
      kept.set(path, credentials);
      return `mine:${path}`;
    },
    async delete(path) {
      return kept.delete(path);
    },
  };
  const store = new cache.ReadWriteCredentialsCache({ dirname: "mine", secretStore: mine });
  await store.save(await client());
  assert.equal(existsSync(store.path), false, "the store keeps it, not a file");
  const loaded2 = await store.load();
  assert.ok(emu.checkAccessToken((await loaded2!.getAccessToken()).token ?? ""));
  assert.equal(await store.delete(), true);
  assert.equal(await store.load(), null);
  assert.deepEqual(await accounts(), []);
});

test("a `..` path through another user's link opens their file: it is not read for the user's entry", async (t) => {
  const home = world(t);
  if (!home) return;
  const victim = new cache.ReadWriteCredentialsCache();
  await victim.save(await client());
  // uid 65534 owns a link on the way: ~/.config/evil -> /tmp/attacker/a/b, so evil/../cred is the attacker's cred/.
  const attacker = join(home, "attacker");
  mkdirSync(join(attacker, "a", "b"), { recursive: true });
  mkdirSync(join(attacker, "a", "cred"), { recursive: true });
  const link = join(home, ".config", "evil");
  symlinkSync(join(attacker, "a", "b"), link);
  const planted = join(attacker, "a", "cred", "cred_credentials.json");
  writeFileSync(planted, readFileSync(victim.path)); // the victim's own words, to the byte
  for (const path of [join(attacker, "a", "cred"), planted]) chownSync(path, 65534, 65534);
  lchownSync(link, 65534, 65534);
  const through = `${link}/../cred/cred_credentials.json`; // as typed: join() would tidy the .. away
  assert.throws(
    () => userFile(through).refreshToken,
    (error: Error & { code?: string }) => {
      assert.notEqual(error.code, undefined);
      assert.doesNotMatch(error.message, /1\/\//);
      return true;
    },
  );
  assert.ok(await victim.load(), "the victim's own cache still loads");
});

test("the token cache keys a keychain-form file by `cred-auth-keychain:ID`, as before: a sign-in's token is found by the next process", async (t) => {
  if (!world(t)) return;
  delete process.env.CRED_AUTH_TOKEN_CACHE;
  const store = new cache.ReadWriteCredentialsCache({ dirname: "keyed" });
  const credentials = await client();
  const { token } = await credentials.getAccessToken();
  await store.save(credentials);
  const { id } = formOf(store.path).cred_auth_keychain;
  const key = tokenCacheKey(
    { type: "authorized_user", clientId: DEMO_CLIENT.clientId, refreshToken: `cred-auth-keychain:${id}` },
    [CLOUD],
    `${emu.url}/token`,
  );
  assert.equal(readCachedToken(key)?.access_token, token);
});

test("revoke forgets the entry of the file it read and removed", async (t) => {
  if (!world(t)) return;
  const store = new cache.ReadWriteCredentialsCache({ dirname: "revoked" });
  await store.save(await client());
  const file = readAdcFileSync(store.path);
  rmSync(store.path);
  await forgetStoredSecrets(file, store.path);
  assert.deepEqual(await accounts(), []);
  await forgetStoredSecrets({}, store.path); // a whole file's: nothing to forget, nothing thrown
});

test("a save waits for another save of the same cache (its lock), then runs", async (t) => {
  if (!world(t)) return;
  const store = new cache.ReadWriteCredentialsCache({ dirname: "waits" });
  await store.save(await client());
  const lock = tryLock(join(dirname(store.path), ".cred_credentials.json.lock"), 60_000);
  assert.equal(lock.state, "held");
  let saved = false;
  const saving = store.save(await client()).then(() => (saved = true));
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(saved, false, "it waits while the lock is held");
  if (lock.state === "held") lock.lock.release();
  await saving;
  assert.deepEqual(await accounts(), [formOf(store.path).cred_auth_keychain.account]);
  assert.equal(existsSync(join(dirname(store.path), ".cred_credentials.json.lock")), false, "and lets it go");
});

test("the helper runs without the caller's NODE_OPTIONS (a loader, a debugger's port)", async (t) => {
  const home = world(t);
  if (!home) return;
  process.env.NODE_OPTIONS = `--require ${join(home, "missing-preload.js")}`;
  t.after(() => delete process.env.NODE_OPTIONS);
  const store = new cache.ReadWriteCredentialsCache({ dirname: "options", secretStore: "keychain" });
  await store.save(await client());
  assert.equal((await accounts()).length, 1);
});

/** Saves once in a new process (`auto` remembers a failed keychain for the process's life); its output. */
async function saveInChild(env: NodeJS.ProcessEnv, store = "auto"): Promise<string> {
  const script = `
    const { cache } = require(${JSON.stringify(join(DIST, "index.js"))});
    const { userRefreshClientFrom } = require(${JSON.stringify(join(DIST, "credentials/kinds/user/client.js"))});
    (async () => {
      const c = new cache.ReadWriteCredentialsCache({ secretStore: ${JSON.stringify(store)} });
      const client = () => userRefreshClientFrom(${JSON.stringify({ type: "authorized_user", clientId: "c", clientSecret: "s", refreshToken: "r", tokenUrl: "https://oauth2.googleapis.com/token", scopes: [CLOUD] })});
      for (const n of [1, 2]) await c.save(await client()).then(() => console.log("saved", require("node:fs").readFileSync(c.path, "utf8").includes("refresh_token") ? "file" : "keychain"), (e) => console.log("ERROR", e.code, e.message));
    })();`;
  const { stdout } = await run(process.execPath, ["-e", script], { env: { ...process.env, ...env } });
  return stdout;
}

test("a keychain that cannot be used: auto keeps the file (asked once per process), keychain refuses; each says why", async (t) => {
  const home = world(t);
  if (!home) return;
  const gone = { DBUS_SESSION_BUS_ADDRESS: "unix:path=/nonexistent/bus" };
  assert.match(await saveInChild(gone), /^saved file\nsaved file\n/);
  assert.equal(
    readFileSync(join(home, ".xdg-config", "cred-auth", "keychain-note"), "utf8"),
    "the session bus is gone (/nonexistent/bus is missing)\n",
  );
  const refused = await saveInChild(gone, "keychain");
  assert.match(
    refused,
    /^ERROR ERR_KEYCHAIN_UNAVAILABLE The refresh token was to be kept in the keychain \(secret store "keychain"\), which could not be used: the session bus is gone \(\/nonexistent\/bus is missing\)\. Nothing was saved\./,
  );
  assert.match(
    await saveInChild({}),
    /^saved keychain\nsaved keychain\n/,
    "a keychain that answers: used, and the note forgotten",
  );
  assert.equal(existsSync(join(home, ".xdg-config", "cred-auth", "keychain-note")), false);
});
