/**
 * The keychain form of the credentials cache file: an `authorized_user` file without its
 * `refresh_token` and `client_secret` (and without the short-lived `id_token`), which live in the
 * operating system's keychain instead, and with `cred_auth_keychain` naming that entry:
 *
 * ```json
 * { "type": "authorized_user", "client_id": "...", "token_uri": "...", "scopes": [...], "account": "...",
 *   "cred_auth_keychain": { "service": "cred-auth", "account": "/home/you/.config/cred/cred_credentials.json", "id": "<32 hex>" } }
 * ```
 *
 * The entry is named after the file's own path, so one file has one entry (a save replaces it) and a
 * file copied elsewhere, or written by someone else, cannot borrow another file's entry. `id` is
 * random per save, stored in both: a file and an entry of different saves do not pair up. It also
 * stands in for the refresh token in the access-token cache's key (formats/cache-keys.ts: keys
 * derive from secret material), so that a warm start finds its access token without the keychain.
 */
import { resolve } from "node:path";
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { readTrustedFile, readTrustedFileSync } from "../trust/files.js";
import { quoted } from "../trust/text.js";
import {
  type AuthorizedUserFile,
  MAX_CREDENTIALS_FILE_BYTES,
  parseCredentialsText,
  userCredentialsJson,
} from "./credentials-file.js";
import { KEYCHAIN_FIELD } from "./keychain-stand-in.js";

export { KEYCHAIN_FIELD };

/** The keychain service every cred-auth entry is filed under (`secret-tool search service cred-auth`). */
export const KEYCHAIN_SERVICE = "cred-auth";

/** The keychain entry a cache file names. */
export interface KeychainEntry {
  service: string;
  /** The cache file's absolute path. */
  account: string;
  /** Random per save: the file and the entry of one save carry the same. */
  id: string;
}

/** A cache file in the keychain form: the file's non-secret fields and its entry. */
export interface KeychainCacheFile {
  /** The file's fields, checked as an `authorized_user` file's; its two secrets are empty until read. */
  fields: Omit<AuthorizedUserFile, "clientSecret" | "refreshToken" | "idToken">;
  entry: KeychainEntry;
}

/** The two secrets the keychain holds for a cache file. */
export interface KeychainSecrets {
  refreshToken: string;
  clientSecret: string;
}

const ID = /^[0-9a-f]{32}$/;

/** Whether parsed JSON is in the keychain form (the field is there; {@link parseKeychainCacheText} checks the rest). */
export function isKeychainForm(json: unknown): boolean {
  return typeof json === "object" && json !== null && KEYCHAIN_FIELD in json;
}

/** The file's text in the keychain form: `file` without its secrets, with `entry`. */
export function keychainCacheJson(file: AuthorizedUserFile, entry: KeychainEntry): string {
  const {
    client_secret: _s,
    refresh_token: _r,
    ...rest
  } = JSON.parse(userCredentialsJson(file)) as Record<string, unknown>;
  delete rest.id_token;
  return `${JSON.stringify({ ...rest, [KEYCHAIN_FIELD]: entry }, null, 2)}\n`;
}

/**
 * Parses a keychain-form cache file. Its fields are checked by the `authorized_user` parser (with
 * stand-ins for the two secrets); a file that also holds a secret, or whose entry is not named
 * after the file itself, is refused.
 */
export function parseKeychainCacheText(text: string, path: string): KeychainCacheFile {
  const json = JSON.parse(text) as Record<string, unknown>;
  const { [KEYCHAIN_FIELD]: entry, ...rest } = json;
  if ("refresh_token" in rest || "client_secret" in rest)
    throw invalid(path, `holds both "${KEYCHAIN_FIELD}" and a secret; sign in again`);
  const parsed = parseCredentialsText(JSON.stringify({ ...rest, client_secret: "-", refresh_token: "-" }), path);
  if (parsed.type !== "authorized_user") throw invalid(path, `has "${KEYCHAIN_FIELD}" but is not "authorized_user"`);
  const { clientSecret: _s, refreshToken: _r, idToken: _i, ...fields } = parsed;
  return { fields, entry: checkedEntry(entry, path) };
}

/** The keychain-form cache file at `path`, or undefined when the file is not in that form (or unreadable). */
export async function readKeychainCacheFile(
  path: string,
  options: { privateOnly?: boolean } = {},
): Promise<KeychainCacheFile | undefined> {
  let text: string;
  try {
    text = (
      await readTrustedFile(path, {
        maxBytes: MAX_CREDENTIALS_FILE_BYTES,
        keeper: options.privateOnly ? "cred-auth" : "anyone",
      })
    ).toString("utf8");
  } catch {
    return undefined;
  }
  return keychainFormOf(text, path);
}

/** {@link readKeychainCacheFile}, synchronously (any reader). */
export function readKeychainCacheFileSync(path: string): KeychainCacheFile | undefined {
  let text: string;
  try {
    text = readTrustedFileSync(path, { maxBytes: MAX_CREDENTIALS_FILE_BYTES, keeper: "anyone" }).toString("utf8");
  } catch {
    return undefined;
  }
  return keychainFormOf(text, path);
}

/** What stands in for the refresh token in the access-token cache's key of a keychain-form file. */
export function tokenCacheStandIn(entry: KeychainEntry): string {
  return `cred-auth-keychain:${entry.id}`;
}

function keychainFormOf(text: string, path: string): KeychainCacheFile | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isKeychainForm(json) ? parseKeychainCacheText(text, path) : undefined;
}

function checkedEntry(value: unknown, path: string): KeychainEntry {
  const entry = value as Partial<Record<keyof KeychainEntry, unknown>> | null;
  if (
    typeof entry !== "object" ||
    entry === null ||
    entry.service !== KEYCHAIN_SERVICE ||
    typeof entry.id !== "string" ||
    !ID.test(entry.id)
  )
    throw invalid(path, `has a malformed "${KEYCHAIN_FIELD}"; sign in again`);
  if (entry.account !== resolve(path))
    throw invalid(
      path,
      "names the keychain entry of another file; only the credentials cache file's own entry is read",
    );
  return { service: entry.service, account: entry.account, id: entry.id };
}

export function invalid(path: string, problem: string): CredCredentialsError {
  return new CredCredentialsError(`The credentials file ${quoted(path)} ${problem}.`, {
    code: ERROR_CODES.FILE_INVALID,
  });
}
