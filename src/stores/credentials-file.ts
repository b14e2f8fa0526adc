// Reading and writing credentials files on disk: read under the file-trust rule (bounded, non-blocking,
// regular; the user's own and private for files we keep), written atomically 0600 where a secret may rest.
import { type Stats, lstatSync, mkdirSync, rmdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import {
  type CredentialsFile,
  parseCredentialsBytes,
  parseKeyBytes,
  parseUserBytes,
} from "../credentials/kinds/file.js";
import type { ServiceAccountKeyFile } from "../credentials/kinds/key/file.js";
import { type AuthorizedUserFile, userFileText } from "../credentials/kinds/user/file.js";
import { CredCredentialsError, CredentialsFileError, ERROR_CODES } from "../errors.js";
import { MAX_CREDENTIALS_FILE_BYTES, invalid } from "../formats/credentials-file.js";
import { UntrustedFileError, readTrustedFileSync, secretDirectoryProblem } from "../trust/files.js";
import { quoted } from "../trust/text.js";
import { UnsafeLinkError, writeFileAtomic } from "../util/atomic-write.js";

/** Options of {@link readCredentialsBytesSync}. */
export interface ReadCredentialsOptions {
  /**
   * Refuse a file that is not the current user's, or that group or others may write (a file
   * planted by someone else decides whose account the program acts as). Not checked on Windows.
   */
  privateOnly?: boolean;
}

/**
 * The bytes of the credentials file at `path`, read under the file-trust rule (bounded, non-blocking,
 * a regular file; the user's own and private with `privateOnly`), unparsed: for a reader that
 * parses them by their type (adc-file.ts). Throws {@link CredentialsFileError} naming the problem.
 */
export function readCredentialsBytesSync(path: string, options: ReadCredentialsOptions = {}): Buffer {
  try {
    return readTrustedFileSync(path, {
      maxBytes: MAX_CREDENTIALS_FILE_BYTES,
      // Stryker disable next-line StringLiteral: equivalent: every keeper but "cred-auth" is read as anyone's
      keeper: options.privateOnly ? "cred-auth" : "anyone",
    });
  } catch (error) {
    throw readError(path, error);
  }
}

/**
 * A user's or a key's file, read and checked. Synchronously: the file is small and bounded, and an
 * asynchronous read would start libuv's four worker threads, which warm default() otherwise never needs.
 */
export function readCredentialsFileSync(path: string, options: ReadCredentialsOptions = {}): CredentialsFile {
  return parseCredentialsBytes(readCredentialsBytesSync(path, options), path);
}

/** {@link readCredentialsFileSync} as a promise. */
export async function readCredentialsFile(
  path: string,
  options: ReadCredentialsOptions = {},
): Promise<CredentialsFile> {
  return readCredentialsFileSync(path, options);
}

/** A file that must hold user credentials (a key file's loader is named). */
export async function readAuthorizedUserFile(
  path: string,
  options: ReadCredentialsOptions = {},
): Promise<AuthorizedUserFile> {
  return parseUserBytes(readCredentialsBytesSync(path, options), path);
}

/** A file that must hold a service account key (a user file's loader is named). */
export async function readServiceAccountKeyFile(path: string): Promise<ServiceAccountKeyFile> {
  return parseKeyBytes(readCredentialsBytesSync(path), path);
}

/** Maps a failed read to an error naming the file and what to do. */
function readError(path: string, error: unknown): CredentialsFileError {
  if (error instanceof UntrustedFileError)
    return invalid(
      path,
      `${error.problem}${error.foreign ? ", who decides whose credentials it holds" : ""}; it is not used`,
      error,
    );
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return new CredentialsFileError(
        path,
        "missing",
        `Credentials file ${quoted(path)} does not exist; check the path or sign in to create it.`,
        { cause: error },
      );
    case "EISDIR":
      return invalid(
        path,
        "is a directory, not a credentials file; give the path of the JSON file itself (the file `cred-auth login FILE` wrote, a key file, gcloud's application_default_credentials.json)",
        error,
      );
    case "ENOTFILE":
      return invalid(path, "is not a regular file", error);
    case "EACCES":
    case "EPERM":
      return invalid(path, "cannot be read (permission denied); check the file's owner and mode", error);
    case "ELOOP":
      return invalid(path, "is a loop of symbolic links", error);
    case "ENOTDIR":
      return invalid(path, "is under something that is not a directory; check the path", error);
    case "ENAMETOOLONG":
      return invalid(path, "is a path that is too long", error);
    case "EFBIG":
      return invalid(
        path,
        `is larger than ${MAX_CREDENTIALS_FILE_BYTES / 1024 / 1024} MiB, far more than any credentials file`,
        error,
      );
    default:
      return invalid(path, `cannot be read (${typeof code === "string" ? code : "unexpected error"})`, error);
  }
}

/** Writes user credentials as an ADC `authorized_user` file (validated first: it always loads back), atomically, 0600. */
export async function writeUserCredentialsFile(path: string, data: AuthorizedUserFile): Promise<void> {
  await writeCredentialsText(path, userFileText(data, path));
}

/** Writes the text of a credentials file (already validated) as {@link writeUserCredentialsFile} does. */
export async function writeCredentialsText(path: string, text: string): Promise<void> {
  const directory = nearestExisting(dirname(resolve(path)));
  const problem = kindOf(directory) === "dir" ? secretDirectoryProblem(directory) : undefined;
  if (problem !== undefined)
    throw new CredCredentialsError(
      `Could not write credentials to ${quoted(path)}: the directory ${quoted(directory)} ${problem}; cred-auth writes no secret there.`,
      { code: ERROR_CODES.FILE_UNWRITABLE },
    );
  try {
    // Stryker disable next-line ObjectLiteral: equivalent: 0o600 is writeFileAtomic's default too; said here, as it matters
    await writeFileAtomic(path, text, { mode: 0o600 });
  } catch (error) {
    const unsafe = error instanceof UnsafeLinkError;
    throw new CredCredentialsError(`Could not write credentials to ${quoted(path)}: ${writeProblem(error)}.`, {
      cause: error,
      code: unsafe ? ERROR_CODES.FILE_INVALID : ERROR_CODES.FILE_UNWRITABLE,
    });
  }
}

/**
 * Fails before a sign-in when credentials could not be saved at `path`: a directory or a special
 * file (a FIFO, a device) there, another user's link, a file where a directory should be, a
 * directory another user owns or anyone may write (no secret goes there), or one where nothing
 * can be created (read-only, /proc, no permission: tried, not guessed from mode bits, which root
 * ignores). Nobody wants to approve a sign-in twice. Nothing is left behind.
 */
export function checkWritableDestination(path: string): void {
  const refuse = (problem: string, cause?: unknown) =>
    new CredCredentialsError(`Cannot save credentials to ${quoted(path)}: ${problem}.`, {
      ...(cause === undefined ? {} : { cause }),
      code: ERROR_CODES.FILE_UNWRITABLE,
    });
  const destination = resolve(path);
  const there = kindOf(destination);
  if (there === "dir") throw refuse("it is a directory; give a file path");
  if (there === "other") throw refuse("it is not a regular file; give a file path");
  const link = linkOwner(destination);
  if (link !== undefined) throw refuse(writeProblem(new UnsafeLinkError(destination, link)));
  const parent = nearestExisting(dirname(destination));
  if (kindOf(parent) !== "dir") throw refuse(`${quoted(parent)} is not a directory`);
  const problem = secretDirectoryProblem(parent);
  if (problem !== undefined)
    throw refuse(`the directory ${quoted(parent)} ${problem}; cred-auth writes no secret there`);
  const probe = join(parent, `.cred-auth-probe-${process.pid}-${Date.now().toString(36)}`);
  try {
    mkdirSync(probe);
  } catch (error) {
    throw refuse(`the directory ${quoted(parent)} is not writable`, error);
  }
  rmdirSync(probe);
}

/** `path`, or its nearest ancestor that exists (the directories a save would create are ours). */
function nearestExisting(path: string): string {
  let current = path;
  // Stryker disable next-line ConditionalExpression: equivalent when true: the root exists, so the walk stops there anyway
  while (kindOf(current) === "none" && dirname(current) !== current) current = dirname(current);
  return current;
}

/** What is at `path`: a directory, a regular file, something else, or nothing (a link counts as its target). */
function kindOf(path: string): "dir" | "file" | "other" | "none" {
  const stats = statOrNothing(statSync, path);
  if (stats === undefined) return "none";
  // Stryker disable next-line StringLiteral: equivalent: "file" is only ever told apart from "dir", "other" and "none"
  return stats.isDirectory() ? "dir" : stats.isFile() ? "file" : "other";
}

/** `stat(path)`, or undefined when there is nothing to stat (missing, under a file, not searchable). */
function statOrNothing(stat: typeof statSync | typeof lstatSync, path: string): Stats | undefined {
  try {
    return stat(path);
    // Stryker disable next-line BlockStatement: equivalent: an empty catch returns undefined too
  } catch {
    return undefined;
  }
}

/** The owner of a link at `path` when it is another user's (root's are trusted, as writeFileAtomic trusts them). */
function linkOwner(path: string): number | undefined {
  if (process.platform === "win32" || typeof process.getuid !== "function") return undefined;
  const stats = statOrNothing(lstatSync, path);
  const foreign = stats?.isSymbolicLink() === true && stats.uid !== process.getuid() && stats.uid !== 0;
  return foreign ? stats.uid : undefined;
}

function writeProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOTDIR":
    case "EEXIST":
      return `part of the path is a file, not a directory (${code}); choose another path`;
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return `permission denied (${code}); check that the directory is writable`;
    case "EISDIR":
      return "it is a directory; give a file path";
    case "EUNSAFELINK":
      return `it is a symbolic link owned by another user (uid ${(error as UnsafeLinkError).owner}), which could point at any of your files; remove the link or choose another path`;
    case "ENOSPC":
    case "EDQUOT":
      return `the disk is full (${code})`;
    default:
      return `${typeof code === "string" ? code : "unexpected error"}; check the path`;
  }
}
