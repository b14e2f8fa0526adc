import type { OAuth2Client } from "google-auth-library";

/** What we know of a credentials object beyond google-auth-library's record, kept beside it: scopes, client, account. */
export interface CredentialInfo {
  scopes: readonly string[];
  clientId?: string;
  account?: string;
  tokenUrl?: string;
  /** Where it was loaded from or saved to. */
  path?: string;
  /** What it is, said by what built it: its ADC type, "metadata server", "ID token". */
  type?: string;
}

const infos = new WeakMap<object, CredentialInfo>();

export function setCredentialInfo(credentials: object, info: CredentialInfo): void {
  infos.set(credentials, info);
}

export function getCredentialInfo(credentials: object): CredentialInfo | undefined {
  return infos.get(credentials);
}

/** Records what `credentials` is (its ADC type, "metadata server", "ID token"): it knows its own kind. */
export function recordType<C extends object>(credentials: C, type: string): C {
  infos.set(credentials, { scopes: [], ...infos.get(credentials), type });
  return credentials;
}

/** The secrets a client was built with (google-auth-library keeps them private), apart from its description. */
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

/** The refresh token `client` holds: a newer one after a refresh, else the one it was built with. */
export function refreshTokenOf(client: OAuth2Client): string | undefined {
  return client.credentials.refresh_token ?? secrets.get(client)?.refreshToken ?? undefined;
}
