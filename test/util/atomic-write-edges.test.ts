// writeFileAtomic and the bounded readers at their edges: a link loop or a chain longer than the
// system follows, whose owner checks hold on every platform branch; the stale-temp sweep's exact
// age, names and owners; descriptors never leaked; a file that holds more than its size says
// (/proc); each error's name. Other users' entries are made with chown (root, as in CI).
import assert from "node:assert/strict";
import { chownSync, lchownSync, readFileSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import * as aw from "./support.ts";
const isRoot = process.getuid?.() === 0;
const STALE_MS = 3_600_000;

const ORIGINAL = {
  platform: Object.getOwnPropertyDescriptor(process, "platform") as PropertyDescriptor,
  getuid: Object.getOwnPropertyDescriptor(process, "getuid") as PropertyDescriptor,
};

/** Replaces `process[key]` for the rest of the test (stands for another platform or a runtime without it). */
function fakeProcess(t: TestContext, key: keyof typeof ORIGINAL, value: unknown): void {
  Object.defineProperty(process, key, { ...ORIGINAL[key], value });
  t.after(() => Object.defineProperty(process, key, ORIGINAL[key]));
}

const openDescriptors = () => readdirSync("/proc/self/fd").length;

test("a link loop, or a chain past 40 links, is refused with ELOOP before any write; 40 links are followed", async (t) => {
  const dir = aw.scratch(t);
  symlinkSync(join(dir, "b"), join(dir, "a"));
  symlinkSync(join(dir, "a"), join(dir, "b"));
  await assert.rejects(aw.writeFileAtomic(join(dir, "a"), "x"), { code: "ELOOP" });
  writeFileSync(join(dir, "end"), "old");
  let previous = "end";
  for (let i = 1; i <= 41; i++) {
    symlinkSync(join(dir, previous), join(dir, `l${i}`));
    previous = `l${i}`;
  }
  await aw.writeFileAtomic(join(dir, "l40"), "through 40 links");
  assert.equal(readFileSync(join(dir, "end"), "utf8"), "through 40 links");
  await assert.rejects(aw.writeFileAtomic(join(dir, "l41"), "41 links"), (e: Error & { code?: string }) => {
    assert.equal(e.code, "ELOOP");
    assert.equal(e.message, `${join(dir, "l41")}: too many levels of symbolic links`);
    return true;
  });
  assert.equal(readFileSync(join(dir, "end"), "utf8"), "through 40 links");
});

test("link owners: root's links are trusted by any user, another user's refused; no owner check on Windows or without getuid", async (t) => {
  if (!isRoot) return t.skip("giving links to other users needs root (CI runs as root)");
  const dir = aw.scratch(t);
  writeFileSync(join(dir, "target"), "old");
  symlinkSync(join(dir, "target"), join(dir, "roots"));
  symlinkSync(join(dir, "target"), join(dir, "foreign"));
  lchownSync(join(dir, "foreign"), 4242, 4242);
  fakeProcess(t, "getuid", () => 1000); // this process as an ordinary user
  await aw.writeFileAtomic(join(dir, "roots"), "via root's link");
  assert.equal(readFileSync(join(dir, "target"), "utf8"), "via root's link");
  await assert.rejects(aw.writeFileAtomic(join(dir, "foreign"), "x"), (e: Error) => {
    assert.ok(e instanceof aw.UnsafeLinkError);
    assert.equal(e.name, "UnsafeLinkError");
    return true;
  });
  lchownSync(join(dir, "foreign"), 1000, 1000);
  await aw.writeFileAtomic(join(dir, "foreign"), "the user's own link");
  assert.equal(readFileSync(join(dir, "target"), "utf8"), "the user's own link");
  lchownSync(join(dir, "foreign"), 4242, 4242);
  fakeProcess(t, "platform", "win32");
  await aw.writeFileAtomic(join(dir, "foreign"), "on Windows");
  assert.equal(readFileSync(join(dir, "target"), "utf8"), "on Windows");
  fakeProcess(t, "platform", "linux");
  fakeProcess(t, "getuid", undefined);
  await aw.writeFileAtomic(join(dir, "foreign"), "without getuid");
  assert.equal(readFileSync(join(dir, "target"), "utf8"), "without getuid");
});

test("the sweep: stale after exactly one hour (not at it), only names of 12 hex digits ending .tmp", async (t) => {
  const dir = aw.scratch(t);
  const live = process.ppid; // a writer that is still running
  const names = {
    halfHour: aw.tempName("f", live, "aaaaaa"),
    atTheHour: aw.tempName("f", live, "bbbbbb"),
    pastTheHour: aw.tempName("f", live, "cccccc"),
    notTmp: `.f.${(live % 0x1000000).toString(16).padStart(6, "0")}dddddd.bak`,
    leadingJunk: `.f.zz${(live % 0x1000000).toString(16).padStart(6, "0")}eeeeee.tmp`,
    trailingJunk: `.f.${(live % 0x1000000).toString(16).padStart(6, "0")}ffffffzz.tmp`,
  };
  const now = Math.floor(Date.now() / 1000) * 1000;
  for (const name of Object.values(names)) writeFileSync(join(dir, name), "1//0gSecret");
  const ageOf: Record<string, number> = {
    halfHour: STALE_MS / 2,
    atTheHour: STALE_MS,
    pastTheHour: STALE_MS + 1000,
    notTmp: 2 * STALE_MS,
    leadingJunk: 2 * STALE_MS,
    trailingJunk: 2 * STALE_MS,
  };
  for (const [key, name] of Object.entries(names)) {
    const seconds = (now - (ageOf[key] as number)) / 1000;
    utimesSync(join(dir, name), seconds, seconds);
  }
  const realNow = Date.now;
  Date.now = () => now; // the sweep's clock, pinned to the millisecond
  try {
    await aw.writeFileAtomic(join(dir, "f"), "new");
  } finally {
    Date.now = realNow;
  }
  const left = readdirSync(dir);
  assert.ok(!left.includes(names.pastTheHour), "older than an hour: removed");
  for (const key of ["halfHour", "atTheHour", "notTmp", "leadingJunk", "trailingJunk"] as const)
    assert.ok(left.includes(names[key]), `${key} is kept`);
});

test("the sweep removes only this user's temps (without getuid, any); a sweep that cannot list the directory costs nothing", async (t) => {
  if (!isRoot) return t.skip("another user's temp file needs root (CI runs as root)");
  const dir = aw.scratch(t);
  const dead = aw.deadPid();
  const theirs = aw.tempName("f", dead, "111111");
  writeFileSync(join(dir, theirs), "their secret");
  chownSync(join(dir, theirs), 4242, 4242);
  await aw.writeFileAtomic(join(dir, "f"), "one");
  assert.ok(readdirSync(dir).includes(theirs), "another user's temp file stays");

  const readdir = aw.fsp.readdir;
  aw.fsp.readdir = (async () => {
    throw Object.assign(new Error("EACCES"), { code: "EACCES" });
  }) as unknown as typeof aw.fsp.readdir;
  try {
    await aw.writeFileAtomic(join(dir, "f"), "two");
  } finally {
    aw.fsp.readdir = readdir;
  }
  assert.equal(readFileSync(join(dir, "f"), "utf8"), "two");

  fakeProcess(t, "getuid", undefined);
  await aw.writeFileAtomic(join(dir, "f"), "three");
  assert.ok(!readdirSync(dir).includes(theirs), "without uids, a dead writer's temp is removed");
});

test("no descriptor is left open by writes or reads, whatever their outcome", async (t) => {
  const dir = aw.scratch(t);
  const path = join(dir, "f");
  writeFileSync(path, "0123456789");
  const before = openDescriptors();
  for (let i = 0; i < 10; i++) {
    await aw.writeFileAtomic(path, `write ${i}`);
    await aw.readFileLimited(path, 100);
    aw.readFileLimitedSync(path, 100);
    await assert.rejects(aw.readFileLimited(path, 1), aw.FileTooLargeError);
    assert.throws(() => aw.readFileLimitedSync(path, 1), aw.FileTooLargeError);
    await assert.rejects(aw.readFileLimited(dir, 1), aw.NotAFileError);
  }
  assert.equal(openDescriptors(), before);
});

test("a file holding more than its size says (/proc) is still cut at maxBytes, by both readers", async () => {
  const status = "/proc/self/status"; // stat size 0, content of a few hundred bytes
  for (const read of [
    (max: number) => aw.readFileLimited(status, max),
    async (max: number) => aw.readFileLimitedSync(status, max),
  ]) {
    await assert.rejects(read(0), (e: Error) => {
      assert.ok(e instanceof aw.FileTooLargeError);
      assert.equal(e.name, "FileTooLargeError");
      return true;
    });
  }
});

test("each error says its name", async (t) => {
  const dir = aw.scratch(t);
  await assert.rejects(
    aw.readFileLimited(dir, 1),
    (e: Error) => e instanceof aw.NotAFileError && e.name === "NotAFileError",
  );
  assert.equal(new aw.FileTooLargeError("p", 1).name, "FileTooLargeError");
  assert.equal(new aw.UnsafeLinkError("p", 7).name, "UnsafeLinkError");
});
