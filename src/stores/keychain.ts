// The keychain store (docs/caching.md, "Where the refresh token is kept"): the cache file keeps its
// non-secret fields and names an entry of the operating system's keychain (os/keychain.ts), which holds
// the refresh token and client secret. Loaded only for a file in this form or a save that may use the
// keychain: default()'s warm path and print-token's cached path read the form but ask no keychain.
//
// The form: an `authorized_user` file without `refresh_token`, `client_secret` and `id_token`, with
//   "cred_auth_keychain": { "service": "cred-auth", "account": "<the file's absolute path>", "id": "<32 hex>" }
// The entry is named after the file's own path, so a file copied elsewhere, or written by someone else,
// cannot borrow another file's entry. `id` is random per save, in both: a file and an entry of different
// saves do not pair up; it also stands in for the refresh token in the token cache's key.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { CredConnectionError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { type AuthorizedUserFile, parseAuthorizedUser, userCredentialsJson } from "../credentials/kinds/user/file.js";
import { MAX_CREDENTIALS_FILE_BYTES } from "../formats/credentials-file.js";
import { writeCredentialsText, writeUserCredentialsFile } from "./credentials-file.js";
import { recordStandIn } from "../formats/stand-in.js";
import { type KeychainReply, keychain, keychainAbsence, keychainSync } from "../os/keychain.js";
import { readTrustedFileSync } from "../trust/files.js";
import { quoted } from "../trust/text.js";
import { removeCacheFile } from "./file.js";
import type { StoredCredentials, UserSecrets } from "./secret-store.js";

/** The field that marks the keychain form and names its entry. */
const FIELD = "cred_auth_keychain";
/** The keychain service every cred-auth entry is filed under (`secret-tool search service cred-auth`). */
const SERVICE = "cred-auth";
/** `code` of the one note saying the keychain is not used (and why). */
const NOTE_CODE = "CRED_AUTH_KEYCHAIN";
const ID = /^[0-9a-f]{32}$/;

/** The keychain entry a cache file names. */
interface Entry {
  service: string;
  /** The cache file's absolute path. */
  account: string;
  /** Random per save: the file and the entry of one save carry the same. */
  id: string;
}

/** A cache file in the keychain form: its non-secret fields and its entry. */
interface Form {
  fields: Omit<AuthorizedUserFile, "clientSecret" | "refreshToken" | "idToken">;
  entry: Entry;
}

/** Why `auto` found no usable keychain in this process: asked once, said once. */
let unusable: string | undefined;

/** The credentials of a keychain-form cache file from its bytes; its secrets are read when first needed. */
export function storedFromBytes(bytes: Buffer, path: string): StoredCredentials {
  const form = parseForm(bytes.toString("utf8"), path);
  return { fields: form.fields, standIn: standIn(form.entry), secrets: async () => secretsOf(form, path) };
}

/**
 * The `authorized_user` file of a keychain-form file for any reader (`status`, `print-token`,
 * `print-identity-token`, `revoke`): its two secrets are read from the keychain when first used, so a
 * token found in the token cache (keyed by the save's id) costs no keychain read.
 */
export function userFileSync(path: string): AuthorizedUserFile {
  const form = parseForm(
    readTrustedFileSync(path, { maxBytes: MAX_CREDENTIALS_FILE_BYTES, keeper: "anyone" }).toString("utf8"),
    path,
  );
  let secrets: UserSecrets | undefined;
  const read = (): UserSecrets => {
    secrets ??= secretsFrom(keychainSync(SERVICE, { op: "get", account: form.entry.account }), form, path);
    return secrets;
  };
  const file = { ...form.fields } as AuthorizedUserFile;
  for (const name of ["clientSecret", "refreshToken"] as const)
    Object.defineProperty(file, name, { enumerable: true, get: () => read()[name] });
  recordStandIn(file, standIn(form.entry));
  return file;
}

/**
 * Writes `file` to the cache file at `path`: with `keychain` or a usable keychain under `auto`, its
 * secrets go into the keychain and the file keeps the rest and the entry's name; else the whole file.
 * Then forgets what no file names any more. Resolves the token cache's stand-in, in the keychain form.
 *
 * @throws CredCredentialsError `ERR_KEYCHAIN_UNAVAILABLE` with `keychain` when no keychain answers.
 */
export async function saveCacheFile(
  path: string,
  file: AuthorizedUserFile,
  store: "auto" | "keychain" | "file",
): Promise<string | undefined> {
  const entry = store === "file" ? undefined : await storeSecrets(path, file, store);
  if (entry === undefined) {
    await writeUserCredentialsFile(path, file);
    if (store === "file" || unusable === undefined) await forgetEntry(path);
    return undefined;
  }
  try {
    await writeCredentialsText(path, formJson(file, entry));
  } catch (error) {
    await forgetEntry(path); // the file was not written: nothing may name the entry
    throw error;
  }
  await forgetStaleEntries(path);
  return standIn(entry);
}

/** Removes the cache file at `path` and its keychain entry, then entries whose file is gone. True when there was a file. */
export async function deleteCacheFile(path: string): Promise<boolean> {
  const removed = removeCacheFile(path);
  await forgetEntry(path);
  await forgetStaleEntries(path);
  return removed;
}

/** Removes the keychain entry of the cache file at `path`, if there is one. Never throws. */
export async function forgetEntry(path: string): Promise<boolean> {
  if (keychainAbsence() !== undefined) return false;
  const reply = await keychain(SERVICE, { op: "delete", account: resolve(path) });
  return reply.ok && reply.deleted === true;
}

/** The keychain entry for `file`, or undefined when `auto` found none usable (said once). */
async function storeSecrets(
  path: string,
  file: AuthorizedUserFile,
  store: "auto" | "keychain",
): Promise<Entry | undefined> {
  if (store === "auto" && unusable !== undefined) return undefined;
  const entry = { service: SERVICE, account: resolve(path), id: randomBytes(16).toString("hex") };
  const secret = JSON.stringify({ id: entry.id, refresh_token: file.refreshToken, client_secret: file.clientSecret });
  const reply = await keychain(SERVICE, { op: "set", account: entry.account, secret });
  if (reply.ok) return entry;
  if (store === "keychain")
    throw new CredCredentialsError(
      `The refresh token was to be kept in the keychain (secret store "keychain"), which could not be used: ${reply.why}. Nothing was saved. Unlock or start the keychain, or choose the file (CRED_AUTH_SECRET_STORE=file).`,
      { code: ERROR_CODES.KEYCHAIN_UNAVAILABLE },
    );
  unusable = reply.why;
  process.emitWarning(
    `The refresh token is kept in the credentials cache file (mode 0600), not in the keychain: ${reply.why}. Set CRED_AUTH_SECRET_STORE=file to keep it there without this note.`,
    { type: "CredAuthWarning", code: NOTE_CODE },
  );
  return undefined;
}

/**
 * Removes cred-auth's keychain entries that no file names any more: the file is gone or no longer in
 * the keychain form naming itself. `path`, just saved, is kept. Never throws.
 */
async function forgetStaleEntries(path: string): Promise<void> {
  const listed = await keychain(SERVICE, { op: "accounts" });
  if (!listed.ok) return;
  for (const account of listed.accounts ?? []) {
    if (account === resolve(path) || !isStale(account)) continue;
    await keychain(SERVICE, { op: "delete", account });
  }
}

function isStale(account: string): boolean {
  if (!existsSync(account)) return true;
  try {
    const text = readTrustedFileSync(account, { maxBytes: MAX_CREDENTIALS_FILE_BYTES, keeper: "anyone" });
    const json = JSON.parse(text.toString("utf8")) as Record<string, unknown>;
    return !(FIELD in json) || parseForm(text.toString("utf8"), account).entry.account !== account;
  } catch {
    return false; // a file that names the entry but cannot be read: its owner's next save decides
  }
}

/** The file's text in the keychain form: `file` without its secrets (and ID token), with `entry`. */
function formJson(file: AuthorizedUserFile, entry: Entry): string {
  const {
    client_secret: _s,
    refresh_token: _r,
    ...rest
  } = JSON.parse(userCredentialsJson(file)) as Record<string, unknown>;
  delete rest.id_token;
  return `${JSON.stringify({ ...rest, [FIELD]: entry }, null, 2)}\n`;
}

/**
 * Parses a keychain-form cache file: its fields are checked by the `authorized_user` parser (with
 * stand-ins for the two secrets); a file that also holds a secret, or whose entry is not named after
 * the file itself, is refused.
 */
function parseForm(text: string, path: string): Form {
  const { [FIELD]: entry, ...rest } = JSON.parse(text) as Record<string, unknown>;
  if ("refresh_token" in rest || "client_secret" in rest)
    throw invalid(path, `holds both "${FIELD}" and a secret; sign in again`);
  if (rest.type !== "authorized_user") throw invalid(path, `has "${FIELD}" but is not "authorized_user"`);
  const parsed = parseAuthorizedUser({ ...rest, client_secret: "-", refresh_token: "-" }, path);
  const { clientSecret: _s, refreshToken: _r, idToken: _i, ...fields } = parsed;
  return { fields, entry: checkedEntry(entry, path) };
}

function checkedEntry(value: unknown, path: string): Entry {
  const entry = value as Partial<Record<keyof Entry, unknown>> | null;
  if (
    typeof entry !== "object" ||
    entry === null ||
    entry.service !== SERVICE ||
    typeof entry.id !== "string" ||
    !ID.test(entry.id)
  )
    throw invalid(path, `has a malformed "${FIELD}"; sign in again`);
  if (entry.account !== resolve(path))
    throw invalid(
      path,
      "names the keychain entry of another file; only the credentials cache file's own entry is read",
    );
  return { service: entry.service, account: entry.account, id: entry.id };
}

/** What stands in for the refresh token in the token cache's key of a keychain-form file. */
function standIn(entry: Entry): string {
  return `cred-auth-keychain:${entry.id}`;
}

async function secretsOf(form: Form, path: string): Promise<UserSecrets> {
  return secretsFrom(await keychain(SERVICE, { op: "get", account: form.entry.account }), form, path);
}

function secretsFrom(reply: KeychainReply, form: Form, path: string): UserSecrets {
  if (!reply.ok)
    throw new CredConnectionError(
      `The refresh token of ${quoted(path)} is in the keychain, which could not be read: ${reply.why}. Unlock the keychain (or start it), then try again.`,
      { code: ERROR_CODES.KEYCHAIN_UNAVAILABLE },
    );
  let held: Partial<Record<"id" | "refresh_token" | "client_secret", unknown>> | undefined;
  try {
    held = typeof reply.secret === "string" ? JSON.parse(reply.secret) : undefined;
  } catch {
    held = undefined;
  }
  if (
    held?.id !== form.entry.id ||
    typeof held.refresh_token !== "string" ||
    typeof held.client_secret !== "string" ||
    held.refresh_token === "" ||
    held.client_secret === ""
  )
    throw invalid(path, "names a keychain entry that is gone or belongs to another save; sign in again");
  return { refreshToken: held.refresh_token, clientSecret: held.client_secret };
}

function invalid(path: string, problem: string): CredCredentialsError {
  return new CredCredentialsError(`The credentials file ${quoted(path)} ${problem}.`, {
    code: ERROR_CODES.FILE_INVALID,
  });
}
