import type { OAuth2Client, UserRefreshClient } from "google-auth-library";
// The user kind's google-auth-library client: a `UserRefreshClient` from an `authorized_user` file (the
// public loadUserCredentials), one whose secrets a store reads on first use, and the file a client makes.
import { CredCredentialsError, ERROR_CODES } from "../../../errors.js";
import { credentialsTokenUrl } from "../../../formats/destinations.js";
import { recordStandIn } from "../../../formats/stand-in.js";
import { clientTransport } from "../../../protocols/client-transport.js";
import { resolveEndpoints } from "../../../protocols/endpoints.js";
import {
  clientSecretsOf,
  getCredentialInfo,
  recordClientSecrets,
  refreshTokenOf,
  setCredentialInfo,
} from "../../../protocols/info.js";
import {
  chooseTokenUrl,
  guardTokenRequests,
  proveCredentials,
  tokenTimeoutMs,
} from "../../../protocols/token-requests.js";
import { readAuthorizedUserFile } from "../../../stores/credentials-file.js";
import { getTokenWithCache, tokenCacheKey } from "../../../token-cache/index.js";
import { trustedUniverse } from "../../../trust/urls.js";
import { loadUserRefreshClient } from "../../../util/lazy.js";
import { type ClientOptions, type LoadCredentialsOptions, universeFor } from "../google-credentials.js";

export type { LoadCredentialsOptions };
import { type AuthorizedUserFile, authorizedUserFile } from "./file.js";

/**
 * Loads user credentials from an `authorized_user` JSON file (written by `cred-auth login`,
 * `saveUserCredentials`, gcloud or pydata-google-auth) and proves they work by obtaining an
 * access token from the file's `token_uri` (Google's when it has none; a `token_uri` or
 * `universe_domain` outside the trusted universe is refused with a `CredAuthError` whose code is
 * `ERR_UNSAFE_TOKEN_URL` or `ERR_UNTRUSTED_UNIVERSE`).
 *
 * @throws CredCredentialsError when the file is missing or malformed, or the token server
 * rejects the credentials (`invalid_grant`: expired or revoked; `invalid_client`).
 * @throws CredConnectionError when the token server cannot be reached, fails or times out.
 */
export async function loadUserCredentials(
  path: string,
  options: LoadCredentialsOptions = {},
): Promise<UserRefreshClient> {
  const file = await readAuthorizedUserFile(path);
  const client = await userRefreshClientFrom(file, { ...options, path });
  await proveCredentials(client, `Getting an access token with the user credentials in ${JSON.stringify(path)}`);
  return client;
}

/** A `UserRefreshClient` for `file`, no request yet: its judged token URL, bounded per attempt, its record kept. */
export async function userRefreshClientFrom(
  file: AuthorizedUserFile,
  options: ClientOptions = {},
): Promise<UserRefreshClient> {
  const tokenUrl = chooseTokenUrl(file, universeFor(options), options.path);
  const UserRefreshClient = await loadUserRefreshClient();
  const endpoints = resolveEndpoints(options.env, { announce: false });
  const client = new UserRefreshClient({
    clientId: file.clientId,
    clientSecret: file.clientSecret,
    refreshToken: file.refreshToken,
    transporterOptions: clientTransport(),
    endpoints: {
      oauth2TokenUrl: tokenUrl,
      oauth2AuthBaseUrl: endpoints.authUrl,
      oauth2RevokeUrl: endpoints.revokeUrl,
      tokenInfoUrl: endpoints.tokenInfoUrl,
    },
    ...(file.quotaProjectId ? { quotaProjectId: file.quotaProjectId } : {}),
    ...(file.universeDomain ? { universeDomain: file.universeDomain } : {}),
  });
  if (file.idToken) client.credentials.id_token = file.idToken;
  recordClientSecrets(client, {
    clientId: file.clientId,
    clientSecret: file.clientSecret,
    refreshToken: file.refreshToken,
  });
  guardTokenRequests(client, { tokenUrl, timeoutMs: options.timeoutMs ?? tokenTimeoutMs() });
  setCredentialInfo(client, {
    type: "authorized_user",
    scopes: file.scopes ?? [],
    clientId: file.clientId,
    tokenUrl,
    ...(file.account ? { account: file.account } : {}),
    ...(options.path !== undefined ? { path: options.path } : {}),
  });
  return client;
}

/** The two secrets a secret store may keep outside the credentials file. */
type Secrets = Pick<AuthorizedUserFile, "refreshToken" | "clientSecret">;

/** What a client made by {@link userRefreshClientWithLazySecrets} reads its secrets with, once. */
const pendingSecrets = new WeakMap<object, () => Promise<Secrets>>();

/**
 * A `UserRefreshClient` whose two secrets a store keeps elsewhere: a warm start takes its token from the
 * cache (keyed by `standIn`); the first refresh reads them through `readSecrets`, once.
 */
export async function userRefreshClientWithLazySecrets(
  fields: Omit<AuthorizedUserFile, "clientSecret" | "refreshToken">,
  standIn: string,
  readSecrets: () => Promise<Secrets>,
  options: ClientOptions = {},
): Promise<UserRefreshClient> {
  // Empty secrets until read: google-auth-library then refreshes through refreshHandler below.
  const client = await userRefreshClientFrom({ ...fields, clientSecret: "", refreshToken: "" }, options);
  delete client.credentials.refresh_token;
  recordStandIn(client, standIn);
  let read: Promise<Secrets> | undefined;
  const secrets = async (): Promise<Secrets> => {
    read ??= readSecrets();
    const held = await read.catch((error: unknown) => {
      read = undefined; // a store that could not answer (locked, stopped) may answer the next attempt
      throw error;
    });
    client._clientSecret = held.clientSecret;
    client._refreshToken = held.refreshToken;
    recordClientSecrets(client, {
      clientId: fields.clientId,
      clientSecret: held.clientSecret,
      refreshToken: held.refreshToken,
    });
    return held;
  };
  pendingSecrets.set(client, secrets);
  // Every way google-auth-library asks with the refresh token reads the secrets first.
  const target = refreshingOf(client);
  const refresh = target.refreshTokenNoCache.bind(client);
  target.refreshTokenNoCache = async () => refresh((await secrets()).refreshToken);
  const fetchIdToken = target.fetchIdToken.bind(client);
  target.fetchIdToken = async (audience) => {
    await secrets();
    return fetchIdToken(audience);
  };
  // Without a refresh token in its credentials, google-auth-library refreshes through this handler:
  // through the token cache, so that processes starting at once share one refresh (and one read).
  const info = getCredentialInfo(client);
  const key = tokenCacheKey(
    { type: "authorized_user", clientId: fields.clientId, refreshToken: standIn },
    info?.scopes ?? [],
    info?.tokenUrl,
  );
  client.refreshHandler = async () => {
    const token = await getTokenWithCache(
      key,
      async () => {
        const { tokens } = await target.refreshToken((await secrets()).refreshToken);
        return { access_token: tokens.access_token ?? "", expiry_date: tokens.expiry_date ?? 0, token_type: "Bearer" };
      },
      { fresh: client.credentials.access_token != null }, // a token it holds was found wanting
    );
    return { access_token: token.access_token, expiry_date: token.expiry_date };
  };
  return client;
}

type Tokens = { tokens: { access_token?: string | null; expiry_date?: number | null } };

/** The methods of google-auth-library's UserRefreshClient that use the refresh token (protected in its types). */
interface Refreshing {
  refreshToken(refreshToken?: string | null): Promise<Tokens>;
  refreshTokenNoCache(refreshToken?: string | null): Promise<Tokens>;
  fetchIdToken(audience: string): Promise<string>;
}

/** `client`'s protected methods that use the refresh token, for wrapping (lazy secrets, the token cache). */
export function refreshingOf(client: UserRefreshClient): Refreshing {
  return client as unknown as Refreshing;
}

/** Reads the secrets of a client {@link userRefreshClientWithLazySecrets} made, if it has not yet (before saving it). */
export async function readPendingSecrets(client: object): Promise<void> {
  await pendingSecrets.get(client)?.();
}

/**
 * The `authorized_user` file of `client` (for the cache): a client the user built is read through its public
 * fields and its token URL judged. ERR_NOT_SAVABLE without a refresh token or client; ERR_UNSAFE_TOKEN_URL.
 */
export function authorizedUserFileFrom(client: OAuth2Client, path?: string): AuthorizedUserFile {
  const info = getCredentialInfo(client);
  const refreshToken = refreshTokenOf(client);
  const clientId = clientSecretsOf(client)?.clientId ?? info?.clientId ?? (client._clientId || undefined);
  const clientSecret = clientSecretsOf(client)?.clientSecret ?? (client._clientSecret || undefined);
  if (!refreshToken)
    throw new CredCredentialsError(
      "These credentials hold no refresh token, so they cannot be saved; sign in again with offline access.",
      { code: ERROR_CODES.NOT_SAVABLE },
    );
  if (!clientId || !clientSecret)
    throw new CredCredentialsError(
      "These credentials have no OAuth client id and secret, so they cannot be saved as an authorized_user file.",
      { code: ERROR_CODES.NOT_SAVABLE },
    );
  const file = authorizedUserFile({
    clientId,
    clientSecret,
    refreshToken,
    tokenUrl: info?.tokenUrl ?? String(client.endpoints.oauth2TokenUrl),
    scopes: info?.scopes ?? grantedScopes(client),
    ...(client.credentials.id_token ? { idToken: client.credentials.id_token } : {}),
    ...(client.quotaProjectId ? { quotaProjectId: client.quotaProjectId } : {}),
    ...(client.universeDomain ? { universeDomain: client.universeDomain } : {}),
    ...(info?.account ? { account: info.account } : {}),
  });
  // A client we built had its token URL judged when it was built; one the user built, not yet.
  if (info?.tokenUrl === undefined) credentialsTokenUrl(file, trustedUniverse(), path);
  return file;
}

/** The scopes a user-built client's last token was granted (google-auth-library keeps no others). */
function grantedScopes(client: OAuth2Client): string[] {
  return (client.credentials.scope ?? "").split(" ").filter((scope) => scope !== "");
}
