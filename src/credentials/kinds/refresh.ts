// New access tokens for the kinds of ADC file (./kinds/), loaded only when the token cache has
// none: user credentials and keys through google-auth-library's clients (the token URL judged and
// guarded), external_account files through STS, impersonated files through IAM Credentials.
import type { Credentials } from "google-auth-library";
import { type CachedAccessToken, bearerEntry } from "../../formats/token-cache-entry.js";
import type { AuthorizedUserFile, ServiceAccountKeyFile } from "../../formats/credentials-file.js";
import type { ImpersonatedFile } from "../../formats/impersonated-file.js";
import { generateAccessToken } from "../../protocols/iam-credentials.js";
import { proveCredentials, userRefreshClientFrom } from "../../protocols/load-user.js";
import { CredCredentialsError, ERROR_CODES } from "../../errors.js";
import { printable, quoted } from "../../trust/text.js";
import type { Universe } from "../../trust/urls.js";
import { serviceAccountClientFrom } from "../clients/service-account.js";

/** Where a user file's or key's new token is asked for. */
interface CredentialsRefresh {
  path: string;
  env: NodeJS.ProcessEnv;
  universe: Universe;
}

/** A new access token for the user credentials `file` (read from `path`), as the token cache stores it. */
export async function userFileToken(
  file: AuthorizedUserFile,
  scopes: readonly string[],
  { path, env, universe }: CredentialsRefresh,
): Promise<CachedAccessToken> {
  const client = await userRefreshClientFrom(file, { path, env, universe });
  await proveCredentials(client, `Getting an access token with the user credentials in ${quoted(path)}`);
  return cachedFrom(client.credentials, scopes, path);
}

/** A new access token for the service account key `file` (read from `path`), as the token cache stores it. */
export async function keyFileToken(
  file: ServiceAccountKeyFile,
  scopes: readonly string[],
  { path, env, universe }: CredentialsRefresh,
): Promise<CachedAccessToken> {
  // From the parsed key, not the path: the key may sit inside an impersonated_service_account file.
  const jwt = await serviceAccountClientFrom(file, scopes, { path, env, universe });
  await proveCredentials(
    jwt,
    `Getting an access token for service account ${printable(file.clientEmail)} with the key in ${quoted(path)}`,
  );
  return cachedFrom(jwt.credentials, scopes, path);
}

function cachedFrom(credentials: Credentials, scopes: readonly string[], path: string): CachedAccessToken {
  const { access_token, expiry_date } = credentials;
  if (!access_token)
    throw new CredCredentialsError(`The token server returned no access token for ${quoted(path)}.`, {
      code: ERROR_CODES.SERVER_ERROR,
    });
  // Without a known expiry the token is printed but never served from the cache.
  return {
    access_token,
    expiry_date: typeof expiry_date === "number" ? expiry_date : Date.now(),
    token_type: "Bearer",
    scopes: [...scopes],
  };
}

/** The source's token (`source()`, itself cached), then generateAccessToken at the judged `iamUrl`. */
export async function impersonatedFileToken(
  file: ImpersonatedFile,
  iamUrl: string,
  source: () => Promise<CachedAccessToken>,
  scopes: readonly string[],
): Promise<CachedAccessToken> {
  const sourceToken = (await source()).access_token;
  const got = await generateAccessToken({
    url: iamUrl,
    target: file.target,
    sourceToken,
    delegates: file.delegates,
    scopes,
  });
  return bearerEntry(got, scopes);
}
