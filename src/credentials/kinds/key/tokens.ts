// New tokens of a service account key, loaded on a token-cache miss: the JWT-bearer grant through
// google-auth-library's client (the token URL judged and guarded), for an access or an ID token.
// From the parsed key, not a path: the key may sit inside an impersonated_service_account file.
import { type FetchedIdToken, fetchedIdToken } from "../../../protocols/id-token-reply.js";
import { toCredError } from "../../../protocols/token-errors.js";
import { proveCredentials } from "../../../protocols/token-requests.js";
import { CLOUD_PLATFORM_SCOPE } from "../../../shared/constants.js";
import type { CachedAccessToken } from "../../../formats/token-cache-entry.js";
import { printable, quoted } from "../../../trust/text.js";
import { type CredentialsRefresh, entryFromCredentials } from "../google-credentials.js";
import { serviceAccountClientFrom } from "./client.js";
import type { ServiceAccountKeyFile } from "./file.js";

/** A new access token for `file` (read from `path`) with `scopes`, as the token cache stores it. */
export async function keyFileToken(
  file: ServiceAccountKeyFile,
  scopes: readonly string[],
  { path, env, universe }: CredentialsRefresh,
): Promise<CachedAccessToken> {
  const jwt = await serviceAccountClientFrom(file, scopes, { path, env, universe });
  await proveCredentials(jwt, `Getting an access token for ${whose(file, path)}`);
  return entryFromCredentials(jwt.credentials, scopes, path);
}

/** The JWT-bearer grant with `target_audience`. */
export async function keyFileIdToken(
  file: ServiceAccountKeyFile,
  { path, env, universe, audience }: CredentialsRefresh & { audience: string },
): Promise<FetchedIdToken> {
  const jwt = await serviceAccountClientFrom(file, [CLOUD_PLATFORM_SCOPE], { path, env, universe });
  let token: string;
  try {
    token = await jwt.fetchIdToken(audience);
  } catch (error) {
    throw toCredError(error, `Getting an ID token for ${whose(file, path)}`);
  }
  return fetchedIdToken(token, "The token server", audience);
}

function whose(file: ServiceAccountKeyFile, path: string): string {
  return `service account ${printable(file.clientEmail)} with the key in ${quoted(path)}`;
}
