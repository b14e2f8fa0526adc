import type { UserRefreshClient } from "google-auth-library";

/**
 * Where user credentials are cached. This base class is also the no-op cache
 * ({@link NOOP}): it never finds credentials and never writes any.
 */
export class CredentialsCache {
  /** Cached user credentials, or `null` when there are none. */
  async load(): Promise<UserRefreshClient | null> {
    return null;
  }

  /** Stores user credentials. The base class does nothing. */
  async save(_credentials: UserRefreshClient): Promise<void> {}
}
