/**
 * Credentials caches: where `getUserCredentials()` and `default()` keep user
 * credentials between runs. See docs/caching.md.
 *
 * ```ts
 * import { cache, getUserCredentials } from "cred-auth";
 * await getUserCredentials(scopes, { credentialsCache: cache.NOOP }); // shared machine: keep nothing
 * ```
 *
 * @packageDocumentation
 */
import { CredentialsCache } from "./base.js";
import { ReadWriteCredentialsCache, WriteOnlyCredentialsCache } from "./disk.js";

export { CredentialsCache, ReadWriteCredentialsCache, WriteOnlyCredentialsCache };
export {
  FileCredentialsCache,
  DEFAULT_CACHE_DIRNAME,
  DEFAULT_CACHE_FILENAME,
  CACHE_WARNING_CODE,
  configDirectory,
} from "./disk.js";
export type { CredentialsCacheOptions } from "./disk.js";
export type { SecretStore, SecretStoreName, StoredCredentials, UserSecrets } from "../stores/index.js";
export type { AuthorizedUserFile } from "../credentials/kinds/user/file.js";

/** Always reauthorizes and never writes credentials to disk. Recommended for shared machines. */
export const NOOP: CredentialsCache = new CredentialsCache();

/**
 * Reads credentials from and writes them to `$HOME/.config/cred/cred_credentials.json`.
 * The default cache.
 */
export const READ_WRITE: ReadWriteCredentialsCache = new ReadWriteCredentialsCache();

/** Writes credentials to disk and never reads them: every call signs in again. */
export const REAUTH: WriteOnlyCredentialsCache = new WriteOnlyCredentialsCache();
