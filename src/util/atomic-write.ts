import { closeSync, constants, fstatSync, openSync, readSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";

// Loaded on first use: print-token's cached path only reads with readFileLimitedSync, and loading
// these two costs milliseconds of its start-up (bench/README.md, target 2).
const fsp = () => require("node:fs/promises") as typeof import("node:fs/promises");
const randomBytes = (size: number): Buffer =>
  (require("node:crypto") as typeof import("node:crypto")).randomBytes(size);

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** Mode of the written file. Default `0o600`: these files hold credentials. */
  mode?: number;
}

/**
 * Writes `data` to `path` so that readers only ever see the old file or the whole new one:
 * a temporary file in the same directory is written, flushed to disk and renamed over `path`.
 * Missing parent directories are created with mode 0700 (existing ones are left alone).
 * When `path` is a symbolic link, the file it points to is replaced and the link kept.
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
  const temp = join(dir, `.${basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
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
}

/** The file a symbolic link points to, or `path` itself (also when nothing exists there yet). */
async function resolveLink(path: string): Promise<string> {
  try {
    return await fsp().realpath(path);
  } catch {
    return path;
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

/** A file bigger than the reader accepts. `code` is `EFBIG`, like the system error. */
export class FileTooLargeError extends Error {
  override name = "FileTooLargeError";
  readonly code = "EFBIG";
  constructor(
    readonly path: string,
    readonly maxBytes: number,
  ) {
    super(`${path} is larger than ${maxBytes} bytes`);
  }
}

/** A path that exists but is not a regular file (a directory, a FIFO, a device). */
export class NotAFileError extends Error {
  override name = "NotAFileError";
  readonly code: "EISDIR" | "ENOTFILE";
  constructor(
    readonly path: string,
    isDirectory: boolean,
  ) {
    super(`${path} is not a regular file`);
    this.code = isDirectory ? "EISDIR" : "ENOTFILE";
  }
}

/**
 * Reads a whole regular file of at most `maxBytes` bytes. Throws {@link NotAFileError} for
 * directories and special files (without opening them: a FIFO would block),
 * {@link FileTooLargeError} beyond the limit, and the system error otherwise.
 */
export async function readFileLimited(path: string, maxBytes: number): Promise<Buffer> {
  checkRegular(path, await fsp().stat(path));
  const file = await fsp().open(path, "r");
  try {
    const { size } = await file.stat();
    if (size > maxBytes) throw new FileTooLargeError(path, maxBytes);
    // The size can change between stat and read: read one byte past the limit to notice.
    const buffer = Buffer.alloc(Math.min(size, maxBytes) + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await file.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) throw new FileTooLargeError(path, maxBytes);
    return buffer.subarray(0, length);
  } finally {
    await file.close();
  }
}

/** {@link readFileLimited}, synchronously (for the CLI's fast path). */
export function readFileLimitedSync(path: string, maxBytes: number): Buffer {
  checkRegular(path, statSync(path));
  const fd = openSync(path, "r");
  try {
    const { size } = fstatSync(fd);
    if (size > maxBytes) throw new FileTooLargeError(path, maxBytes);
    const buffer = Buffer.alloc(Math.min(size, maxBytes) + 1);
    let length = 0;
    while (length < buffer.length) {
      const bytesRead = readSync(fd, buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) throw new FileTooLargeError(path, maxBytes);
    return buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

function checkRegular(path: string, stats: { isFile(): boolean; isDirectory(): boolean }): void {
  if (!stats.isFile()) throw new NotAFileError(path, stats.isDirectory());
}
