// Reading and writing the secrets of a keychain-form cache file (./keychain-cache-file.ts) in the
// operating system's keychain (util/keychain.ts): loaded only when a refresh token is read or written.
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { quoted } from "../trust/text.js";
import { type KeychainReply, keychain, keychainSync } from "../util/keychain.js";
import type { AuthorizedUserFile } from "./credentials-file.js";
import {
  KEYCHAIN_FIELD,
  KEYCHAIN_SERVICE,
  type KeychainCacheFile,
  type KeychainEntry,
  type KeychainSecrets,
  invalid,
  readKeychainCacheFileSync,
  tokenCacheStandIn,
} from "./keychain-cache-file.js";
import { recordStandIn } from "./keychain-stand-in.js";

/** A fresh entry for the cache file at `path`. */
export function newKeychainEntry(path: string): KeychainEntry {
  return { service: KEYCHAIN_SERVICE, account: resolve(path), id: randomBytes(16).toString("hex") };
}

/** What the keychain entry holds: both secrets and the save's id. */
export function keychainSecretJson(file: AuthorizedUserFile, entry: KeychainEntry): string {
  return JSON.stringify({ id: entry.id, refresh_token: file.refreshToken, client_secret: file.clientSecret });
}

/** The whole `authorized_user` file: the form's fields and the secrets read from its keychain entry. */
export async function withKeychainSecrets(form: KeychainCacheFile, path: string): Promise<AuthorizedUserFile> {
  return joined(
    form,
    secretsOf(await keychain(KEYCHAIN_SERVICE, { op: "get", account: form.entry.account }), form, path),
  );
}

/** {@link withKeychainSecrets}, synchronously (`status`, `print-identity-token`, `revoke` read files so). */
export function withKeychainSecretsSync(form: KeychainCacheFile, path: string): AuthorizedUserFile {
  return joined(
    form,
    secretsOf(keychainSync(KEYCHAIN_SERVICE, { op: "get", account: form.entry.account }), form, path),
  );
}

/**
 * The `authorized_user` file of a keychain-form file for any reader (`status`, `print-token`,
 * `print-identity-token`, `revoke`): its `refresh_token` and `client_secret` are read from the
 * keychain when first used, so a token found in the access-token cache (keyed by the save's id)
 * costs no keychain read.
 */
export function keychainUserFileSync(path: string): AuthorizedUserFile {
  const form = readKeychainCacheFileSync(path);
  if (form === undefined) throw invalid(path, `could not be read as a cache file with "${KEYCHAIN_FIELD}"`);
  let secrets: KeychainSecrets | undefined;
  const read = (): KeychainSecrets => {
    secrets ??= withKeychainSecretsSync(form, path);
    return secrets;
  };
  const file = { ...form.fields } as AuthorizedUserFile;
  for (const name of ["clientSecret", "refreshToken"] as const)
    Object.defineProperty(file, name, { enumerable: true, get: () => read()[name] });
  recordStandIn(file, tokenCacheStandIn(form.entry));
  return file;
}

function secretsOf(reply: KeychainReply, form: KeychainCacheFile, path: string): KeychainSecrets {
  if (!reply.ok)
    throw new CredCredentialsError(
      `The refresh token of ${quoted(path)} is in the keychain, which could not be read: ${reply.why}. Unlock the keychain, or sign in again.`,
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

function joined(form: KeychainCacheFile, secrets: KeychainSecrets): AuthorizedUserFile {
  return { ...form.fields, ...secrets };
}
