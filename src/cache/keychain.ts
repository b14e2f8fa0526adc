// The credentials cache's secrets in the operating system's keychain (docs/caching.md, "Where the
// refresh token is kept"). Loaded by a disk cache only when a refresh token is read or written:
// default()'s warm path and print-token's cached path never load it.
import { existsSync, unlinkSync } from "node:fs";
import { resolve } from "node:path";
import type { UserRefreshClient } from "google-auth-library";
import { tokenCacheKey, writeCachedToken } from "../token-cache/index.js";
import type { AuthorizedUserFile } from "../formats/credentials-file.js";
import {
  KEYCHAIN_SERVICE,
  type KeychainEntry,
  keychainCacheJson,
  readKeychainCacheFile,
  tokenCacheStandIn,
} from "../formats/keychain-cache-file.js";
import { keychainSecretJson, newKeychainEntry } from "../formats/keychain-secrets.js";
import { recordStandIn } from "../formats/keychain-stand-in.js";
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { keychain, keychainAbsence } from "../util/keychain.js";
import { quoted } from "../trust/text.js";
import { writeCredentialsText, writeUserCredentialsFile } from "../formats/credentials-file.js";
import type { SecretStore } from "./secret-store.js";

/** `code` of the one note saying the keychain is not used (and why). */
export const KEYCHAIN_NOTE_CODE = "CRED_AUTH_KEYCHAIN";

/** Why `auto` found no usable keychain in this process: asked once, said once. */
let unusable: string | undefined;

/**
 * Writes `file` to the cache file at `path`: with `keychain` or a usable keychain under `auto`, its
 * refresh token and client secret go into the keychain and the file keeps the rest and the entry's
 * name; else the whole file, as gcloud writes it. Then forgets what no file names any more: the
 * entry of a file saved whole now, and entries whose file is gone.
 *
 * @throws CredCredentialsError `ERR_KEYCHAIN_UNAVAILABLE` with `keychain` when no keychain answers.
 */
export async function saveCacheFile(
  path: string,
  file: AuthorizedUserFile,
  store: SecretStore,
  credentials: UserRefreshClient,
): Promise<void> {
  const entry = store === "file" ? undefined : await storeSecrets(path, file, store);
  if (entry === undefined) {
    await writeUserCredentialsFile(path, file);
    if (store === "file" || unusable === undefined) await forgetEntry(path);
    return;
  }
  try {
    await writeCredentialsText(path, keychainCacheJson(file, entry));
  } catch (error) {
    await forgetEntry(path); // the file was not written: nothing may name the entry
    throw error;
  }
  shareStandIn(credentials, file, entry);
  await forgetStaleEntries(path);
}

/**
 * Removes the cache file at `path` and its keychain entry, then entries whose file is gone.
 * True when there was a file.
 */
export async function deleteCacheFile(path: string): Promise<boolean> {
  let removed = true;
  try {
    unlinkSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT")
      throw new CredCredentialsError(
        `The credentials cache file ${quoted(path)} could not be removed (${typeof code === "string" ? code : "unexpected error"}); delete it yourself.`,
        { code: ERROR_CODES.FILE_UNWRITABLE, cause: error },
      );
    removed = false;
  }
  await forgetEntry(path);
  await forgetStaleEntries(path);
  return removed;
}

/**
 * Removes the keychain entry of the cache file at `path`, if there is one (`cred-auth revoke`,
 * after it removed the file). Never throws: an entry that stays is found by the next save.
 */
export async function forgetEntry(path: string): Promise<boolean> {
  if (keychainAbsence() !== undefined) return false;
  const reply = await keychain(KEYCHAIN_SERVICE, { op: "delete", account: resolve(path) });
  return reply.ok && reply.deleted === true;
}

/** The keychain entry for `file`, or undefined when `auto` found none usable (said once). */
async function storeSecrets(
  path: string,
  file: AuthorizedUserFile,
  store: Exclude<SecretStore, "file">,
): Promise<KeychainEntry | undefined> {
  if (store === "auto" && unusable !== undefined) return undefined;
  const entry = newKeychainEntry(path);
  const reply = await keychain(KEYCHAIN_SERVICE, {
    op: "set",
    account: entry.account,
    secret: keychainSecretJson(file, entry),
  });
  if (reply.ok) return entry;
  if (store === "keychain")
    throw new CredCredentialsError(
      `The refresh token was to be kept in the keychain (secret store "keychain"), which could not be used: ${reply.why}. Nothing was saved. Unlock or start the keychain, or choose the file (CRED_AUTH_SECRET_STORE=file).`,
      { code: ERROR_CODES.KEYCHAIN_UNAVAILABLE },
    );
  unusable = reply.why;
  process.emitWarning(
    `The refresh token is kept in the credentials cache file (mode 0600), not in the keychain: ${reply.why}. Set CRED_AUTH_SECRET_STORE=file to keep it there without this note.`,
    { type: "CredAuthWarning", code: KEYCHAIN_NOTE_CODE },
  );
  return undefined;
}

/**
 * The access token of a fresh sign-in goes into the access-token cache under the key a later
 * process computes from the file alone (the save's id), and the client keeps that key.
 */
function shareStandIn(credentials: UserRefreshClient, file: AuthorizedUserFile, entry: KeychainEntry): void {
  const standIn = tokenCacheStandIn(entry);
  recordStandIn(credentials, standIn);
  const { access_token: accessToken, expiry_date: expiryDate } = credentials.credentials;
  if (!accessToken || typeof expiryDate !== "number") return;
  const scopes = [...(file.scopes ?? [])];
  try {
    writeCachedToken(
      tokenCacheKey({ type: "authorized_user", clientId: file.clientId, refreshToken: standIn }, scopes, file.tokenUrl),
      { access_token: accessToken, expiry_date: expiryDate, token_type: "Bearer", scopes },
    );
  } catch {
    // the token cache is an optimisation
  }
}

/**
 * Removes cred-auth's keychain entries that no file names any more: the file is gone (a home
 * directory removed, a file deleted by hand) or no longer in the keychain form naming itself.
 * `path`, just saved, is kept. Never throws.
 */
async function forgetStaleEntries(path: string): Promise<void> {
  const listed = await keychain(KEYCHAIN_SERVICE, { op: "accounts" });
  if (!listed.ok) return;
  for (const account of listed.accounts ?? []) {
    if (account === resolve(path) || !(await isStale(account))) continue;
    await keychain(KEYCHAIN_SERVICE, { op: "delete", account });
  }
}

async function isStale(account: string): Promise<boolean> {
  if (!existsSync(account)) return true;
  try {
    return (await readKeychainCacheFile(account))?.entry.account !== account;
  } catch {
    return false; // a file that names the entry but cannot be parsed: its owner's next save decides
  }
}
