// The file-trust rule (src/trust/files.ts): every file read on someone else's say-so is opened
// non-blocking, bounded, a regular file; files cred-auth keeps itself must be yours and private;
// secrets are written only where no other user can replace them. The bounded readers themselves
// are tested with the atomic writer in test/util/ (they were one module before).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  FileTooLargeError,
  NotAFileError,
  UntrustedFileError,
  ownedPrivately,
  ownershipProblem,
  readTrustedFile,
  readTrustedFileSync,
  secretDirectoryProblem,
} from "../../dist/trust/files.js";
import { tempDir } from "../support/files.ts";

const asRoot = process.getuid?.() === 0;
const uid = process.getuid?.() ?? 0;
const readers = [
  ["readTrustedFile", readTrustedFile],
  ["readTrustedFileSync", async (...args: Parameters<typeof readTrustedFileSync>) => readTrustedFileSync(...args)],
] as const;

for (const [name, read] of readers) {
  test(`${name}: anyone's file is read when it is a small regular file; a FIFO fails at once, never blocks`, async (t) => {
    const dir = tempDir(t);
    const path = join(dir, "f");
    writeFileSync(path, "hello");
    chmodSync(path, 0o666);
    assert.equal((await read(path, { maxBytes: 5, keeper: "anyone" })).toString(), "hello");
    await assert.rejects(read(path, { maxBytes: 4, keeper: "anyone" }), FileTooLargeError);
    const fifo = join(dir, "fifo");
    execFileSync("mkfifo", [fifo]);
    await assert.rejects(read(fifo, { maxBytes: 5, keeper: "anyone" }), (e: Error) => {
      assert.ok(e instanceof NotAFileError);
      assert.equal((e as NotAFileError).code, "ENOTFILE");
      return true;
    });
    const link = join(dir, "link");
    symlinkSync(path, link);
    assert.equal((await read(link, { maxBytes: 5, keeper: "anyone" })).toString(), "hello");
    await assert.rejects(read(link, { maxBytes: 5, keeper: "anyone", noFollow: true }), { code: "ELOOP" });
  });

  test(`${name}: cred-auth's own files must be yours and not writable by group or others`, async (t) => {
    const dir = tempDir(t);
    const path = join(dir, "own.json");
    writeFileSync(path, "{}", { mode: 0o600 });
    chmodSync(path, 0o644);
    assert.equal((await read(path, { maxBytes: 10, keeper: "cred-auth" })).toString(), "{}", "0644 is fine");
    for (const mode of [0o664, 0o646, 0o666]) {
      chmodSync(path, mode);
      await assert.rejects(read(path, { maxBytes: 10, keeper: "cred-auth" }), (e: Error) => {
        assert.ok(e instanceof UntrustedFileError);
        assert.equal(e.name, "UntrustedFileError");
        assert.equal((e as UntrustedFileError).code, "EUNTRUSTED");
        assert.equal((e as UntrustedFileError).foreign, false);
        assert.equal((e as UntrustedFileError).path, path);
        assert.equal((e as UntrustedFileError).problem, `may be written by others (mode ${mode.toString(8)})`);
        assert.equal(e.message, `${path} may be written by others (mode ${mode.toString(8)})`);
        return true;
      });
    }
    if (!asRoot) return t.skip("chown needs root");
    chmodSync(path, 0o600);
    chownSync(path, 4242, 4242);
    await assert.rejects(read(path, { maxBytes: 10, keeper: "cred-auth" }), (e: Error) => {
      assert.ok(e instanceof UntrustedFileError);
      assert.equal((e as UntrustedFileError).foreign, true);
      assert.equal((e as UntrustedFileError).problem, "belongs to another user (uid 4242)");
      return true;
    });
    assert.equal(
      (await read(path, { maxBytes: 10, keeper: "anyone" })).toString(),
      "{}",
      "anyone's rule asks no owner",
    );
  });
}

test("ownershipProblem and ownedPrivately: the owner first, then group/other write bits; nothing on Windows", (t) => {
  assert.equal(ownershipProblem({ uid, mode: 0o100600 }), undefined);
  assert.equal(ownershipProblem({ uid, mode: 0o100755 }), undefined);
  assert.equal(ownershipProblem({ uid, mode: 0o100620 }), "may be written by others (mode 620)");
  assert.equal(ownershipProblem({ uid, mode: 0o100602 }), "may be written by others (mode 602)");
  assert.equal(ownershipProblem({ uid, mode: 0o40070 }), "may be written by others (mode 070)");
  assert.equal(ownershipProblem({ uid: uid + 1, mode: 0o100622 }), `belongs to another user (uid ${uid + 1})`);
  assert.equal(ownedPrivately({ uid, mode: 0o600 }), true);
  assert.equal(ownedPrivately({ uid, mode: 0o620 }), false);
  assert.equal(ownedPrivately({ uid: uid + 1, mode: 0o600 }), false);
  const platform = Object.getOwnPropertyDescriptor(process, "platform")!;
  t.after(() => Object.defineProperty(process, "platform", platform));
  Object.defineProperty(process, "platform", { ...platform, value: "win32" });
  assert.equal(ownershipProblem({ uid: uid + 1, mode: 0o777 }), undefined, "Windows has neither owner nor mode bits");
  assert.equal(secretDirectoryProblem("/does/not/matter"), undefined);
  Object.defineProperty(process, "platform", platform);
  const getuid = process.getuid;
  t.after(() => {
    process.getuid = getuid;
  });
  process.getuid = undefined; // a platform without getuid (Windows' Node)
  assert.equal(ownershipProblem({ uid: uid + 1, mode: 0o777 }), undefined);
  assert.equal(secretDirectoryProblem("/does/not/matter"), undefined);
});

test("secretDirectoryProblem: yours or root's, and not writable by anyone unless sticky (as /tmp)", (t) => {
  const dir = tempDir(t);
  assert.equal(secretDirectoryProblem(dir), undefined);
  chmodSync(dir, 0o775);
  assert.equal(secretDirectoryProblem(dir), undefined, "group-writable (a private group's umask 002) is fine");
  chmodSync(dir, 0o777);
  assert.equal(secretDirectoryProblem(dir), "may be written by anyone (mode 777)");
  chmodSync(dir, 0o1777);
  assert.equal(secretDirectoryProblem(dir), undefined, "sticky: nobody may replace what we write");
  assert.equal(secretDirectoryProblem("/tmp"), undefined);
  chmodSync(dir, 0o700);
  if (!asRoot) return t.skip("chown needs root");
  const theirs = join(dir, "theirs");
  mkdirSync(theirs, { mode: 0o700 });
  chownSync(theirs, 4242, 4242);
  assert.equal(secretDirectoryProblem(theirs), "belongs to another user (uid 4242)");
  const roots = join(dir, "roots");
  mkdirSync(roots, { mode: 0o755 });
  chownSync(roots, 0, 0);
  assert.equal(statSync(roots).uid, 0);
  assert.equal(secretDirectoryProblem(roots), undefined, "root's directories are trusted");
  assert.throws(() => secretDirectoryProblem(join(dir, "missing")), { code: "ENOENT" });
});

test("secretDirectoryProblem for a user who is not root: their own directory and root's pass, a third user's does not", (t) => {
  if (!asRoot) return t.skip("needs root to chown");
  const dir = tempDir(t);
  chmodSync(dir, 0o755);
  const own = join(dir, "nobodys");
  const theirs = join(dir, "someone-elses");
  mkdirSync(own, { mode: 0o700 });
  mkdirSync(theirs, { mode: 0o755 });
  chownSync(own, 65534, 65534);
  chownSync(theirs, 4242, 4242);
  // This process stands for "nobody" (uid 65534): the check asks process.getuid() whose it is.
  const getuid = process.getuid;
  t.after(() => {
    process.getuid = getuid;
  });
  process.getuid = () => 65534;
  assert.deepEqual(
    [own, dir, theirs].map((d) => secretDirectoryProblem(d) ?? null),
    [null, null, "belongs to another user (uid 4242)"],
    "nobody's own, root's, another's",
  );
});
