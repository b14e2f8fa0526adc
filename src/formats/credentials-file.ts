/**
 * Credential JSON files: parse and validate `authorized_user` and `service_account` files,
 * write user credentials in the ADC format. Kept free of heavy imports: the CLI's
 * print-token fast path loads this module. Files are read under the file-trust rule
 * (trust/files.ts); the URLs they name are judged where they are used (formats/destinations.ts).
 */
import { type Stats, lstatSync, mkdirSync, rmdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { CredCredentialsError, CredentialsFileError, ERROR_CODES } from "../errors.js";
import { GOOGLE_ENDPOINTS } from "../shared/constants.js";
import { UnsafeLinkError, writeFileAtomic } from "../util/atomic-write.js";
import { UntrustedFileError, readTrustedFileSync, secretDirectoryProblem } from "../trust/files.js";
import { quoted } from "../trust/text.js";

// Only a service-account key is checked with node:crypto: print-token on a user file must not load it (bench target 2).
const nodeCrypto = (): typeof import("node:crypto") => require("node:crypto");

/**
 * An `authorized_user` file: user credentials, as written by gcloud, pydata-google-auth and
 * cred-auth. The model is camelCase; its keys on disk are {@link USER_KEYS}'.
 */
export interface AuthorizedUserFile {
  type: "authorized_user";
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  /** `token_uri`, as written (absent: Google's); judged where used. */
  tokenUrl?: string;
  /** The scopes granted (cred-auth and pydata-google-auth record them; gcloud does not). */
  scopes?: string[];
  idToken?: string;
  quotaProjectId?: string;
  universeDomain?: string;
  /** The signed-in account's e-mail, when known. */
  account?: string;
}

/** A `service_account` JSON key file. The model is camelCase; its keys on disk are {@link KEY_KEYS}'. */
export interface ServiceAccountKeyFile {
  type: "service_account";
  projectId: string;
  privateKeyId?: string;
  privateKey: string;
  clientEmail: string;
  clientId?: string;
  /** `token_uri`, as written (absent: Google's); judged where used. */
  tokenUrl?: string;
  universeDomain?: string;
  quotaProjectId?: string;
}

/** Any credentials file cred-auth can load. */
export type CredentialsFile = AuthorizedUserFile | ServiceAccountKeyFile;

/** The file types cred-auth accepts. */
export type CredentialsFileType = CredentialsFile["type"];

/** Credentials files are a few kilobytes; anything this big is not one. */
export const MAX_CREDENTIALS_FILE_BYTES = 1024 * 1024;

// The error of a file read here is public (errors.ts): its path and problem are its own.
export { CredentialsFileError } from "../errors.js";

const ACCEPTED_TYPES = ["authorized_user", "service_account"] as const;

/**
 * Each string field of the user model and its key on disk, in the order a file is written: adding
 * a field is one line here and one in {@link AuthorizedUserFile}.
 */
const USER_KEYS = {
  clientId: "client_id",
  clientSecret: "client_secret",
  refreshToken: "refresh_token",
  tokenUrl: "token_uri",
  idToken: "id_token",
  quotaProjectId: "quota_project_id",
  universeDomain: "universe_domain",
  account: "account",
} as const satisfies Record<Exclude<keyof AuthorizedUserFile, "type" | "scopes">, string>;
const USER_REQUIRED = ["clientId", "clientSecret", "refreshToken"] as const;

/** Each field of the key model and its key on disk. */
const KEY_KEYS = {
  projectId: "project_id",
  privateKeyId: "private_key_id",
  privateKey: "private_key",
  clientEmail: "client_email",
  clientId: "client_id",
  tokenUrl: "token_uri",
  universeDomain: "universe_domain",
  quotaProjectId: "quota_project_id",
} as const satisfies Record<Exclude<keyof ServiceAccountKeyFile, "type">, string>;
const KEY_REQUIRED = ["projectId", "privateKey", "clientEmail"] as const;

/** Options of {@link readCredentialsFile}. */
export interface ReadCredentialsOptions {
  /**
   * Refuse a file that is not the current user's, or that group or others may write (a file
   * planted by someone else decides whose account the program acts as). Not checked on Windows.
   */
  privateOnly?: boolean;
}

/**
 * Reads and validates a credentials file. Throws {@link CredentialsFileError} naming the problem.
 * It reads synchronously, as {@link readCredentialsFileSync}: the file is small and bounded, opened
 * non-blocking (a FIFO cannot hold it up), and an asynchronous read would start libuv's four worker
 * threads, which default()'s warm path otherwise never needs (bench/README.md, target 4).
 */
export async function readCredentialsFile(
  path: string,
  options: ReadCredentialsOptions = {},
): Promise<CredentialsFile> {
  return readCredentialsFileSync(path, options);
}

/** {@link readCredentialsFile}, synchronously. */
export function readCredentialsFileSync(path: string, options: ReadCredentialsOptions = {}): CredentialsFile {
  return parseCredentialsBytes(readCredentialsBytesSync(path, options), path);
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

export async function readAuthorizedUserFile(
  path: string,
  options: ReadCredentialsOptions = {},
): Promise<AuthorizedUserFile> {
  return expectType(await readCredentialsFile(path, options), "authorized_user", path);
}

/** Reads a credentials file that must hold a service account key. */
export async function readServiceAccountKeyFile(path: string): Promise<ServiceAccountKeyFile> {
  return expectType(await readCredentialsFile(path), "service_account", path);
}

export function expectType<T extends CredentialsFileType>(
  file: CredentialsFile,
  type: T,
  path: string,
): Extract<CredentialsFile, { type: T }> {
  if (file.type === type) return file as Extract<CredentialsFile, { type: T }>;
  const hint =
    type === "authorized_user" ? "load it with loadServiceAccountCredentials()" : "load it with loadUserCredentials()";
  throw invalid(path, `holds "${file.type}" credentials, not "${type}"; ${hint}`);
}

/** Validates raw file bytes: UTF-8 (a byte-order mark is allowed), then {@link parseCredentialsText}. */
export function parseCredentialsBytes(bytes: Uint8Array, path: string): CredentialsFile {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch (error) {
    throw invalid(path, "is not UTF-8 text; a credentials file is JSON", error);
  }
  return parseCredentialsText(text, path);
}

/**
 * Parses and validates the text of a credentials file. `path` only names the file in errors.
 * Messages never quote the file's contents: they may hold secrets.
 */
export function parseCredentialsText(text: string, path: string): CredentialsFile {
  if (text.trim() === "") throw invalid(path, "is empty; sign in again or point to the right file");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw invalid(path, notJsonProblem(text, error), error);
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw invalid(path, `holds ${jsonKind(json)}, not a JSON object`);
  }
  const fields = json as Record<string, unknown>;
  const type = fields.type;
  if (type === undefined && isClientSecretShape(fields))
    throw invalid(
      path,
      `is an OAuth client-secret file (an OAuth client's id and secret, as the Google Cloud console downloads it), not credentials; sign in with it to get credentials: cred-auth login credentials.json --client-secret-file ${quote(path)}, then use credentials.json`,
    );
  if (type === undefined) throw invalid(path, `has no "type" field; expected ${acceptedTypes()}`);
  if (type === "authorized_user") return parseAuthorizedUser(fields, path);
  if (type === "service_account") return parseServiceAccount(fields, path);
  throw invalid(path, `has type ${describeType(type)}; cred-auth accepts ${acceptedTypes()}`);
}

function parseAuthorizedUser(fields: Record<string, unknown>, path: string): AuthorizedUserFile {
  const file: AuthorizedUserFile = {
    type: "authorized_user",
    ...stringFields(fields, path, USER_KEYS, USER_REQUIRED),
  };
  const scopes = parseScopes(fields.scopes, path);
  if (scopes !== undefined) file.scopes = scopes;
  return file;
}

function parseServiceAccount(fields: Record<string, unknown>, path: string): ServiceAccountKeyFile {
  const file: ServiceAccountKeyFile = {
    type: "service_account",
    ...stringFields(fields, path, KEY_KEYS, KEY_REQUIRED),
  };
  checkPrivateKey(file.privateKey, path);
  return file;
}

/** The required and the present optional string fields of a model, read at their keys on disk and checked. */
function stringFields<K extends Record<string, string>, R extends keyof K & string>(
  fields: Record<string, unknown>,
  path: string,
  keys: K,
  required: readonly R[],
): Record<R, string> & Partial<Record<keyof K, string>> {
  const out: Record<string, string> = {};
  for (const [name, key] of Object.entries(keys)) {
    const value = (required as readonly string[]).includes(name)
      ? requiredString(fields, key, path)
      : optionalString(fields, key, path);
    if (value !== undefined) out[name] = value;
  }
  return out as Record<R, string> & Partial<Record<keyof K, string>>;
}

function requiredString(fields: Record<string, unknown>, name: string, path: string): string {
  const value = fields[name];
  if (value === undefined || value === null) throw invalid(path, `is missing the required field "${name}"`);
  if (typeof value !== "string") throw invalid(path, `has ${jsonKind(value)} in "${name}" where a string belongs`);
  if (value.trim() === "") throw invalid(path, `has an empty "${name}"`);
  return value;
}

/** Absent, `null` and `""` all mean "not known" (gcloud writes `"account": ""`). */
function optionalString(fields: Record<string, unknown>, name: string, path: string): string | undefined {
  const value = fields[name];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") throw invalid(path, `has ${jsonKind(value)} in "${name}" where a string belongs`);
  return value;
}

/** An array of scope strings; a space-separated string is accepted too, as google-auth (Python) does. */
function parseScopes(value: unknown, path: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  // Stryker disable next-line Regex: equivalent: filter(Boolean) drops the empty strings a split on single spaces leaves
  if (typeof value === "string") return value.split(/\s+/).filter(Boolean);
  if (Array.isArray(value) && value.every((scope) => typeof scope === "string" && scope.trim() !== ""))
    return [...value];
  throw invalid(path, `has "scopes" that is not an array of scope strings`);
}

function checkPrivateKey(pem: string, path: string): void {
  try {
    nodeCrypto().createPrivateKey(pem);
  } catch (error) {
    // Node's message can quote the key material's start; keep only the name of the problem.
    throw invalid(
      path,
      `has a "private_key" that is not a valid PEM private key; download a new key for this service account`,
      privateKeyErrorSummary(error),
    );
  }
}

function privateKeyErrorSummary(error: unknown): Error {
  const code = (error as { code?: unknown }).code;
  return new Error(typeof code === "string" ? code : "invalid private key");
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
        `Credentials file ${quote(path)} does not exist; check the path or sign in to create it.`,
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

function invalid(path: string, problem: string, cause?: unknown): CredentialsFileError {
  return new CredentialsFileError(path, "invalid", `Credentials file ${quote(path)} ${problem}.`, {
    cause: safeCause(cause),
  });
}

/** JSON.parse's message quotes the text it choked on: keep only the error's class as the cause. */
function safeCause(cause: unknown): unknown {
  return cause instanceof SyntaxError ? new SyntaxError("invalid JSON") : cause;
}

function quote(path: string): string {
  return quoted(path);
}

/** ` (line L, column C)` when the engine says where parsing stopped; never the text itself. */
/** Why the text is not JSON: cut short (it ends inside its JSON), or not JSON at some place. */
function notJsonProblem(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : "";
  const at = Number(/at position (\d+)/.exec(message)?.[1] ?? Number.NaN);
  const cutShort = /end of JSON input|Unterminated string/i.test(message) || at >= text.trimEnd().length;
  const place = jsonErrorPlace(error).startsWith(" (line") ? jsonErrorPlace(error) : "";
  if (cutShort)
    return `ends before its JSON is complete${place}: it was cut short (an interrupted copy, download or write?); copy or download it again, or sign in again to write a new one`;
  return `is not valid JSON${jsonErrorPlace(error)}; it is not a credentials file, or it was damaged`;
}

/** A client-secret file as the console downloads it: `{"installed": {...}}` or `{"web": {...}}`. */
export function isClientSecretShape(fields: Record<string, unknown>): boolean {
  const inner = fields.installed ?? fields.web;
  return typeof inner === "object" && inner !== null && "client_id" in inner;
}

function jsonErrorPlace(error: unknown): string {
  // Stryker disable next-line StringLiteral: equivalent: JSON.parse throws only SyntaxErrors, and any text without a place gives none
  const message = error instanceof Error ? error.message : "";
  const place = /\(line (\d+) column (\d+)\)/.exec(message);
  if (place) return ` (line ${place[1]}, column ${place[2]})`;
  if (/end of JSON input/i.test(message)) return " (it ends too early)";
  return "";
}

function jsonKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return "a string";
  if (typeof value === "number") return "a number";
  // Stryker disable next-line ConditionalExpression: equivalent when true: only JSON values come here, and a boolean is the one kind left
  return typeof value === "boolean" ? "a boolean" : typeof value;
}

function describeType(type: unknown): string {
  if (typeof type === "string" && /^[A-Za-z0-9_.-]{1,64}$/.test(type)) return JSON.stringify(type);
  if (typeof type === "string") return "an unsupported string";
  return jsonKind(type);
}

function acceptedTypes(): string {
  return ACCEPTED_TYPES.map((t) => JSON.stringify(t)).join(" or ");
}

/** What an `authorized_user` file is made of: a sign-in's tokens, or a client we built. */
export type AuthorizedUserFields = Omit<AuthorizedUserFile, "type" | "scopes"> & { scopes?: readonly string[] };

/** The `authorized_user` file of `fields`: the one place it is put together (parsed above, written below). */
export function authorizedUserFile(fields: AuthorizedUserFields): AuthorizedUserFile {
  const file: AuthorizedUserFile = {
    type: "authorized_user",
    clientId: fields.clientId,
    clientSecret: fields.clientSecret,
    refreshToken: fields.refreshToken,
    ...(fields.tokenUrl !== undefined ? { tokenUrl: fields.tokenUrl } : {}),
    scopes: [...(fields.scopes ?? [])],
  };
  for (const name of ["idToken", "quotaProjectId", "universeDomain", "account"] as const)
    if (fields[name]) file[name] = fields[name];
  return file;
}

/**
 * The ADC-format JSON of user credentials: `type, client_id, client_secret, refresh_token,
 * token_uri, scopes`, then `id_token, quota_project_id, universe_domain, account` when known.
 * `token_uri` defaults to Google's.
 */
export function userCredentialsJson(data: AuthorizedUserFile): string {
  const out: Record<string, unknown> = { type: "authorized_user" };
  const written = { ...data, tokenUrl: data.tokenUrl ?? GOOGLE_ENDPOINTS.tokenUrl };
  for (const [name, key] of Object.entries(USER_KEYS) as [keyof typeof USER_KEYS, string][]) {
    const value = written[name];
    if (value || (USER_REQUIRED as readonly string[]).includes(name)) out[key] = value;
    // The scopes follow token_uri, as gcloud and pydata-google-auth write them.
    if (name === "tokenUrl" && data.scopes !== undefined) out.scopes = [...data.scopes];
  }
  return `${JSON.stringify(out, null, 2)}\n`;
}

/**
 * Writes user credentials as an ADC `authorized_user` file, atomically, mode 0600 (new
 * directories 0700). The data is validated first, so the file is always loadable.
 */
export async function writeUserCredentialsFile(path: string, data: AuthorizedUserFile): Promise<void> {
  const text = userCredentialsJson(data);
  parseCredentialsText(text, path);
  await writeCredentialsText(path, text);
}

/** Writes the text of a credentials file (already validated) as {@link writeUserCredentialsFile} does. */
export async function writeCredentialsText(path: string, text: string): Promise<void> {
  const directory = nearestExisting(dirname(resolve(path)));
  const problem = kindOf(directory) === "dir" ? secretDirectoryProblem(directory) : undefined;
  if (problem !== undefined)
    throw new CredCredentialsError(
      `Could not write credentials to ${quote(path)}: the directory ${quote(directory)} ${problem}; cred-auth writes no secret there.`,
      { code: ERROR_CODES.FILE_UNWRITABLE },
    );
  try {
    // Stryker disable next-line ObjectLiteral: equivalent: 0o600 is writeFileAtomic's default too; said here, as it matters
    await writeFileAtomic(path, text, { mode: 0o600 });
  } catch (error) {
    const unsafe = error instanceof UnsafeLinkError;
    throw new CredCredentialsError(`Could not write credentials to ${quote(path)}: ${writeProblem(error)}.`, {
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
    new CredCredentialsError(`Cannot save credentials to ${quote(path)}: ${problem}.`, {
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
  if (kindOf(parent) !== "dir") throw refuse(`${quote(parent)} is not a directory`);
  const problem = secretDirectoryProblem(parent);
  if (problem !== undefined)
    throw refuse(`the directory ${quote(parent)} ${problem}; cred-auth writes no secret there`);
  const probe = join(parent, `.cred-auth-probe-${process.pid}-${Date.now().toString(36)}`);
  try {
    mkdirSync(probe);
  } catch (error) {
    throw refuse(`the directory ${quote(parent)} is not writable`, error);
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
