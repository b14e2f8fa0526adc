import type { OAuth2Client } from "google-auth-library";

/**
 * What we know about a credentials object beyond what google-auth-library keeps: the scopes
 * it was granted, the client it belongs to, the account. Kept beside the object, not on it.
 */
export interface CredentialInfo {
  scopes: readonly string[];
  clientId?: string;
  account?: string;
  tokenUrl?: string;
  /** Where it was loaded from or saved to. */
  path?: string;
}

const infos = new WeakMap<object, CredentialInfo>();

export function setCredentialInfo(credentials: object, info: CredentialInfo): void {
  infos.set(credentials, info);
}

export function getCredentialInfo(credentials: object): CredentialInfo | undefined {
  return infos.get(credentials);
}

/**
 * The refresh token `client` holds: in its credentials, or only given to its constructor
 * (`UserRefreshClient` keeps that one privately until its first refresh).
 */
export function refreshTokenOf(client: OAuth2Client): string | undefined {
  return client.credentials.refresh_token ?? (client as { _refreshToken?: string | null })._refreshToken ?? undefined;
}
