// New tokens of an `authorized_user` file, loaded on a token-cache miss: the refresh grant through
// google-auth-library's client (the token URL judged and guarded), for an access or an ID token.
import type { FetchedIdToken } from "../../../protocols/id-token-reply.js";
import { proveCredentials } from "../../../protocols/token-requests.js";
import { userIdToken } from "../../../protocols/user-id-token.js";
import type { CachedAccessToken } from "../../../formats/token-cache-entry.js";
import { quoted } from "../../../trust/text.js";
import { type CredentialsRefresh, entryFromCredentials } from "../google-credentials.js";
import { userRefreshClientFrom } from "./client.js";
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
