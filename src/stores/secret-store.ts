// The interface of a secret store: where a disk cache keeps its file and the two secrets of user
// credentials. The built-in stores and the choice among them: ./index.ts.
import type { AuthorizedUserFile } from "../credentials/kinds/user/file.js";

/** The two secrets of user credentials, which a store may keep outside the cache file. */
export interface UserSecrets {
  /** The refresh token of the sign-in. */
  refreshToken: string;
  /** The OAuth client's secret. */
  clientSecret: string;
}

/** User credentials a {@link SecretStore} loaded: their fields now, their secrets when first needed. */
export interface StoredCredentials {
  /** The cache file's fields, without its two secrets. */
  fields: Omit<AuthorizedUserFile, "clientSecret" | "refreshToken">;
  /** Reads the two secrets: called once, on the first refresh (or at once, without `standIn`). */
  secrets(): Promise<UserSecrets>;
  /**
   * What keys these credentials in the token cache instead of their refresh token, so that a warm
   * start finds its access token without reading a secret. Absent: the secrets are read at load.
   */
  standIn?: string;
}

/**
 * Where a disk cache keeps its file and the two secrets of user credentials (a cache's `secretStore`
 * option). The built-in stores are named ({@link SecretStoreName}); write your own to keep the
 * secrets elsewhere (a vault, a password manager), as you can write your own `CredentialsCache`.
 * Errors should be `CredAuthError`s with a `code`, and messages must never hold a secret.
 */
export interface SecretStore {
  /** The credentials cached at `path`, or null when there are none. Throws when they are unusable. */
  load(path: string): Promise<StoredCredentials | null>;
  /**
   * Keeps `credentials` as the cache file at `path`, their secrets where this store keeps them.
   * Resolves the token cache's stand-in for the refresh token, when the file does not hold it.
   */
  save(path: string, credentials: AuthorizedUserFile): Promise<string | undefined>;
  /** Removes the cache file at `path` and its secrets; true when there was a file. */
  delete(path: string): Promise<boolean>;
}
