import type { UserRefreshClient } from "google-auth-library";

/**
 * Where user credentials are cached. This base class is also the no-op cache
 * ({@link cache.NOOP}): `load()` never finds credentials and `save()` writes nothing.
 * Subclass it to keep credentials elsewhere (a secret store, memory).
 */
export class CredentialsCache {
  /** Cached user credentials, or `null` when there are none. The base class always resolves `null`. */
  async load(): Promise<UserRefreshClient | null> {
    return null;
  }

  /** Stores user credentials. The base class does nothing. */
  async save(_credentials: UserRefreshClient): Promise<void> {}
}
