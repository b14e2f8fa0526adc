import { homedir } from "node:os";
import { type Stats, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { UserRefreshClient } from "google-auth-library";
import { CredAuthError } from "../errors.js";
import { quoted } from "../trust/text.js";
import { CredentialsCache } from "./base.js";
import { getCredentialInfo, setCredentialInfo } from "../protocols/info.js";
import { displaySafe } from "../protocols/display-safe.js";
import {
  authorizedUserFileFrom,
  readPendingSecrets,
  userRefreshClientFrom,
  userRefreshClientWithLazySecrets,
} from "../credentials/kinds/user/client.js";
import { recordStandIn } from "../formats/stand-in.js";
import { ownershipProblem } from "../trust/files.js";
import { cacheSignInToken } from "../credentials/kinds/user/shared-tokens.js";
import {
  type SecretStore,
  type SecretStoreName,
  checkedSecretStore,
  chooseSecretStore,
  readingStore,
} from "../stores/index.js";

/** Default directory name of the disk caches, under the configuration directory. */
export const DEFAULT_CACHE_DIRNAME = "cred";
/** Default file name of the disk caches. */
export const DEFAULT_CACHE_FILENAME = "cred_credentials.json";
/** `code` of the warning emitted when a cache file is unusable. */
export const CACHE_WARNING_CODE = "CRED_AUTH_CACHE";

/** Constructor options of the disk caches. */
export interface CredentialsCacheOptions {
  /** Directory under the configuration directory. Default `cred`. */
  dirname?: string;
  /** File name of the cache file. Default `cred_credentials.json`. */
  filename?: string;
  /**
   * Where the refresh token and client secret are kept: a built-in store's name ({@link SecretStoreName}),
   * or a {@link SecretStore} of your own. Default: `CRED_AUTH_SECRET_STORE`, else the `secret-store`
   * setting, else `auto` (docs/caching.md).
   */
  secretStore?: SecretStoreName | SecretStore;
}

/**
 * The configuration directory the disk caches live under: `$HOME/.config`, or on Windows
 * `%APPDATA%/.config`. Read when asked, never at import.
 */
export function configDirectory(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (platform === "win32") return join(env.APPDATA || join(homedir(), "AppData", "Roaming"), ".config");
  return join(homedir(), ".config");
}

/**
 * What both disk caches share: the file location and `save()`. The file is an ADC
 * `authorized_user` file (it also records the scopes and the client id), written
 * atomically with mode 0600 in a directory created with mode 0700.
 */
export class FileCredentialsCache extends CredentialsCache {
  /** Directory name under the configuration directory. */
  readonly dirname: string;
  /** File name of the cache file. */
  readonly filename: string;
  /** Where the secrets go, when the constructor was told (else decided on each use). */
  readonly secretStore: SecretStoreName | SecretStore | undefined;

  constructor(options?: CredentialsCacheOptions);
  constructor(dirname?: string, filename?: string);
  constructor(dirnameOrOptions?: string | CredentialsCacheOptions, filename?: string) {
    super();
    const options =
      typeof dirnameOrOptions === "object" && dirnameOrOptions !== null
        ? dirnameOrOptions
        : { dirname: dirnameOrOptions, filename };
    this.dirname = pathPart(options.dirname ?? DEFAULT_CACHE_DIRNAME, "dirname");
    this.filename = pathPart(options.filename ?? DEFAULT_CACHE_FILENAME, "filename");
    this.secretStore =
      options.secretStore === undefined
        ? undefined
        : checkedSecretStore(options.secretStore, "The cache's secretStore");
  }

  /** `$HOME/.config/<dirname>/<filename>` (Windows: `%APPDATA%/.config/...`), computed on each access. */
  get path(): string {
    return join(configDirectory(), this.dirname, this.filename);
  }

  /**
   * Writes the credentials' refresh token, client, scopes and account to the cache file: ours, or
   * a `UserRefreshClient` the caller built with google-auth-library (its client id, secret and
   * refresh token read from its public fields).
   */
  override async save(credentials: UserRefreshClient): Promise<void> {
    const path = this.path;
    await readPendingSecrets(credentials); // credentials loaded with their secrets elsewhere, not refreshed yet
    const file = authorizedUserFileFrom(credentials, path);
    const standIn = await chooseSecretStore(this.secretStore).save(path, file);
    // A fresh sign-in's access token, under the key the next process computes from the file alone.
    const { access_token: accessToken, expiry_date: expiryDate } = credentials.credentials;
    if (standIn !== undefined) recordStandIn(credentials, standIn);
    if (standIn !== undefined && accessToken)
      cacheSignInToken({ ...file, refreshToken: standIn }, { accessToken, ...(expiryDate ? { expiryDate } : {}) });
    const info = getCredentialInfo(credentials);
    setCredentialInfo(credentials, { scopes: info?.scopes ?? [], ...info, path });
  }

  /** Removes the cache file and the secrets its store keeps elsewhere. Resolves true when there was a file. */
  async delete(): Promise<boolean> {
    return readingStore(this.secretStore).delete(this.path);
  }
}

/**
 * Reads cached credentials from disk and writes them there (the default, {@link READ_WRITE}).
 * A missing file is "no credentials"; an unusable one (corrupt, truncated, empty, another
 * type, unreadable, another user's, writable by group or others) too, with one warning
 * (`process.emitWarning`, code `CRED_AUTH_CACHE`), and the next save replaces it. A cache
 * directory that others may write is warned about as well.
 */
export class ReadWriteCredentialsCache extends FileCredentialsCache {
  /**
   * The cached credentials, or `null`. No server is contacted: the scopes they were granted
   * are in their `CredentialInfo`, so callers can check them before use.
   */
  override async load(): Promise<UserRefreshClient | null> {
    const path = this.path;
    warnIfSharedDirectory(path);
    try {
      const stored = await readingStore(this.secretStore).load(path);
      if (stored === null) return null;
      // A token_uri or universe the URL policy refuses makes the file as unusable as a malformed one.
      // They leave the library here: displayed, they show a summary, never a secret.
      // Their secrets read now, or on the first refresh when a stand-in keys them.
      const { fields, standIn } = stored;
      if (standIn !== undefined)
        return displaySafe(await userRefreshClientWithLazySecrets(fields, standIn, () => stored.secrets(), { path }));
      return displaySafe(await userRefreshClientFrom({ ...fields, ...(await stored.secrets()) }, { path }));
    } catch (error) {
      if (!(error instanceof CredAuthError)) throw error;
      process.emitWarning(`Ignoring the cached credentials: ${error.message} The next sign-in replaces the file.`, {
        type: "CredAuthWarning",
        code: CACHE_WARNING_CODE,
      });
      return null;
    }
  }
}

/**
 * Writes credentials to disk and never reads them (`load()` resolves `null`), so every call
 * signs in again and refreshes the cached file ({@link REAUTH}).
 */
export class WriteOnlyCredentialsCache extends FileCredentialsCache {}

/** Someone who may write the directory may replace the cache file between two runs. */
function warnIfSharedDirectory(path: string): void {
  let stats: Stats;
  try {
    stats = statSync(dirname(path));
  } catch {
    return;
  }
  const writable = ownershipProblem(stats);
  if (!writable) return;
  process.emitWarning(
    `The credentials cache directory ${quoted(dirname(path))} ${writable}: others could plant credentials there. Run chmod 700 on it (it must be yours).`,
    { type: "CredAuthWarning", code: CACHE_WARNING_CODE },
  );
}

function pathPart(value: unknown, name: string): string {
  if (typeof value !== "string" || value.trim() === "" || value.includes("\0")) {
    throw new TypeError(`The cache's ${name} must be a non-empty string.`);
  }
  return value;
}
