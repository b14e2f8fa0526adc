// The token cache's cross-process lock: taken with O_EXCL, released only by its owner, broken
// only when its owner is gone (a dead pid on this host) or it is older than staleMs.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import { tryLock } from "../../dist/token-cache/lock.js";

const HOUR = 3_600_000;

function fresh(t: { after(fn: () => void): void }): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), "cred-auth-lock-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return { dir, path: join(dir, "key.lock") };
}

/** A pid that is certainly not running: a child that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(child.stdout);
}

const plant = (path: string, owner: unknown) =>
  writeFileSync(path, typeof owner === "string" ? owner : JSON.stringify(owner), { mode: 0o600 });

test("a free lock is taken: a 0600 file naming this process, removed on release, only once", (t) => {
  const { dir, path } = fresh(t);
  const attempt = tryLock(path, HOUR);
  assert.equal(attempt.state, "held");
  const owner = JSON.parse(readFileSync(path, "utf8"));
  assert.equal(owner.pid, process.pid);
  assert.equal(owner.host, hostname());
  assert.ok(Math.abs(owner.time - Date.now()) < HOUR);
  assert.equal(typeof owner.nonce, "string");
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(tryLock(path, HOUR).state, "busy", "held by a live process (this one)");
  if (attempt.state === "held") attempt.lock.release();
  assert.deepEqual(readdirSync(dir), []);
  const again = tryLock(path, HOUR);
  assert.equal(again.state, "held");
});

test("release leaves a lock that is no longer ours", (t) => {
  const { path } = fresh(t);
  const attempt = tryLock(path, HOUR);
  assert.equal(attempt.state, "held");
  const other = JSON.stringify({ pid: process.pid, host: hostname(), time: Date.now(), nonce: "someone-else" });
  plant(path, other);
  if (attempt.state === "held") attempt.lock.release();
  assert.equal(readFileSync(path, "utf8"), other);
});

test("a lock of a dead process on this host is broken and taken, leaving no file aside", (t) => {
  const { dir, path } = fresh(t);
  plant(path, { pid: deadPid(), host: hostname(), time: Date.now() });
  const attempt = tryLock(path, HOUR);
  assert.equal(attempt.state, "held");
  assert.equal(JSON.parse(readFileSync(path, "utf8")).pid, process.pid);
  assert.deepEqual(readdirSync(dir), ["key.lock"]);
});

test("a live owner's lock, or another host's recent one, is busy and left alone", (t) => {
  const { path } = fresh(t);
  const live = { pid: process.ppid, host: hostname(), time: Date.now() };
  plant(path, live);
  assert.equal(tryLock(path, HOUR).state, "busy");
  assert.deepEqual(JSON.parse(readFileSync(path, "utf8")), live);
  const remote = { pid: deadPid(), host: `not-${hostname()}`, time: Date.now() };
  plant(path, remote);
  assert.equal(tryLock(path, HOUR).state, "busy", "another host's pid cannot be checked here");
  assert.deepEqual(JSON.parse(readFileSync(path, "utf8")), remote);
  const init = { pid: 1, host: hostname(), time: Date.now() };
  plant(path, init);
  assert.equal(tryLock(path, HOUR).state, "busy", "a pid we may not signal (EPERM) is alive");
});

test("a lock older than staleMs is broken whoever holds it; one just younger is not", (t) => {
  const { path } = fresh(t);
  plant(path, { pid: process.ppid, host: "elsewhere", time: Date.now() - 2 * HOUR });
  assert.equal(tryLock(path, HOUR).state, "held");
  const { path: path2 } = fresh(t);
  plant(path2, { pid: process.ppid, host: "elsewhere", time: Date.now() - HOUR + 60_000 });
  assert.equal(tryLock(path2, HOUR).state, "busy");
});

test("an unreadable owner is judged by the file's age", (t) => {
  const { path } = fresh(t);
  for (const junk of [
    "",
    "{",
    "null",
    '{"pid":0,"host":"h","time":1}',
    '{"pid":1.5,"host":"h","time":1}',
    '{"pid":"1","host":"h","time":1}',
    '{"pid":1,"host":2,"time":1}',
    '{"pid":1,"host":"h"}',
  ]) {
    plant(path, junk);
    assert.equal(tryLock(path, HOUR).state, "busy", `young junk ${junk} is a lock being written`);
    const old = (Date.now() - 2 * HOUR) / 1000;
    utimesSync(path, old, old);
    const attempt = tryLock(path, HOUR);
    assert.equal(attempt.state, "held", `old junk ${junk} is stale`);
    if (attempt.state === "held") attempt.lock.release();
  }
});

test("a lock path that cannot be created is unavailable, not busy", (t) => {
  const { dir } = fresh(t);
  assert.equal(tryLock(join(dir, "missing", "key.lock"), HOUR).state, "unavailable");
});

test("a lock that cannot be written (a full disk) is unavailable and leaves no empty lock behind", (t) => {
  const { dir, path } = fresh(t);
  t.mock.method(fs, "writeSync", () => {
    throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  });
  assert.equal(tryLock(path, HOUR).state, "unavailable");
  t.mock.restoreAll();
  assert.deepEqual(readdirSync(dir), [], "an empty lock would look held to the next save");
  const next = tryLock(path, HOUR);
  assert.equal(next.state, "held");
  if (next.state === "held") next.lock.release();
});

// The races below are played in this process, deterministically: the lock module calls node:fs and
// store.js through their module objects, so a test can make one call fail, or make another process's
// move happen, at the exact step where a real race would. Each stub stands for another process (outside).
const storeModule = createRequire(import.meta.url)("../../dist/token-cache/store.js") as Record<string, unknown>;

function patch<T extends object, K extends keyof T>(
  t: { after(fn: () => void): void },
  target: T,
  name: K,
  make: (original: T[K]) => T[K],
): void {
  const original = target[name];
  target[name] = make(original);
  t.after(() => {
    target[name] = original;
  });
}

/** How many times `tryLock` tried to create the lock at `path` (opens with "wx", not reads). */
function countTries(t: { after(fn: () => void): void }, path: string): () => number {
  let tries = 0;
  patch(
    t,
    fs,
    "openSync",
    (original) =>
      ((file: string, ...rest: unknown[]) => {
        if (file === path && rest[0] === "wx") tries++;
        return (original as (...a: unknown[]) => number)(file, ...rest);
      }) as typeof fs.openSync,
  );
  return () => tries;
}

const enoent = () => Object.assign(new Error("gone"), { code: "ENOENT" });

test("taking and releasing a lock leaves no descriptor open", (t) => {
  const { path } = fresh(t);
  const before = readdirSync("/proc/self/fd").length;
  for (let i = 0; i < 20; i++) {
    const attempt = tryLock(path, HOUR);
    assert.equal(attempt.state, "held");
    if (attempt.state === "held") attempt.lock.release();
  }
  assert.equal(readdirSync("/proc/self/fd").length, before);
});

test("a lock released between our try and our look is taken on the second try", (t) => {
  const { path } = fresh(t);
  plant(path, { pid: process.ppid, host: hostname(), time: Date.now() });
  let looks = 0;
  patch(t, storeModule, "readSmallFile", (original) => (file: string) => {
    if (file === path && looks++ === 0) {
      rmSync(path); // its owner releases it now
      throw enoent();
    }
    return (original as (f: string) => string)(file);
  });
  assert.equal(tryLock(path, HOUR).state, "held");
  assert.equal(JSON.parse(readFileSync(path, "utf8")).pid, process.pid);
});

test("a lock that keeps coming back is busy after exactly two tries, never a loop", (t) => {
  const { path } = fresh(t);
  plant(path, { pid: process.ppid, host: hostname(), time: Date.now() });
  const tries = countTries(t, path);
  patch(t, storeModule, "readSmallFile", () => () => {
    throw enoent(); // released every time we look, taken again every time we try
  });
  assert.deepEqual(tryLock(path, HOUR), { state: "busy" });
  assert.equal(tries(), 2);
});

test("a stale lock retaken by another process while we break it is put back, and we are busy", (t) => {
  const { dir, path } = fresh(t);
  plant(path, { pid: deadPid(), host: hostname(), time: Date.now() });
  const theirs = JSON.stringify({ pid: process.ppid, host: hostname(), time: Date.now(), nonce: "theirs" });
  patch(
    t,
    fs,
    "renameSync",
    (original) =>
      ((from: string, to: string) => {
        if (from === path) {
          // Another process broke the stale lock and took it just before our rename.
          rmSync(path);
          writeFileSync(path, theirs, { mode: 0o600 });
        }
        return (original as (a: string, b: string) => void)(from, to);
      }) as typeof fs.renameSync,
  );
  assert.equal(tryLock(path, HOUR).state, "busy");
  assert.equal(readFileSync(path, "utf8"), theirs, "their lock is back in place");
  assert.deepEqual(readdirSync(dir), ["key.lock"], "nothing left aside");
});

test("a lock moved aside that cannot be read back is not counted as broken", (t) => {
  const { dir, path } = fresh(t);
  plant(path, { pid: deadPid(), host: hostname(), time: Date.now() });
  const tries = countTries(t, path);
  patch(t, storeModule, "readSmallFile", (original) => (file: string) => {
    if (file.endsWith(".broken")) throw Object.assign(new Error("io"), { code: "EIO" });
    return (original as (f: string) => string)(file);
  });
  assert.equal(tryLock(path, HOUR).state, "busy");
  assert.equal(tries(), 1, "no second try after a failed break");
  assert.deepEqual(readdirSync(dir), [], "the aside file is removed");
});

test("staleness is strictly older than staleMs, to the millisecond", (t) => {
  const { path } = fresh(t);
  const time = 1_700_000_000_000;
  plant(path, { pid: process.ppid, host: "elsewhere", time });
  patch(t, Date, "now", () => () => time + HOUR);
  assert.equal(tryLock(path, HOUR).state, "busy", "exactly staleMs old is not stale");
  patch(t, Date, "now", () => () => time + HOUR + 1);
  assert.equal(tryLock(path, HOUR).state, "held", "one millisecond more is");
});

test("an unreadable owner's age is strictly older than staleMs, to the millisecond", (t) => {
  const { path } = fresh(t);
  plant(path, "{");
  const seconds = 1_700_000_000;
  utimesSync(path, seconds, seconds);
  patch(t, Date, "now", () => () => seconds * 1000 + HOUR);
  assert.equal(tryLock(path, HOUR).state, "busy");
  patch(t, Date, "now", () => () => seconds * 1000 + HOUR + 1);
  assert.equal(tryLock(path, HOUR).state, "held");
});
