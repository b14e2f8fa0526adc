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
 * The client credentials and refresh token a client was built with. google-auth-library keeps
 * them in private fields; we keep our own record when we build a client (protocols/load-user.ts),
 * apart from {@link CredentialInfo} so that no secret sits in the record that describes it.
 */
export interface ClientSecrets {
  clientId: string;
  clientSecret: string;
  refreshToken: string;
}

const secrets = new WeakMap<object, ClientSecrets>();

export function recordClientSecrets(client: object, record: ClientSecrets): void {
  secrets.set(client, record);
}

export function clientSecretsOf(client: object): ClientSecrets | undefined {
  return secrets.get(client);
}

/**
 * The refresh token `client` holds: in its credentials (a newer one after a refresh), or the
 * one we built it with (`UserRefreshClient` keeps that one privately until its first refresh).
 */
export function refreshTokenOf(client: OAuth2Client): string | undefined {
  return client.credentials.refresh_token ?? secrets.get(client)?.refreshToken ?? undefined;
}
