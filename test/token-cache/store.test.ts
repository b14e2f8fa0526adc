// The token cache's store: where it lives, what a key is made of, and that only a private
// directory and private, small, well-formed entries of this user are ever used.
import assert from "node:assert/strict";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import {
  deleteCachedToken,
  deleteCachedTokensOf,
  hasValidity,
  readCachedToken,
  tokenCacheDir,
  withCacheDir,
  writeCachedToken,
} from "../../dist/token-cache/store.js";
import { MAX_TOKEN_LENGTH } from "../../dist/trust/text.js";

// @internal helpers, absent from the .d.ts.
const { resolveDir, uniqueSuffix } = createRequire(import.meta.url)("../../dist/token-cache/store.js") as {
  resolveDir(location: { dir?: string | false }): string | false;
  uniqueSuffix(): string;
};

const KEY = "a".repeat(64);
const TOKEN = { access_token: "ya29.a0Af/h+Xy=z", expiry_date: 1_900_000_000_000, token_type: "Bearer" };

function scratch(t: { after(fn: () => void): void }): string {
  const root = mkdtempSync(join(tmpdir(), "cred-auth-store-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

test("the cache directory: CRED_AUTH_TOKEN_CACHE (off turns it off), XDG_CACHE_HOME, LOCALAPPDATA on Windows, ~/.cache", () => {
  assert.equal(tokenCacheDir({ CRED_AUTH_TOKEN_CACHE: " OFF " }, "linux"), false);
  assert.equal(tokenCacheDir({ CRED_AUTH_TOKEN_CACHE: " /c/t ", XDG_CACHE_HOME: "/x" }, "linux"), "/c/t");
  assert.equal(tokenCacheDir({ CRED_AUTH_TOKEN_CACHE: "  ", XDG_CACHE_HOME: " /x " }, "linux"), "/x/cred-auth/tokens");
  assert.equal(tokenCacheDir({ XDG_CACHE_HOME: " ", HOME: "/home/u" }, "linux"), "/home/u/.cache/cred-auth/tokens");
  assert.equal(tokenCacheDir({ LOCALAPPDATA: "/l", HOME: "/home/u" }, "linux"), "/home/u/.cache/cred-auth/tokens");
  assert.equal(tokenCacheDir({ LOCALAPPDATA: "/l", HOME: "/home/u" }, "win32"), join("/l", "cred-auth", "tokens"));
  assert.equal(tokenCacheDir({ HOME: "" }, "linux"), join(homedir(), ".cache", "cred-auth", "tokens"));
});

test("a written token reads back: only its four fields, file 0600 in a new directory 0700, no temp file left", (t) => {
  const dir = join(scratch(t), "new", "tokens");
  const token = { ...TOKEN, scopes: ["s1", "s2"], refresh_token: "1//0gNever" } as typeof TOKEN;
  assert.equal(writeCachedToken(KEY, token, { dir }), true);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  const file = join(dir, `${KEY}.json`);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(readFileSync(file, "utf8"), `${JSON.stringify({ ...TOKEN, scopes: ["s1", "s2"] })}\n`);
  assert.deepEqual(readdirSync(dir), [`${KEY}.json`]);
  assert.deepEqual(readCachedToken(KEY, { dir }), { ...TOKEN, scopes: ["s1", "s2"] });
  assert.equal(writeCachedToken(KEY, { ...TOKEN, token_type: "" }, { dir }), true);
  assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), TOKEN, "token_type defaults to Bearer, no scopes");
  assert.equal(deleteCachedToken(KEY, { dir }), true, "one was there");
  assert.equal(existsSync(file), false);
  assert.equal(deleteCachedToken(KEY, { dir }), false, "none was there");
  assert.equal(readCachedToken(KEY, { dir }), undefined);
});

test("deleteCachedTokensOf removes an owner's entries (OWNER-...json) and nothing else, and counts them", (t) => {
  const dir = join(scratch(t), "tokens");
  const owner = "b".repeat(64);
  const mine = [`${owner}-1`, `${owner}-2`, `${owner}-3`];
  for (const key of [...mine, owner, "c".repeat(64), `${"c".repeat(64)}-1`]) writeCachedToken(key, TOKEN, { dir });
  // Names that only look alike: the owner's prefix without the entry suffix, and a suffix elsewhere.
  writeFileSync(join(dir, `${owner}-notes.txt`), "kept");
  mkdirSync(join(dir, `${owner}-dir.json`), { mode: 0o700 });
  writeFileSync(join(dir, `x${owner}-4.json`), "kept");
  assert.equal(deleteCachedTokensOf(owner, { dir }), 3);
  for (const key of mine) assert.equal(readCachedToken(key, { dir }), undefined, `${key} is gone`);
  assert.deepEqual(readCachedToken(owner, { dir }), TOKEN, "the owner's own access token stays");
  assert.deepEqual(readCachedToken("c".repeat(64), { dir }), TOKEN);
  assert.deepEqual(readCachedToken(`${"c".repeat(64)}-1`, { dir }), TOKEN);
  assert.deepEqual(
    readdirSync(dir).sort(),
    [
      `${"c".repeat(64)}-1.json`,
      `${"c".repeat(64)}.json`,
      `${owner}-dir.json`,
      `${owner}-notes.txt`,
      `${owner}.json`,
      `x${owner}-4.json`,
    ].sort(),
  );
  assert.equal(deleteCachedTokensOf(owner, { dir }), 0, "nothing left to remove");
  assert.equal(deleteCachedTokensOf(owner, { dir: false }), 0, "the cache off");
  assert.equal(deleteCachedTokensOf(owner, { dir: join(dir, "absent") }), 0, "no directory");
  assert.equal(existsSync(join(dir, "absent")), false, "and none is created");
  assert.throws(() => deleteCachedTokensOf("../x", { dir }), /key/, "an owner is a key");
});

test("the cache off, or a directory that is absent for a read, is never created", (t) => {
  const dir = join(scratch(t), "absent");
  assert.equal(writeCachedToken(KEY, TOKEN, { dir: false }), false);
  assert.equal(readCachedToken(KEY, { dir: false }), undefined);
  assert.equal(deleteCachedToken(KEY, { dir: false }), false);
  assert.equal(readCachedToken(KEY, { dir }), undefined);
  assert.equal(deleteCachedToken(KEY, { dir }), false);
  assert.equal(existsSync(dir), false);
  assert.equal(
    withCacheDir({ dir }, false, () => "used"),
    undefined,
  );
  assert.equal(
    withCacheDir({ dir }, true, () => "used"),
    "used",
  );
});

test("a directory others may write, or a file where the directory should be, is not used", (t) => {
  const root = scratch(t);
  const dir = join(root, "shared");
  mkdirSync(dir, { mode: 0o700 });
  assert.equal(writeCachedToken(KEY, TOKEN, { dir }), true);
  chmodSync(dir, 0o770);
  assert.equal(readCachedToken(KEY, { dir }), undefined);
  assert.equal(writeCachedToken(KEY, TOKEN, { dir }), false);
  chmodSync(dir, 0o702);
  assert.equal(readCachedToken(KEY, { dir }), undefined);
  chmodSync(dir, 0o755);
  assert.deepEqual(readCachedToken(KEY, { dir }), TOKEN, "readable by others is fine: only writable is not");
  const file = join(root, "file");
  writeFileSync(file, "x");
  assert.equal(writeCachedToken(KEY, TOKEN, { dir: file }), false);
  assert.equal(
    withCacheDir({ dir: file }, false, () => "used"),
    undefined,
  );
});

test("an entry that is a link, writable by others, too big or corrupt is no token", (t) => {
  const dir = join(scratch(t), "tokens");
  assert.equal(writeCachedToken(KEY, TOKEN, { dir }), true);
  const file = join(dir, `${KEY}.json`);
  const other = join(dir, "elsewhere.json");
  writeFileSync(other, JSON.stringify(TOKEN), { mode: 0o600 });
  rmSync(file);
  symlinkSync(other, file);
  assert.equal(readCachedToken(KEY, { dir }), undefined, "a symbolic link is refused");
  rmSync(file);
  writeFileSync(file, JSON.stringify(TOKEN), { mode: 0o600 });
  assert.deepEqual(readCachedToken(KEY, { dir }), TOKEN);
  chmodSync(file, 0o620);
  assert.equal(readCachedToken(KEY, { dir }), undefined, "group-writable");
  chmodSync(file, 0o602);
  assert.equal(readCachedToken(KEY, { dir }), undefined, "world-writable");
  chmodSync(file, 0o644);
  assert.deepEqual(readCachedToken(KEY, { dir }), TOKEN);
  writeFileSync(file, `${JSON.stringify(TOKEN)}${" ".repeat(64 * 1024)}`);
  assert.equal(readCachedToken(KEY, { dir }), undefined, "more than 64 KiB");
  writeFileSync(file, `${JSON.stringify(TOKEN)}${" ".repeat(64 * 1024 - JSON.stringify(TOKEN).length)}`);
  assert.deepEqual(readCachedToken(KEY, { dir }), TOKEN, "exactly 64 KiB is fine");
  const bad = [
    "{",
    "null",
    "42",
    '"ya29"',
    JSON.stringify({ ...TOKEN, access_token: "" }),
    JSON.stringify({ ...TOKEN, access_token: 5 }),
    JSON.stringify({ ...TOKEN, expiry_date: "1900000000000" }),
    JSON.stringify({ access_token: "ya29.x", token_type: "Bearer" }),
  ];
  for (const text of bad) {
    writeFileSync(file, text);
    assert.equal(readCachedToken(KEY, { dir }), undefined, text);
  }
  writeFileSync(file, '{"access_token":"ya29.x","expiry_date":1e999}');
  assert.equal(readCachedToken(KEY, { dir }), undefined, "an infinite expiry");
  writeFileSync(file, JSON.stringify({ access_token: "ya29.x", expiry_date: 5, token_type: "", scopes: ["a", 1] }));
  assert.deepEqual(readCachedToken(KEY, { dir }), { access_token: "ya29.x", expiry_date: 5, token_type: "Bearer" });
  writeFileSync(file, JSON.stringify({ access_token: "ya29.x", expiry_date: 5, token_type: "MAC", scopes: "a" }));
  assert.deepEqual(readCachedToken(KEY, { dir }), { access_token: "ya29.x", expiry_date: 5, token_type: "MAC" });
  writeFileSync(file, JSON.stringify({ access_token: "ya29.x", expiry_date: 5, token_type: 7, scopes: [] }));
  assert.deepEqual(readCachedToken(KEY, { dir }), {
    access_token: "ya29.x",
    expiry_date: 5,
    token_type: "Bearer",
    scopes: [],
  });
});

test("an access token that is not a token (white space, control characters, too long) is neither written nor read back", (t) => {
  const dir = join(scratch(t), "tokens");
  const file = join(dir, `${KEY}.json`);
  const junk = [
    "ya29.a\r\nX-Injected: 1",
    "ya29.b c",
    "ya29.c\u001b[2J",
    "ya29.d\u202e",
    "x".repeat(MAX_TOKEN_LENGTH + 1),
  ];
  for (const access_token of junk) {
    assert.equal(writeCachedToken(KEY, { ...TOKEN, access_token }, { dir }), false, JSON.stringify(access_token));
    assert.equal(existsSync(file), false, "nothing at rest");
    assert.deepEqual(existsSync(dir) ? readdirSync(dir) : [], [], "no temp file either");
  }
  for (const access_token of junk) {
    writeFileSync(file, JSON.stringify({ ...TOKEN, access_token }), { mode: 0o600 });
    assert.equal(readCachedToken(KEY, { dir }), undefined, `an older entry: ${JSON.stringify(access_token)}`);
  }
  const longest = { ...TOKEN, access_token: "y".repeat(MAX_TOKEN_LENGTH) };
  assert.equal(writeCachedToken(KEY, longest, { dir }), true, "the longest token");
  assert.deepEqual(readCachedToken(KEY, { dir }), longest);
});

test("a write that fails leaves no temp file behind and says false", (t) => {
  const dir = join(scratch(t), "tokens");
  mkdirSync(join(dir, `${KEY}.json`), { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  assert.equal(writeCachedToken(KEY, TOKEN, { dir }), false, "a directory where the entry belongs");
  assert.deepEqual(readdirSync(dir), [`${KEY}.json`]);
});

test("keys name files: only 1-128 characters of [A-Za-z0-9_-]", (t) => {
  const dir = scratch(t);
  for (const key of ["", "../x", "a/b", "a.b", "a".repeat(129), "é"]) {
    assert.throws(() => readCachedToken(key, { dir }), TypeError, key);
  }
  assert.equal(writeCachedToken("a".repeat(128), TOKEN, { dir }), true);
  assert.equal(writeCachedToken("A-z_09", TOKEN, { dir }), true);
  assert.deepEqual(readdirSync(dir).sort(), ["A-z_09.json", `${"a".repeat(128)}.json`]);
});

test("hasValidity: strictly more than the minimum left", () => {
  assert.equal(hasValidity({ expiry_date: 10_000 }, 5_000, 4_999), true);
  assert.equal(hasValidity({ expiry_date: 10_000 }, 5_000, 5_000), false);
  assert.equal(hasValidity({ expiry_date: 10_000 }, 5_000, 5_001), false);
  assert.equal(hasValidity({ expiry_date: Date.now() + 60_000 }, 30_000), true);
  assert.equal(hasValidity({ expiry_date: Date.now() + 60_000 }, 90_000), false);
});

/** Runs `fn` with `process` looking like another platform (a stub of what this machine is not). */
function asPlatform<T>(platform: NodeJS.Platform, withoutGetuid: boolean, fn: () => T): T {
  const platformBefore = Object.getOwnPropertyDescriptor(process, "platform");
  const getuid = process.getuid;
  Object.defineProperty(process, "platform", { value: platform, configurable: true });
  if (withoutGetuid) (process as { getuid?: unknown }).getuid = undefined;
  try {
    return fn();
  } finally {
    if (platformBefore) Object.defineProperty(process, "platform", platformBefore);
    process.getuid = getuid;
  }
}

const openDescriptors = () => readdirSync("/proc/self/fd").length;

test("on Linux entries are reached through the opened directory's descriptor, and every descriptor is closed", (t) => {
  const dir = join(scratch(t), "tokens");
  const before = openDescriptors();
  assert.equal(writeCachedToken(KEY, TOKEN, { dir }), true);
  const base = withCacheDir({ dir }, false, (opened) => opened);
  assert.match(String(base), /^\/proc\/self\/fd\/\d+$/);
  for (let i = 0; i < 10; i++) assert.deepEqual(readCachedToken(KEY, { dir }), TOKEN);
  chmodSync(dir, 0o770);
  assert.equal(readCachedToken(KEY, { dir }), undefined, "a group-writable directory is refused");
  assert.equal(openDescriptors(), before);
});

test("without owners and modes (Windows), the directory is used by its path and created when writing", (t) => {
  const dir = join(scratch(t), "tokens");
  asPlatform("win32", true, () => {
    assert.equal(readCachedToken(KEY, { dir }), undefined, "absent, and not created by a read");
    assert.equal(existsSync(dir), false);
    assert.equal(writeCachedToken(KEY, TOKEN, { dir }), true);
    assert.equal(
      withCacheDir({ dir }, false, (opened) => opened),
      dir,
    );
    chmodSync(join(dir, `${KEY}.json`), 0o666);
    assert.deepEqual(readCachedToken(KEY, { dir }), TOKEN, "no modes to judge there");
    const blocked = join(scratch(t), "file");
    writeFileSync(blocked, "");
    assert.equal(writeCachedToken(KEY, TOKEN, { dir: join(blocked, "tokens") }), false, "cannot be created");
  });
});

test("where process.getuid is missing, as on Windows, entries are not judged by owner", (t) => {
  const dir = join(scratch(t), "tokens");
  assert.equal(writeCachedToken(KEY, TOKEN, { dir }), true);
  chmodSync(join(dir, `${KEY}.json`), 0o666);
  assert.equal(readCachedToken(KEY, { dir }), undefined, "judged on Linux");
  asPlatform("linux", true, () =>
    assert.equal(
      withCacheDir({ dir }, false, (opened) => opened),
      dir,
    ),
  );
  asPlatform("win32", false, () => assert.deepEqual(readCachedToken(KEY, { dir }), TOKEN));
});

test("an entry or directory owned by another user is refused, even private", (t) => {
  if (process.getuid?.() !== 0) {
    t.skip("needs root to give a file to another user (CI runs as root)");
    return;
  }
  const dir = join(scratch(t), "tokens");
  assert.equal(writeCachedToken(KEY, TOKEN, { dir }), true);
  const file = join(dir, `${KEY}.json`);
  chownSync(file, 65534, 65534);
  assert.equal(readCachedToken(KEY, { dir }), undefined, "another user's 0600 entry");
  chownSync(file, 0, 0);
  chownSync(dir, 65534, 65534);
  assert.equal(readCachedToken(KEY, { dir }), undefined, "another user's 0700 directory");
});

test("the default location is CRED_AUTH_TOKEN_CACHE's, and off is off", (t) => {
  const dir = join(scratch(t), "tokens");
  const before = process.env.CRED_AUTH_TOKEN_CACHE;
  t.after(() => {
    if (before === undefined) delete process.env.CRED_AUTH_TOKEN_CACHE;
    else process.env.CRED_AUTH_TOKEN_CACHE = before;
  });
  process.env.CRED_AUTH_TOKEN_CACHE = dir;
  assert.equal(resolveDir({}), dir);
  assert.equal(resolveDir({ dir: "/elsewhere" }), "/elsewhere");
  assert.equal(resolveDir({ dir: false }), false);
  assert.equal(writeCachedToken(KEY, TOKEN), true);
  assert.deepEqual(readCachedToken(KEY), TOKEN);
  assert.deepEqual(readCachedToken(KEY, { dir }), TOKEN);
  process.env.CRED_AUTH_TOKEN_CACHE = "off";
  assert.equal(resolveDir({}), false);
  assert.equal(readCachedToken(KEY), undefined);
  assert.equal(writeCachedToken(KEY, TOKEN), false);
  assert.equal(
    withCacheDir({}, true, () => "used"),
    undefined,
  );
});

test("a refused key says what a key may be", (t) => {
  assert.throws(() => readCachedToken("../x", { dir: scratch(t) }), {
    name: "TypeError",
    message: "token cache key must be 1-128 characters of [A-Za-z0-9_-]",
  });
});

test("temp names: pid, time and a short random part, different each time", () => {
  const a = uniqueSuffix();
  assert.match(a, new RegExp(`^${process.pid}\\.[0-9a-z]+\\.[0-9a-z]{1,8}$`));
  assert.notEqual(uniqueSuffix(), a);
});
