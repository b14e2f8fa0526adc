// The file-trust rule for a file cred-auth did not write in this run: opened non-blocking, judged by
// fstat of that descriptor (regular, bounded), and, for files cred-auth keeps, the user's own and private.
import { type Stats, closeSync, constants, fstatSync, openSync, readSync, statSync } from "node:fs";

// print-token's cached path reads only synchronously: node:fs/promises would cost its start-up (bench target 2).
const fsp = (): typeof import("node:fs/promises") => require("node:fs/promises");

/** Who keeps a file: cred-auth itself (settings, caches: must be yours and private), or anyone. */
export type FileKeeper = "cred-auth" | "anyone";

/** How a file is read under the rule. */
export interface TrustedRead {
  /** Files bigger than this are refused ({@link FileTooLargeError}). */
  maxBytes: number;
  /** `cred-auth`: refuse a file that is not the current user's or that others may write ({@link UntrustedFileError}). */
  keeper: FileKeeper;
  /** Refuse a symbolic link at the path itself (`ELOOP`). */
  noFollow?: boolean;
}

/** A file cred-auth keeps itself that another user owns or may write. `code` is `EUNTRUSTED`. */
export class UntrustedFileError extends Error {
  override name = "UntrustedFileError";
  readonly code = "EUNTRUSTED";
  /** Why, in words: "belongs to another user (uid 65534)", "may be written by others (mode 666)". */
  readonly problem: string;
  /** True when another user owns the file (else others may write it). */
  readonly foreign: boolean;
  constructor(
    readonly path: string,
    { problem, foreign }: Ownership,
  ) {
    super(`${path} ${problem}`);
    this.problem = problem;
    this.foreign = foreign;
  }
}

/** Why a file or directory of cred-auth's own may not be trusted, and whether it is because another user owns it. */
interface Ownership {
  problem: string;
  foreign: boolean;
}

/** {@link readFileLimited} under the rule `read`. */
export function readTrustedFile(path: string, read: TrustedRead): Promise<Buffer> {
  return readFileLimited(path, read.maxBytes, limitedOptions(path, read));
}

/** {@link readTrustedFile}, synchronously (print-token's path, the settings reader). */
export function readTrustedFileSync(path: string, read: TrustedRead): Buffer {
  return readFileLimitedSync(path, read.maxBytes, limitedOptions(path, read));
}

function limitedOptions(path: string, read: TrustedRead): ReadLimitedOptions {
  return {
    ...(read.noFollow ? { noFollow: true } : {}),
    ...(read.keeper === "cred-auth" ? { check: (stats: Stats) => refuseUntrusted(path, stats) } : {}),
  };
}

function refuseUntrusted(path: string, stats: Stats): void {
  const untrusted = ownership(stats);
  if (untrusted !== undefined) throw new UntrustedFileError(path, untrusted);
}

/** Why a file or directory of cred-auth's own is not to be trusted (another user's, or others may write it). */
export function ownershipProblem(stats: { uid: number; mode: number }): string | undefined {
  return ownership(stats)?.problem;
}

function ownership(stats: { uid: number; mode: number }): Ownership | undefined {
  if (process.platform === "win32" || typeof process.getuid !== "function") return undefined;
  if (stats.uid !== process.getuid()) return { problem: `belongs to another user (uid ${stats.uid})`, foreign: true };
  if ((stats.mode & 0o022) !== 0)
    return { problem: `may be written by others (mode ${modeText(stats.mode)})`, foreign: false };
  return undefined;
}

/** Ours and not writable by group or others (see {@link ownershipProblem}). */
export function ownedPrivately(stats: { uid: number; mode: number }): boolean {
  return ownershipProblem(stats) === undefined;
}

/**
 * Why a secret may not be written into `directory`, or undefined when it may: another user's
 * (root excepted) may replace what we write; one anyone may write without the sticky bit, anyone.
 */
export function secretDirectoryProblem(directory: string): string | undefined {
  if (process.platform === "win32" || typeof process.getuid !== "function") return undefined;
  const stats = statSync(directory);
  if (stats.uid !== process.getuid() && stats.uid !== 0) return `belongs to another user (uid ${stats.uid})`;
  if ((stats.mode & 0o002) !== 0 && (stats.mode & 0o1000) === 0)
    return `may be written by anyone (mode ${modeText(stats.mode)})`;
  return undefined;
}

function modeText(mode: number): string {
  return (mode & 0o777).toString(8).padStart(3, "0");
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

/** Options of {@link readFileLimited}. */
export interface ReadLimitedOptions {
  /** Refuse a symbolic link at `path` itself (`O_NOFOLLOW`): it fails with `ELOOP`. */
  noFollow?: boolean;
  /** Called with the stats of the opened descriptor (a regular file); throw to refuse it. */
  check?: (stats: Stats) => void;
}

/**
 * A whole regular file of at most `maxBytes`, opened `O_NONBLOCK` and judged by fstat of that descriptor,
 * never by the path again: a FIFO swapped in cannot block it (NotAFileError, FileTooLargeError).
 */
export async function readFileLimited(
  path: string,
  maxBytes: number,
  options: ReadLimitedOptions = {},
): Promise<Buffer> {
  const file = await fsp().open(path, readFlags(options));
  try {
    const stats = await file.stat();
    checkOpened(path, stats, maxBytes, options);
    // The size can change between stat and read: read one byte past the limit to notice.
    const buffer = Buffer.alloc(Math.min(stats.size, maxBytes) + 1);
    let length = 0;
    // Stryker disable next-line EqualityOperator: equivalent: a full buffer makes the extra read ask for 0 bytes, which reads none and breaks
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
export function readFileLimitedSync(path: string, maxBytes: number, options: ReadLimitedOptions = {}): Buffer {
  const fd = openSync(path, readFlags(options));
  try {
    const stats = fstatSync(fd);
    checkOpened(path, stats, maxBytes, options);
    const buffer = Buffer.alloc(Math.min(stats.size, maxBytes) + 1);
    let length = 0;
    // Stryker disable next-line EqualityOperator: equivalent, as in readFileLimited
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

/** Read-only, non-blocking (Windows has neither O_NONBLOCK nor O_NOFOLLOW: plain there). */
function readFlags(options: ReadLimitedOptions): number {
  const nonBlock = constants.O_NONBLOCK ?? 0;
  const noFollow = options.noFollow ? (constants.O_NOFOLLOW ?? 0) : 0;
  return constants.O_RDONLY | nonBlock | noFollow;
}

function checkOpened(path: string, stats: Stats, maxBytes: number, options: ReadLimitedOptions): void {
  checkRegular(path, stats);
  // Stryker disable next-line ConditionalExpression,BlockStatement,CallExpression: equivalent in outcome: without it the read stops at maxBytes + 1 and throws the same error; it only spares reading a big file
  if (stats.size > maxBytes) throw new FileTooLargeError(path, maxBytes);
  options.check?.(stats);
}

function checkRegular(path: string, stats: { isFile(): boolean; isDirectory(): boolean }): void {
  if (!stats.isFile()) throw new NotAFileError(path, stats.isDirectory());
}
