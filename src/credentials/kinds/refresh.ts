// New access tokens for the kinds of ADC file (./kinds/), loaded only when the token cache has
// none: user credentials and keys through google-auth-library's clients (the token URL judged and
// guarded), external_account files through STS, impersonated files through IAM Credentials.
import type { Credentials } from "google-auth-library";
import type { CachedAccessToken } from "../../token-cache/index.js";
import type { AuthorizedUserFile, ServiceAccountKeyFile } from "../../formats/credentials-file.js";
import type { ExternalAccountDestinations } from "../../formats/destinations.js";
import type { ExternalAccountFile } from "../../formats/external-account.js";
import type { ImpersonatedFile } from "../../formats/impersonated-file.js";
import { generateAccessToken } from "../../protocols/iam-credentials.js";
import { proveCredentials, userRefreshClientFrom } from "../../protocols/load-user.js";
import type { FetchedToken } from "../../protocols/service-request.js";
import { type Subject, exchangeSubjectToken, readSubject } from "../../protocols/sts.js";
import { CLOUD_PLATFORM_SCOPE } from "../../shared/constants.js";
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

/**
 * The subject of an `external_account` file, read once per token asked for (protocols/sts.ts):
 * its token, or an AWS source's region and keys (from `env` or IMDS at the judged URLs).
 */
export function subjectOf(file: ExternalAccountFile, urls: ExternalAccountDestinations, env: NodeJS.ProcessEnv) {
  return readSubject(file, urls.aws, env);
}

/**
 * STS's federated token; with `service_account_impersonation_url`, that token (cloud-platform,
 * as google-auth-library asks) then gets the service account's token with `scopes`.
 */
export async function externalAccountFileToken(
  file: ExternalAccountFile,
  urls: ExternalAccountDestinations,
  subject: Subject,
  scopes: readonly string[],
): Promise<CachedAccessToken> {
  const target = file.impersonationTarget;
  const sent = { tokenUrl: urls.tokenUrl, subjectToken: subject.token(), secrets: subject.secrets };
  if (urls.impersonationUrl === undefined || target === undefined)
    return cached(await exchangeSubjectToken(file, { ...sent, scopes }), scopes);
  const federated = await exchangeSubjectToken(file, { ...sent, scopes: [CLOUD_PLATFORM_SCOPE] });
  const impersonated = await generateAccessToken({
    url: urls.impersonationUrl,
    target,
    sourceToken: federated.accessToken,
    delegates: [],
    scopes,
    ...(file.impersonationLifetimeSec ? { lifetimeSec: file.impersonationLifetimeSec } : {}),
  });
  return cached(impersonated, scopes);
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
  return cached(got, scopes);
}

function cached(token: FetchedToken, scopes: readonly string[]): CachedAccessToken {
  return { access_token: token.accessToken, expiry_date: token.expiresAt, token_type: "Bearer", scopes: [...scopes] };
}
