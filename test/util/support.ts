// Shared by the atomic-write tests: the module under test, a scratch directory, temp-file names.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

export { UnsafeLinkError, writeFileAtomic } from "../../dist/util/atomic-write.js";
// The bounded readers moved to the file-trust rule (src/trust/files.ts); their tests stay here too.
export { FileTooLargeError, NotAFileError, readFileLimited, readFileLimitedSync } from "../../dist/trust/files.js";

/** The module object the built code calls through: replacing a function here stands for the OS. */
export const fsp = createRequire(import.meta.url)("node:fs/promises") as typeof import("node:fs/promises");

/** A fresh directory, removed after the test. */
export function scratch(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "cred-auth-atomic-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The temp name writeFileAtomic uses for `name` by writer `pid` with random part `tail`. */
export const tempName = (name: string, pid: number, tail: string) =>
  `.${name}.${(pid % 0x1000000).toString(16).padStart(6, "0")}${tail}.tmp`;

/** The pid of a process that has ended. */
export function deadPid(): number {
  return Number(
    spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout,
  );
}
