// writeFileAtomic and the bounded readers, by behaviour: the temp file is created exclusively
// (a planted link is never written through), the mode is exact, other users' links are refused,
// killed saves' temp files are cleaned up, the Windows rename retry, and the size limits.
// fsync and directory fsync cannot be seen from a test: test/reliability/crash.test.ts checks them.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  existsSync,
  lchownSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import {
  FileTooLargeError,
  NotAFileError,
  deadPid,
  fsp,
  readFileLimited,
  readFileLimitedSync,
  scratch,
  tempName,
  UnsafeLinkError,
  writeFileAtomic,
} from "./support.ts";

const crypto = createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");

test("a file or link planted at the temp path is never written through: the save fails, the victim is intact", async (t) => {
  const dir = scratch(t);
  const victim = join(dir, "victim");
  writeFileSync(victim, "victim's data");
  const original = crypto.randomBytes;
  crypto.randomBytes = ((size: number) => Buffer.alloc(size, 0xab)) as typeof crypto.randomBytes;
  t.after(() => {
    crypto.randomBytes = original;
  });
  symlinkSync(victim, join(dir, tempName("creds.json", process.pid, "ababab")));
  await assert.rejects(writeFileAtomic(join(dir, "creds.json"), "1//0gSecret"), { code: "EEXIST" });
  assert.equal(readFileSync(victim, "utf8"), "victim's data");
  assert.equal(existsSync(join(dir, "creds.json")), false);
});

test("the file ends up exactly the mode asked for, whatever the umask; 0600 by default", async (t) => {
  const dir = scratch(t);
  const umask = process.umask(0o077);
  try {
    await writeFileAtomic(join(dir, "a"), "x", { mode: 0o644 });
  } finally {
    process.umask(umask);
  }
  assert.equal(statSync(join(dir, "a")).mode & 0o777, 0o644);
  await writeFileAtomic(join(dir, "b"), new Uint8Array([1, 2, 3]));
  assert.equal(statSync(join(dir, "b")).mode & 0o777, 0o600);
  assert.deepEqual([...readFileSync(join(dir, "b"))], [1, 2, 3]);
  await writeFileAtomic(join(dir, "new", "deep", "c"), "y");
  assert.equal(statSync(join(dir, "new", "deep")).mode & 0o777, 0o700);
  assert.deepEqual(readdirSync(dir).sort(), ["a", "b", "new"]);
});

test("a link of this user is followed (the target replaced, the link kept); another user's is refused", async (t) => {
  const dir = scratch(t);
  mkdirSync(join(dir, "real"));
  writeFileSync(join(dir, "real", "target"), "old");
  symlinkSync("real/target", join(dir, "hop2"));
  symlinkSync(join(dir, "hop2"), join(dir, "link"));
  await writeFileAtomic(join(dir, "link"), "new");
  assert.equal(readFileSync(join(dir, "real", "target"), "utf8"), "new");
  assert.equal(statSync(join(dir, "link")).isFile(), true);
  symlinkSync(join(dir, "missing-target"), join(dir, "dangling"));
  await writeFileAtomic(join(dir, "dangling"), "created");
  assert.equal(readFileSync(join(dir, "missing-target"), "utf8"), "created");
  if (process.getuid?.() !== 0) return t.skip("giving a link to another user needs root");
  symlinkSync(join(dir, "real", "target"), join(dir, "foreign"));
  lchownSync(join(dir, "foreign"), 4242, 4242);
  await assert.rejects(writeFileAtomic(join(dir, "foreign"), "evil"), (e: Error) => {
    assert.ok(e instanceof UnsafeLinkError);
    assert.equal((e as UnsafeLinkError).code, "EUNSAFELINK");
    assert.equal((e as UnsafeLinkError).owner, 4242);
    assert.match(e.message, /symbolic link owned by another user \(uid 4242\)/);
    return true;
  });
  assert.equal(readFileSync(join(dir, "real", "target"), "utf8"), "new");
  lchownSync(join(dir, "foreign"), 0, 0);
  await writeFileAtomic(join(dir, "foreign"), "root's link is trusted");
  assert.equal(readFileSync(join(dir, "real", "target"), "utf8"), "root's link is trusted");
});

test("killed saves' temp files are removed: a dead writer's, or any older than an hour; a live writer's stays", async (t) => {
  const dir = scratch(t);
  const dead = tempName("f", deadPid(), "0a0b0c");
  const live = tempName("f", process.ppid, "0a0b0c");
  const mine = tempName("f", process.pid, "0a0b0c");
  const oldLive = tempName("f", process.ppid, "111111");
  const otherFile = tempName("g", deadPid(), "0a0b0c");
  const odd = ".f.zzzzzzzzzzzz.tmp";
  for (const name of [dead, live, mine, oldLive, otherFile, odd]) writeFileSync(join(dir, name), "1//0gSecret");
  const twoHoursAgo = (Date.now() - 2 * 3_600_000) / 1000;
  utimesSync(join(dir, oldLive), twoHoursAgo, twoHoursAgo);
  const dirTemp = tempName("f", deadPid(), "222222");
  mkdirSync(join(dir, dirTemp));
  await writeFileAtomic(join(dir, "f"), "new");
  const left = readdirSync(dir);
  assert.ok(!left.includes(dead), "a dead writer's temp file");
  assert.ok(!left.includes(oldLive), "a temp file older than an hour");
  for (const kept of [live, mine, otherFile, odd, dirTemp, "f"]) assert.ok(left.includes(kept), kept);
  assert.equal(left.length, 6);
});

test("on Windows a busy target is retried a few times; elsewhere, and for other errors, the first failure counts", async (t) => {
  const dir = scratch(t);
  const path = join(dir, "f");
  const original = fsp.rename;
  const platform = Object.getOwnPropertyDescriptor(process, "platform") as PropertyDescriptor;
  t.after(() => {
    fsp.rename = original;
    Object.defineProperty(process, "platform", platform);
  });
  let calls = 0;
  const failing = (times: number, code: string) => {
    calls = 0;
    fsp.rename = (async (from: string, to: string) => {
      calls++;
      if (calls <= times) throw Object.assign(new Error(code), { code });
      return original(from, to);
    }) as typeof fsp.rename;
  };
  failing(1, "EBUSY");
  await assert.rejects(writeFileAtomic(path, "linux"), { code: "EBUSY" });
  assert.equal(calls, 1);
  Object.defineProperty(process, "platform", { ...platform, value: "win32" });
  for (const code of ["EBUSY", "EPERM", "EACCES"]) {
    failing(5, code);
    await writeFileAtomic(path, `after ${code}`);
    assert.equal(calls, 6);
    assert.equal(readFileSync(path, "utf8"), `after ${code}`);
  }
  failing(6, "EBUSY");
  await assert.rejects(writeFileAtomic(path, "never"), { code: "EBUSY" });
  assert.equal(calls, 6);
  failing(1, "ENOSPC");
  await assert.rejects(writeFileAtomic(path, "never"), { code: "ENOSPC" });
  assert.equal(calls, 1);
  assert.deepEqual(readdirSync(dir), ["f"], "failed saves leave no temp file");
  assert.equal(readFileSync(path, "utf8"), "after EACCES");
});

for (const [name, read] of [
  ["readFileLimited", readFileLimited],
  ["readFileLimitedSync", async (p: string, max: number, o?: object) => readFileLimitedSync(p, max, o)],
] as const) {
  test(`${name}: up to maxBytes exactly, one more is FileTooLargeError; no buffer beyond the file`, async (t) => {
    const dir = scratch(t);
    const path = join(dir, "f");
    writeFileSync(path, "0123456789");
    assert.equal((await read(path, 10)).toString(), "0123456789");
    assert.equal((await read(path, Number.MAX_SAFE_INTEGER)).toString(), "0123456789");
    await assert.rejects(read(path, 9), (e: Error) => {
      assert.ok(e instanceof FileTooLargeError);
      assert.equal((e as FileTooLargeError).code, "EFBIG");
      assert.equal((e as FileTooLargeError).maxBytes, 9);
      assert.equal(e.message, `${path} is larger than 9 bytes`);
      return true;
    });
    writeFileSync(path, "");
    assert.equal((await read(path, 0)).length, 0);
    writeFileSync(path, Buffer.alloc(200_000, 7));
    assert.equal((await read(path, 200_000)).length, 200_000);
  });

  test(`${name}: directories, FIFOs and (with noFollow) links are refused; check() sees the opened file`, async (t) => {
    const dir = scratch(t);
    await assert.rejects(
      read(dir, 10),
      (e: Error) =>
        e instanceof NotAFileError &&
        (e as NotAFileError).code === "EISDIR" &&
        e.message === `${dir} is not a regular file`,
    );
    const fifo = join(dir, "fifo");
    if (spawnSync("mkfifo", [fifo]).status === 0) {
      await assert.rejects(
        read(fifo, 10),
        (e: Error) => e instanceof NotAFileError && (e as NotAFileError).code === "ENOTFILE",
      );
    }
    writeFileSync(join(dir, "f"), "data");
    symlinkSync(join(dir, "f"), join(dir, "link"));
    assert.equal((await read(join(dir, "link"), 10)).toString(), "data");
    await assert.rejects(read(join(dir, "link"), 10, { noFollow: true }), { code: "ELOOP" });
    let seen = -1;
    const check = (stats: { size: number }) => {
      seen = stats.size;
    };
    assert.equal((await read(join(dir, "f"), 10, { check })).toString(), "data");
    assert.equal(seen, 4);
    await assert.rejects(
      read(join(dir, "f"), 10, {
        check: () => {
          throw new Error("refused");
        },
      }),
      /refused/,
    );
  });
}
