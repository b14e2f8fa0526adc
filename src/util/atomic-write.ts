import { type Stats, constants } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { isProcessAlive } from "./alive.js";

// Loaded on first use: print-token's cached path only reads (trust/files.ts), and loading these
// two costs milliseconds of its start-up (bench/README.md, target 2).
const fsp = (): typeof import("node:fs/promises") => require("node:fs/promises");
const crypto = (): typeof import("node:crypto") => require("node:crypto");
const randomBytes = (size: number): Buffer => crypto().randomBytes(size);

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** Mode of the written file. Default `0o600`: these files hold credentials. */
  mode?: number;
}

/**
 * Writes `data` so readers see the old file or the whole new one (temp, fsync, rename; new directories
 * 0700). A link of ours or root's is followed, anyone else's refused (UnsafeLinkError): it could point anywhere.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const mode = options.mode ?? 0o600;
  const target = await resolveLink(path);
  const dir = dirname(target);
  await fsp().mkdir(dir, { recursive: true, mode: 0o700 });
  const temp = join(dir, `.${basename(target)}.${tempId()}.tmp`);
  try {
    const file = await fsp().open(temp, "wx", mode);
    try {
      // open()'s mode is filtered by the umask; the file must end up exactly `mode`.
      await file.chmod(mode);
      await file.writeFile(data);
      await file.sync();
    } finally {
      await file.close();
    }
    await renameReplacing(temp, target);
  } catch (error) {
    await fsp()
      .unlink(temp)
      .catch(() => {});
    throw error;
  }
  await syncDirectory(dir);
  // Once the new file is in place: the save itself never waits for the sweep.
  await removeStaleTemps(dir, basename(target));
}

/** A symbolic link owned by another user on the way to a file being saved. `code` is `EUNSAFELINK`. */
export class UnsafeLinkError extends Error {
  override name = "UnsafeLinkError";
  readonly code = "EUNSAFELINK";
  constructor(
    readonly path: string,
    readonly owner: number,
  ) {
    super(`${path} is a symbolic link owned by another user (uid ${owner})`);
  }
}

const MAX_LINKS = 40;

/** The file a link points to, or `path`: every link followed must be ours or root's; a loop is ELOOP. */
async function resolveLink(path: string): Promise<string> {
  let current = path;
  for (let hops = 0; ; hops++) {
    let stats: Stats;
    try {
      stats = await fsp().lstat(current);
    } catch {
      break; // nothing there (yet): written as is
    }
    if (!stats.isSymbolicLink()) break;
    if (hops === MAX_LINKS)
      throw Object.assign(new Error(`${path}: too many levels of symbolic links`), { code: "ELOOP" });
    if (!trustedOwner(stats.uid)) throw new UnsafeLinkError(current, stats.uid);
    current = resolve(dirname(current), await fsp().readlink(current));
  }
  try {
    return await fsp().realpath(current);
  } catch {
    return current;
  }
}

function trustedOwner(uid: number): boolean {
  if (process.platform === "win32" || typeof process.getuid !== "function") return true;
  return uid === process.getuid() || uid === 0;
}

/** The 12 hex digits of a temp file's name: the writer's pid (6), then 6 random ones. */
function tempId(): string {
  return `${(process.pid % 0x1000000).toString(16).padStart(6, "0")}${randomBytes(3).toString("hex")}`;
}

/** The writer of a temp file (its pid as the name keeps it, modulo 2^24) runs. */
function writerAlive(pid: number): boolean {
  // Stryker disable next-line ConditionalExpression,ArithmeticOperator: equivalent: this process is alive, so isProcessAlive says the same; the comparison only saves a system call
  return pid === process.pid % 0x1000000 || isProcessAlive(pid);
}

// Stryker disable next-line StringLiteral: equivalent: any other value fails the temp-name test just as well
const NOT_A_TEMP = "";

/** A temp file this old is stale whoever wrote it (a writer on another host, an older version). */
const STALE_TEMP_MS = 60 * 60 * 1000;

/** Removes killed saves' temp files of `name` (ours, regular, of a dead process or over an hour old): they hold credentials. */
async function removeStaleTemps(dir: string, name: string): Promise<void> {
  let names: string[];
  try {
    names = await fsp().readdir(dir);
  } catch {
    return;
  }
  const prefix = `.${name}.`;
  for (const entry of names) {
    const id = entry.startsWith(prefix) && entry.endsWith(".tmp") ? entry.slice(prefix.length, -4) : NOT_A_TEMP;
    if (!/^[0-9a-f]{12}$/.test(id)) continue;
    const path = join(dir, entry);
    try {
      const stats = await fsp().lstat(path);
      const ours = stats.isFile() && (typeof process.getuid !== "function" || stats.uid === process.getuid());
      const stale = Date.now() - stats.mtimeMs > STALE_TEMP_MS || !writerAlive(Number.parseInt(id.slice(0, 6), 16));
      if (ours && stale) await fsp().unlink(path);
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
}

const WINDOWS_RENAME_RETRIES = 5;

/** Windows refuses to replace a file another process has open for a moment: retry briefly there. */
async function renameReplacing(from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fsp().rename(from, to);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const transient = process.platform === "win32" && (code === "EPERM" || code === "EACCES" || code === "EBUSY");
      if (!transient || attempt >= WINDOWS_RENAME_RETRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * (attempt + 1)));
    }
  }
}

/** Makes the rename itself durable. Not every platform can open a directory: best effort. */
// Stryker disable all: a directory fsync only shows after a power loss; test/reliability/crash.test.ts
// and docs/security.md ("Durability") say how it is checked instead.
async function syncDirectory(dir: string): Promise<void> {
  if (process.platform === "win32") return;
  try {
    const handle = await fsp().open(dir, constants.O_RDONLY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // the data itself is already flushed; only the directory entry's durability is at stake
  }
}
// Stryker restore all
