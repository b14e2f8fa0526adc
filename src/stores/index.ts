// Where a cache file's secrets rest (docs/caching.md): the built-in stores, and the one place that chooses
// among them: a save in the settings order (option > CRED_AUTH_SECRET_STORE > the `secret-store` setting >
// auto), a read by the file's own form. Only a keychain-form file, or a save that may use the keychain,
// loads the keychain store (.dependency-cruiser.cjs lets this module read the settings).
import { type ReadCredentialsOptions, readCredentialsBytesSync, writeUserCredentialsFile } from "./credentials-file.js";
import { CredAuthError, ERROR_CODES } from "../errors.js";
import { SECRET_STORES } from "../settings/keys.js";
import { chosen } from "../settings/order.js";
import { readSetting } from "../settings/read.js";
import { ENV } from "../shared/constants.js";
import { unlinkSync } from "node:fs";
import { join } from "node:path";
import { settingsDirectory } from "../settings/paths.js";
import { readTrustedFileSync } from "../trust/files.js";
import { printable } from "../trust/text.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import { standInOf } from "../formats/stand-in.js";
import { parseCacheBytes, removeCacheFile } from "./file.js";
import {
  deleteCacheFile as deleteKeychainForm,
  keychainFallback,
  saveCacheFile as saveKeychainForm,
  storedFromBytes as keychainStored,
  userFileSync as keychainUserFileSync,
} from "./keychain.js";
import { keychainAbsence } from "../os/keychain.js";
import type { SecretStore } from "./secret-store.js";

export type { SecretStore, StoredCredentials, UserSecrets } from "./secret-store.js";

/**
 * The built-in stores: `auto` (the OS keychain when one answers and is yours, else the file),
 * `keychain` (the keychain, or an `ERR_KEYCHAIN_UNAVAILABLE` error), `file` (the file, as gcloud keeps it).
 */
export type SecretStoreName = "auto" | "keychain" | "file";

/** The field of a cache file whose secrets are in the keychain (stores/keychain.ts). */
const KEYCHAIN_FIELD = "cred_auth_keychain";

/** `value` (a cache's option) as a store: a built-in's name, checked, or a store of the caller's own. */
export function checkedSecretStore(value: unknown, where: string): SecretStoreName | SecretStore {
  if (typeof value === "object" && value !== null && ["load", "save", "delete"].every((m) => m in value))
    return value as SecretStore;
  SECRET_STORES satisfies readonly SecretStoreName[]; // the setting's values (settings/keys.ts cannot name the type)
  const store = SECRET_STORES.find((s) => s === value);
  if (store !== undefined) return store;
  throw new CredAuthError(
    `${where} is ${printable(JSON.stringify(value) ?? String(value))}; it must be one of ${SECRET_STORES.join(", ")}, or a SecretStore.`,
    { code: ERROR_CODES.INVALID_OPTION },
  );
}

/** The store a cache loads and deletes with: its own, else the built-in that reads every form. */
export function readingStore(option: SecretStoreName | SecretStore | undefined): SecretStore {
  return typeof option === "object" ? option : builtIn("auto");
}

/** The store `option` (a cache's `secretStore`), the environment or the settings choose for a save; `auto` when none says. */
export function chooseSecretStore(
  option: SecretStoreName | SecretStore | undefined,
  env: NodeJS.ProcessEnv = process.env,
): SecretStore {
  const store =
    chosen(
      option,
      () => fromEnv(env),
      () => readSetting("secret-store", env),
    ) ?? "auto";
  return typeof store === "string" ? builtIn(store) : store;
}

/** A built-in store: saves where its name says; loads whatever form the file is in. */
function builtIn(name: SecretStoreName): SecretStore {
  return {
    async load(path) {
      const bytes = cacheBytes(path, true);
      if (bytes === undefined) return null;
      return inKeychainForm(bytes) ? keychainStored(bytes, path) : parseCacheBytes(bytes, path);
    },
    async save(path, credentials) {
      // `file`, and `auto` with no keychain to ask, load the keychain store only to move a file out of its form.
      const absent = name === "auto" ? keychainAbsence() : undefined;
      if ((name === "file" || absent !== undefined) && !inKeychainForm(cacheBytes(path))) {
        await writeUserCredentialsFile(path, credentials);
        await rememberNote(absent);
        return undefined;
      }
      const standIn = await saveKeychainForm(path, credentials, name);
      await rememberNote(standIn === undefined ? keychainFallback() : undefined);
      return standIn;
    },
    async delete(path) {
      if (!inKeychainForm(cacheBytes(path))) return removeCacheFile(path);
      return deleteKeychainForm(path);
    },
  };
}

/**
 * The credentials file at `path`, read once under the file-trust rule and parsed by `parse`; a cache file in
 * the keychain form has its two secrets read from the keychain when first used.
 */
export function readStoredFileSync<F>(
  path: string,
  parse: (bytes: Buffer, path: string) => F,
  options: ReadCredentialsOptions = {},
): F | ReturnType<typeof keychainUserFileSync> {
  const bytes = readCredentialsBytesSync(path, options);
  return inKeychainForm(bytes) ? keychainUserFileSync(path) : parse(bytes, path);
}

/**
 * Forgets the secrets a store keeps elsewhere for `file` (read by {@link readStoredFileSync}), once
 * the file at `path` is gone (`revoke`). Never throws: an entry left behind is found by a later save.
 */
export async function forgetStoredSecrets(file: object, path: string): Promise<void> {
  if (standInOf(file) !== undefined) await deleteKeychainForm(path, file).catch(() => false);
}

/**
 * Where the secrets of user credentials read by {@link readStoredFileSync} are kept, in words for
 * `status`: in the keychain, or (for the credentials cache's own file, `cache`) in the file and why.
 * The why is the note `auto` remembered when it last fell back: said there, never as a warning in
 * the caller's output (a notebook's cell).
 */
export function secretsWhere(file: object, cache: boolean, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (standInOf(file) !== undefined) return "in the OS keychain (the file names its entry)";
  const note = cache ? rememberedNote(env) : undefined;
  return note === undefined ? undefined : `in this file, not in the keychain: ${note}`;
}

function rememberedNote(env: NodeJS.ProcessEnv): string | undefined {
  try {
    return readTrustedFileSync(notePath(env), { maxBytes: 1024, keeper: "cred-auth" }).toString().trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Remembers (beside the settings: ours, 0600) why `auto` fell back, or forgets it after a keychain save. */
async function rememberNote(why: string | undefined): Promise<void> {
  if (why === rememberedNote(process.env)) return;
  try {
    if (why === undefined) unlinkSync(notePath(process.env));
    else await writeFileAtomic(notePath(process.env), `${why}\n`);
  } catch {
    // a note, not a secret: nothing is lost without it
  }
}

function notePath(env: NodeJS.ProcessEnv): string {
  return join(settingsDirectory(env), "keychain-note");
}

/**
 * The bytes of the cache file at `path` (ours and private), or undefined when there is none; when
 * it cannot be read, the error with `loading`, else undefined (a save or delete replaces it whole).
 */
function cacheBytes(path: string, loading = false): Buffer | undefined {
  try {
    return readCredentialsBytesSync(path, { privateOnly: true });
  } catch (error) {
    if (!loading || (error as { problem?: string }).problem === "missing") return undefined;
    throw error;
  }
}

function inKeychainForm(bytes: Buffer | undefined): boolean {
  if (bytes === undefined) return false;
  try {
    const json: unknown = JSON.parse(bytes.toString("utf8"));
    return typeof json === "object" && json !== null && KEYCHAIN_FIELD in json;
  } catch {
    return false;
  }
}

function fromEnv(env: NodeJS.ProcessEnv): SecretStoreName | undefined {
  const value = env[ENV.secretStore]?.trim();
  return value ? (checkedSecretStore(value, ENV.secretStore) as SecretStoreName) : undefined;
}
