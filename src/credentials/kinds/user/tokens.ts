// New tokens of an `authorized_user` file, loaded on a token-cache miss: the refresh grant through
// google-auth-library's client (the token URL judged and guarded), for an access or an ID token.
import type { UserRefreshClient } from "google-auth-library";
import { CredCredentialsError, ERROR_CODES } from "../../../errors.js";
import { tokenCacheKey } from "../../../formats/cache-keys.js";
import type { FetchedIdToken } from "../../../protocols/id-token-reply.js";
import { clientSecretsOf, getCredentialInfo } from "../../../protocols/info.js";
import { proveCredentials } from "../../../protocols/token-requests.js";
import { userIdToken } from "../../../protocols/user-id-token.js";
import type { CachedAccessToken } from "../../../formats/token-cache-entry.js";
import { quoted } from "../../../trust/text.js";
import { type CredentialsRefresh, entryFromCredentials } from "../google-credentials.js";
import { type ClientIdTokenRequest, cachedClientIdToken } from "../kind.js";
import { authorizedUserFileFrom, userRefreshClientFrom } from "./client.js";
import type { AuthorizedUserFile } from "./file.js";

/** A new access token for `file` (read from `path`), as the token cache stores it. */
export async function userFileToken(
  file: AuthorizedUserFile,
  scopes: readonly string[],
  { path, env, universe }: CredentialsRefresh,
): Promise<CachedAccessToken> {
  const client = await userRefreshClientFrom(file, { path, env, universe });
  await proveCredentials(client, `Getting an access token with the user credentials in ${quoted(path)}`);
  return entryFromCredentials(client.credentials, scopes, path);
}

/** The refresh grant's ID token: with `audience` for another client; none, the signed-in client's own. */
export async function userFileIdToken(
  file: AuthorizedUserFile,
  { path, env, universe, tokenUrl, audience }: CredentialsRefresh & { tokenUrl: string; audience: string | undefined },
): Promise<FetchedIdToken> {
  const client = await userRefreshClientFrom(file, { path, env, universe });
  const { clientId, clientSecret, refreshToken } = file;
  return userIdToken(
    client,
    { tokenUrl, clientId, clientSecret, refreshToken, ...(audience === undefined ? {} : { audience }) },
    `Getting an ID token with the user credentials in ${quoted(path)}`,
  );
}

/**
 * A user client's ID token: the refresh grant with its own secrets, cached as print-identity-token caches
 * the file's. A client the caller built sends them through one of ours, its token URL judged.
 */
export async function userClientIdToken(
  client: UserRefreshClient,
  request: ClientIdTokenRequest,
): Promise<FetchedIdToken> {
  const info = getCredentialInfo(client);
  const secrets = clientSecretsOf(client) ?? {
    // A client the caller built: the fields google-auth-library declares public.
    clientId: client._clientId ?? "",
    clientSecret: client._clientSecret ?? "",
    refreshToken: client.credentials.refresh_token ?? "",
  };
  if (!secrets.clientId || !secrets.clientSecret || !secrets.refreshToken)
    throw new CredCredentialsError(
      "These user credentials hold no refresh token or OAuth client secret, so they cannot ask for an ID token; load them from a file (loadUserCredentials) or sign in with cred-auth.",
      { code: ERROR_CODES.ID_TOKEN_UNSUPPORTED },
    );
  const sender = info?.tokenUrl
    ? client
    : await userRefreshClientFrom(authorizedUserFileFrom(client), { env: request.env });
  const tokenUrl = getCredentialInfo(sender)?.tokenUrl ?? "";
  const audience = request.audience === secrets.clientId ? undefined : request.audience;
  const { clientId, refreshToken } = secrets;
  const owner = tokenCacheKey({ type: "authorized_user", clientId, refreshToken }, [], tokenUrl);
  const what = `Getting an ID token with the user credentials${info?.path ? ` in ${quoted(info.path)}` : ""}`;
  return cachedClientIdToken(owner, audience, request, () =>
    userIdToken(sender, { tokenUrl, ...secrets, ...(audience === undefined ? {} : { audience }) }, what),
  );
}
