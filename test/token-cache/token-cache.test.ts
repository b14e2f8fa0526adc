// The access-token cache on its own: location, keys, files, and the cross-process single flight.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as nodeCrypto from "node:crypto";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import {
  deleteCachedToken,
  getTokenWithCache,
  readCachedToken,
  tokenCacheDir,
  tokenCacheKey,
  writeCachedToken,
} from "../../dist/token-cache/index.js";
import type { CachedAccessToken } from "../../dist/token-cache/index.js";
import { hashWithNodeCrypto, sha256Hex } from "../../dist/util/sha256.js";

const HOUR = 3_600_000;
const user = {
  type: "authorized_user",
  clientId: "client-1",
  refreshToken: "1//refresh-secret-aaaa",
  tokenUrl: "https://oauth2.googleapis.com/token",
} as const;
const sa = {
  type: "service_account",
  clientEmail: "sa@p.iam.gserviceaccount.com",
  privateKeyId: "kid-1",
  privateKey: "-----BEGIN PRIVATE KEY-----secret",
  tokenUrl: "https://oauth2.googleapis.com/token",
} as const;

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "cred-auth-token-cache-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function token(name: string, lifetimeMs = HOUR): CachedAccessToken {
  return { access_token: `ya29.${name}`, expiry_date: Date.now() + lifetimeMs, token_type: "Bearer", scopes: ["s"] };
}

/** A refresh function that counts its calls. */
function counter(make: () => CachedAccessToken = () => token(`t${Math.random()}`), delayMs = 0) {
  const state = {
    calls: 0,
    refresh: async (): Promise<CachedAccessToken> => {
      state.calls++;
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      return make();
    },
  };
  return state;
}

function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(child.stdout);
}

const HASH_INPUTS = ["", "abc", "é€😀 ünïcødé", "x".repeat(1000)];
for (let n = 50; n <= 130; n++) HASH_INPUTS.push("a".repeat(n));
for (let i = 0; i < 200; i++)
  HASH_INPUTS.push(
    Array.from({ length: i * 7 }, (_, j) => String.fromCharCode(32 + ((i * 31 + j * 17) % 95))).join(""),
  );

function assertDigestsOfNodeCrypto(): void {
  for (const text of HASH_INPUTS)
    assert.equal(
      sha256Hex(text),
      nodeCrypto.createHash("sha256").update(text, "utf8").digest("hex"),
      JSON.stringify(text.slice(0, 40)),
    );
}

test("sha256Hex equals node:crypto's SHA-256 at every padding boundary and for non-ASCII text", () => {
  assertDigestsOfNodeCrypto();
});

// After the one above (the switch is for the whole process): the warm path's keys stay the CLI's.
test("sha256Hex told that node:crypto is loaded gives the same digests", () => {
  const digests = HASH_INPUTS.map((text) => sha256Hex(text));
  hashWithNodeCrypto(nodeCrypto);
  assert.deepEqual(
    HASH_INPUTS.map((text) => sha256Hex(text)),
    digests,
  );
  assertDigestsOfNodeCrypto();
});

test("directory: CRED_AUTH_TOKEN_CACHE, `off`, XDG_CACHE_HOME, LOCALAPPDATA on Windows, ~/.cache", () => {
  assert.equal(tokenCacheDir({ CRED_AUTH_TOKEN_CACHE: "/x/tc", XDG_CACHE_HOME: "/xdg", HOME: "/h" }, "linux"), "/x/tc");
  assert.equal(tokenCacheDir({ CRED_AUTH_TOKEN_CACHE: "off", HOME: "/h" }, "linux"), false);
  assert.equal(tokenCacheDir({ CRED_AUTH_TOKEN_CACHE: " OFF ", HOME: "/h" }, "linux"), false);
  assert.equal(tokenCacheDir({ XDG_CACHE_HOME: "/xdg", HOME: "/h" }, "linux"), join("/xdg", "cred-auth", "tokens"));
  assert.equal(tokenCacheDir({ HOME: "/h" }, "linux"), join("/h", ".cache", "cred-auth", "tokens"));
  assert.equal(
    tokenCacheDir({ LOCALAPPDATA: "C:\\AppData\\Local", HOME: "/h" }, "win32"),
    join("C:\\AppData\\Local", "cred-auth", "tokens"),
  );
});

test("key: a sha256 hex digest that changes with every part of the identity, and not with scope order", () => {
  const key = tokenCacheKey(user, ["b", "a"]);
  assert.match(key, /^[0-9a-f]{64}$/);
  assert.equal(tokenCacheKey(user, ["a", "b", "a"]), key);
  assert.notEqual(tokenCacheKey(user, ["a"]), key);
  assert.notEqual(tokenCacheKey({ ...user, refreshToken: "1//other" }, ["a", "b"]), key);
  assert.notEqual(tokenCacheKey({ ...user, clientId: "client-2" }, ["a", "b"]), key);
  assert.notEqual(
    tokenCacheKey(user, ["a", "b"], "http://127.0.0.1:9099/token"),
    key,
    "an emulator's tokens never serve Google",
  );
  const saKey = tokenCacheKey(sa, ["a"]);
  assert.notEqual(tokenCacheKey({ ...sa, privateKeyId: "kid-2" }, ["a"]), saKey);
  assert.notEqual(tokenCacheKey({ ...sa, clientEmail: "other@p.iam.gserviceaccount.com" }, ["a"]), saKey);
  const { privateKeyId: _, ...noKid } = sa;
  assert.notEqual(
    tokenCacheKey(noKid, ["a"]),
    tokenCacheKey({ ...noKid, privateKey: "another key" }, ["a"]),
    "without a key id the key itself (hashed) tells them apart",
  );
});

test("files: only the token fields are written, file 0600, directory 0700, atomically", () => {
  const dir = join(tempDir(), "nested", "tokens");
  const key = tokenCacheKey(user, []);
  const leaky = { ...token("w"), refreshToken: user.refreshToken, privateKey: sa.privateKey } as CachedAccessToken;
  assert.equal(writeCachedToken(key, leaky, { dir }), true);
  const path = join(dir, `${key}.json`);
  assert.deepEqual(Object.keys(JSON.parse(readFileSync(path, "utf8"))).sort(), [
    "access_token",
    "expiry_date",
    "scopes",
    "token_type",
  ]);
  assert.ok(!readFileSync(path, "utf8").includes("secret"));
  if (process.platform !== "win32") {
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
  }
  assert.deepEqual(readdirSync(dir), [`${key}.json`], "no temporary file left behind");
  assert.equal(readCachedToken(key, { dir })?.access_token, "ya29.w");
  deleteCachedToken(key, { dir });
  assert.equal(readCachedToken(key, { dir }), undefined);
});

test("files: corrupt, partial or wrongly shaped entries read as missing", () => {
  const dir = tempDir();
  const key = tokenCacheKey(user, []);
  for (const text of [
    "",
    "{",
    "null",
    "[]",
    '{"access_token":""}',
    '{"access_token":"x"}',
    '{"access_token":"x","expiry_date":"soon"}',
    "\u0000\u0001",
  ]) {
    writeFileSync(join(dir, `${key}.json`), text);
    assert.equal(readCachedToken(key, { dir }), undefined, JSON.stringify(text));
  }
});

test("files: a key that is not a plain name is refused (no path escapes)", () => {
  const dir = tempDir();
  assert.throws(() => readCachedToken("../escape", { dir }), TypeError);
  assert.throws(() => writeCachedToken("a/b", token("x"), { dir }), TypeError);
});

test("files: an unwritable cache is not an error; `dir: false` turns the cache off", async () => {
  const root = tempDir();
  const blocked = join(root, "file-not-dir");
  writeFileSync(blocked, "x");
  const key = tokenCacheKey(user, []);
  assert.equal(writeCachedToken(key, token("x"), { dir: join(blocked, "tokens") }), false);
  const c = counter();
  assert.match((await getTokenWithCache(key, c.refresh, { dir: join(blocked, "tokens") })).access_token, /^ya29\./);
  assert.match((await getTokenWithCache(key, c.refresh, { dir: false })).access_token, /^ya29\./);
  assert.match((await getTokenWithCache(key, c.refresh, { dir: false })).access_token, /^ya29\./);
  assert.equal(c.calls, 3);
});

test("a cache directory that group or others may write to, or of another user, is not used", {
  skip: process.platform === "win32",
}, async () => {
  const dir = tempDir();
  const key = tokenCacheKey(user, []);
  writeCachedToken(key, token("planted"), { dir });
  chmodSync(dir, 0o777);
  assert.equal(readCachedToken(key, { dir }), undefined);
  const c = counter(() => token("own"));
  assert.equal((await getTokenWithCache(key, c.refresh, { dir })).access_token, "ya29.own");
  assert.equal(c.calls, 1);
  chmodSync(dir, 0o700);
  assert.equal(
    readCachedToken(key, { dir })?.access_token,
    "ya29.planted",
    "nothing was written while it was open to others",
  );
  if (process.getuid?.() === 0) {
    // As root, a directory owned by another user must be refused as well.
    chownSync(dir, 12345, 12345);
    assert.equal(readCachedToken(key, { dir }), undefined);
    chownSync(dir, 0, 0);
  }
});

test("getTokenWithCache: a valid cached token is returned without refreshing; near expiry, expired or --fresh refreshes", async () => {
  const dir = tempDir();
  const key = tokenCacheKey(user, []);
  const c = counter(() => token("new"));
  writeCachedToken(key, token("cached"), { dir });
  assert.equal((await getTokenWithCache(key, c.refresh, { dir })).access_token, "ya29.cached");
  assert.equal(c.calls, 0);

  writeCachedToken(key, token("closing", 4 * 60_000), { dir });
  assert.equal((await getTokenWithCache(key, c.refresh, { dir })).access_token, "ya29.new", "less than 5 minutes left");
  assert.equal(c.calls, 1);
  assert.equal(readCachedToken(key, { dir })?.access_token, "ya29.new", "the new token is cached");

  writeCachedToken(key, token("closing", 4 * 60_000), { dir });
  assert.equal(
    (await getTokenWithCache(key, c.refresh, { dir, minValidityMs: 60_000 })).access_token,
    "ya29.closing",
    "minValidityMs is honoured",
  );

  writeCachedToken(key, token("expired", -1000), { dir });
  assert.equal((await getTokenWithCache(key, c.refresh, { dir })).access_token, "ya29.new");
  assert.equal(c.calls, 2);

  assert.equal((await getTokenWithCache(key, c.refresh, { dir, fresh: true })).access_token, "ya29.new");
  assert.equal(c.calls, 3, "fresh always asks");
});

test("getTokenWithCache: concurrent calls in one process share one refresh", async () => {
  const dir = tempDir();
  const c = counter(undefined, 50);
  const key = tokenCacheKey(user, []);
  const tokens = await Promise.all(Array.from({ length: 50 }, () => getTokenWithCache(key, c.refresh, { dir })));
  assert.equal(c.calls, 1);
  assert.equal(new Set(tokens.map((t) => t.access_token)).size, 1);
});

test("getTokenWithCache: refresh errors propagate and release the lock", async () => {
  const dir = tempDir();
  const key = tokenCacheKey(user, []);
  await assert.rejects(
    getTokenWithCache(
      key,
      async () => {
        throw new Error("provider said no");
      },
      { dir },
    ),
    /provider said no/,
  );
  assert.ok(!existsSync(join(dir, `${key}.lock`)));
  assert.equal(readCachedToken(key, { dir }), undefined);
});

test("lock: while another live process refreshes, a waiter takes its token instead of refreshing", async () => {
  const dir = tempDir();
  const key = tokenCacheKey(user, []);
  // Our own pid on this host is alive: the lock counts as held by a running refresh.
  writeFileSync(join(dir, `${key}.lock`), JSON.stringify({ pid: process.pid, host: hostname(), time: Date.now() }));
  setTimeout(() => writeCachedToken(key, token("from-the-other-process"), { dir }), 150);
  const c = counter();
  assert.equal((await getTokenWithCache(key, c.refresh, { dir })).access_token, "ya29.from-the-other-process");
  assert.equal(c.calls, 0);
});

test("lock: a waiter gives up after lockWaitMs and refreshes by itself", async () => {
  const dir = tempDir();
  const key = tokenCacheKey(user, []);
  writeFileSync(join(dir, `${key}.lock`), JSON.stringify({ pid: process.pid, host: hostname(), time: Date.now() }));
  const c = counter(() => token("mine"));
  assert.equal((await getTokenWithCache(key, c.refresh, { dir, lockWaitMs: 200 })).access_token, "ya29.mine");
  assert.equal(c.calls, 1);
  assert.equal(readCachedToken(key, { dir })?.access_token, "ya29.mine");
});

test("lock: left by a dead process, or older than staleLockMs, or unreadable and old: broken at once", async () => {
  const dir = tempDir();
  const key = tokenCacheKey(user, []);
  const lock = join(dir, `${key}.lock`);
  const stale = [
    () => writeFileSync(lock, JSON.stringify({ pid: deadPid(), host: hostname(), time: Date.now() })),
    () => writeFileSync(lock, JSON.stringify({ pid: process.pid, host: "another-host", time: Date.now() - 31_000 })),
    () => {
      writeFileSync(lock, "");
      utimesSync(lock, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    },
  ];
  for (const [i, make] of stale.entries()) {
    make();
    const c = counter(() => token(`after-stale-${i}`));
    // lockWaitMs 0: a waiter would refresh without taking the lock, leaving the stale lock in place.
    assert.equal(
      (await getTokenWithCache(key, c.refresh, { dir, lockWaitMs: 0 })).access_token,
      `ya29.after-stale-${i}`,
    );
    assert.equal(c.calls, 1);
    assert.ok(!existsSync(lock), `stale lock ${i} was removed`);
    deleteCachedToken(key, { dir });
  }
});

test("lock: a fresh lock of another host is respected (its pid cannot be checked from here)", async () => {
  const dir = tempDir();
  const key = tokenCacheKey(user, []);
  const lock = join(dir, `${key}.lock`);
  const content = JSON.stringify({ pid: deadPid(), host: "another-host", time: Date.now() });
  writeFileSync(lock, content);
  const c = counter();
  await getTokenWithCache(key, c.refresh, { dir, lockWaitMs: 100 });
  assert.equal(c.calls, 1);
  assert.equal(readFileSync(lock, "utf8"), content, "not broken, not removed by the waiter");
});
