// An access token for a credentials file of any ADC type, through the 0600 token cache shared by
// processes (access-token-cache/): the fast cached path of `cred-auth print-token`. With a cached
// token it reads the file, judges its URLs (formats/destinations.ts) and reads one cache entry,
// loading no package at all (test/cli/hot-path.test.ts, bench target 2); getting a new token
// (google-auth-library, STS, IAM Credentials) lives in ./file-refresh.ts, loaded on a miss.
import {
  type CachedAccessToken,
  getTokenWithCache,
  tokenCacheDir,
  writeCachedToken,
} from "../access-token-cache/index.js";
import { type AdcFile, readAdcFileSync } from "../formats/adc-file.js";
import { externalCacheKey, impersonatedCacheKey, tokenCacheKey } from "../formats/cache-keys.js";
import type { CredentialsFile } from "../formats/credentials-file.js";
import {
  externalAccountDestinations,
  externalAuthorizedUserTokenUrl,
  impersonatedDestinations,
} from "../formats/destinations.js";
import type { ExternalAccountFile, ExternalAuthorizedUserFile } from "../formats/external-account.js";
import type { ImpersonatedFile, ImpersonationSource } from "../formats/impersonated-file.js";
import type { RefreshTokenPlace } from "../formats/rotated-refresh-token.js";
import { chooseTokenUrl } from "../token-services/token-requests.js";
import { scopeCheckNotes } from "../oauth/known-scopes.js";
import { assertValidScopes } from "../oauth/scopes.js";
import { CLOUD_PLATFORM_SCOPE } from "../shared/constants.js";
import { checkedToken } from "../trust/text.js";
import { type Universe, trustedUniverse } from "../trust/urls.js";
import { fileRefresh } from "./lazy.js";

/** Options of {@link accessTokenForFile}. */
export interface FileTokenOptions {
  /**
   * The token's scopes, for service account keys, impersonated and federated files (default
   * cloud-platform; an impersonated file's own `scopes` first). User credentials keep the scopes
   * granted at sign-in ({@link FileToken.scopesIgnored}).
   */
  scopes?: readonly string[];
  /** Ignore the token cache and get a new token. */
  fresh?: boolean;
  /** Where `CRED_AUTH_EMULATOR_HOST`, `GOOGLE_CLOUD_UNIVERSE_DOMAIN` and the cache's place are read. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** The universe whose services may receive the file's secrets (default: `GOOGLE_CLOUD_UNIVERSE_DOMAIN`, else googleapis.com). */
  universeDomain?: string;
}

/** An access token for a credentials file. */
export interface FileToken {
  accessToken: string;
  /** When it expires, in milliseconds since the epoch. */
  expiryDate: number;
  tokenType: "Bearer";
  /** The file's `type`. */
  credentialsType: AdcFile["type"];
  /** True when scopes were asked for user credentials, which keep the scopes granted at sign-in. */
  scopesIgnored: boolean;
  /**
   * What went wrong without costing the token, one line each, never a secret: a refresh token
   * Google's Security Token Service rotated that could not be written back to the file.
   */
  warnings: string[];
}

/**
 * A cached or new access token for the credentials file at `path`: `authorized_user`,
 * `service_account`, `impersonated_service_account`, `external_account` or
 * `external_account_authorized_user`. A token with more than 5 minutes left is reused from the
 * token cache; every URL the file names is judged by the URL policy first.
 */
export async function accessTokenForFile(path: string, options: FileTokenOptions = {}): Promise<FileToken> {
  const env = options.env ?? process.env;
  const universe = trustedUniverse(env, options.universeDomain);
  const file = readAdcFileSync(path);
  const requested = options.scopes && options.scopes.length > 0 ? [...options.scopes] : undefined;
  // A misspelt scope is refused before any request, as a sign-in's is (Google would answer invalid_scope).
  if (requested) assertValidScopes(requested);
  const request: TokenRequest = {
    path,
    env,
    universe,
    requested,
    cache: { fresh: options.fresh === true, dir: tokenCacheDir(env) },
    warnings: requested ? scopeCheckNotes(requested, env) : [],
  };
  const token = await tokenFor(file, request);
  return {
    accessToken: checkedToken(token.access_token, "an access token"),
    expiryDate: token.expiry_date,
    tokenType: "Bearer",
    credentialsType: file.type,
    scopesIgnored: requested !== undefined && file.type === "authorized_user",
    warnings: request.warnings,
  };
}

/** What one token request for a file decides once and passes down. */
export interface TokenRequest {
  path: string;
  env: NodeJS.ProcessEnv;
  universe: Universe;
  requested: string[] | undefined;
  /** The token cache: `--fresh`, and its directory (`false`: off). */
  cache: { fresh: boolean; dir: string | false };
  /** Collected on the way: see {@link FileToken.warnings}. */
  warnings: string[];
}

function tokenFor(file: AdcFile, request: TokenRequest): Promise<CachedAccessToken> {
  if (file.type === "external_account") return externalAccountToken(file, request);
  if (file.type === "external_account_authorized_user") return externalUserToken(file, request);
  if (file.type === "impersonated_service_account") return impersonatedToken(file, request);
  return credentialsToken(file, request);
}

/** User credentials (the scopes granted at login) or a service account key (`requested`, else cloud-platform). */
export function credentialsToken(file: CredentialsFile, request: TokenRequest): Promise<CachedAccessToken> {
  const scopes = file.type === "service_account" ? (request.requested ?? [CLOUD_PLATFORM_SCOPE]) : (file.scopes ?? []);
  const tokenUrl = chooseTokenUrl(file, request.universe, request.path);
  return getTokenWithCache(
    tokenCacheKey(file, scopes, tokenUrl),
    () => fileRefresh().credentialsFileToken(file, request.path, scopes, request),
    request.cache,
  );
}

/** STS's token (cloud-platform unless asked otherwise), through a service account when the file says so. */
async function externalAccountToken(file: ExternalAccountFile, request: TokenRequest): Promise<CachedAccessToken> {
  const scopes = request.requested ?? [CLOUD_PLATFORM_SCOPE];
  const urls = externalAccountDestinations(file, request.universe, request.path);
  // Read once: the key depends on it (a rotated token, other AWS keys get a new key), and the refresh sends it.
  const subject = await fileRefresh().subjectOf(file, urls, request.env);
  return getTokenWithCache(
    externalCacheKey(file, scopes, urls, subject.keyMaterial),
    () => fileRefresh().externalAccountFileToken(file, urls, subject, scopes),
    request.cache,
  );
}

/**
 * A workforce user's token: always cloud-platform (the refresh token's own scope). When STS rotates
 * the refresh token, the new one is written back at `place` in the file, and the token is cached
 * under the key the next run makes from it too.
 */
function externalUserToken(
  file: ExternalAuthorizedUserFile,
  request: TokenRequest,
  place: RefreshTokenPlace = "file",
): Promise<CachedAccessToken> {
  const tokenUrl = externalAuthorizedUserTokenUrl(file, request.universe, request.path);
  const scopes = [CLOUD_PLATFORM_SCOPE];
  const keyOf = (refreshToken: string) => externalCacheKey({ ...file, refreshToken }, scopes, { tokenUrl });
  return getTokenWithCache(
    keyOf(file.refreshToken),
    async () => {
      const got = await fileRefresh().externalUserFileToken(file, tokenUrl, scopes, { path: request.path, place });
      if (got.warning !== undefined) request.warnings.push(got.warning);
      if (got.rotated !== undefined) writeCachedToken(keyOf(got.rotated), got.token, request.cache);
      return got.token;
    },
    request.cache,
  );
}

/** A token acting as the file's service account, with `requested` scopes (else the file's, else cloud-platform). */
function impersonatedToken(file: ImpersonatedFile, request: TokenRequest): Promise<CachedAccessToken> {
  const scopes = request.requested ?? file.scopes ?? [CLOUD_PLATFORM_SCOPE];
  const { iamUrl } = impersonatedDestinations(file, request.universe, request.path);
  const source = () => impersonationSourceToken(file.source, request);
  return getTokenWithCache(
    impersonatedCacheKey(file, scopes, iamUrl),
    () => fileRefresh().impersonatedFileToken(file, iamUrl, source, scopes),
    request.cache,
  );
}

/**
 * The access token of an impersonated file's source, cached too: it asks with cloud-platform (a key,
 * a workforce user, whose rotated refresh token is kept in `source_credentials`) or the scopes
 * granted at login (a user).
 */
export function impersonationSourceToken(
  source: ImpersonationSource,
  request: TokenRequest,
): Promise<CachedAccessToken> {
  return source.type === "external_account_authorized_user"
    ? externalUserToken(source, request, "source_credentials")
    : credentialsToken(source, { ...request, requested: undefined });
}

/** What a credentials file says about whom it signs in as (for the command line's messages). */
export interface CredentialsFileIdentity {
  credentialsType: AdcFile["type"];
  /** The signed-in account's e-mail, when the file records it. */
  account?: string;
  /** The service account an `impersonated_service_account` file's tokens act as. */
  actsAs?: string;
}

/** Reads `path` (any ADC type, validated) and says whose credentials it holds. */
export function describeCredentialsFile(path: string): CredentialsFileIdentity {
  const file = readAdcFileSync(path);
  const user =
    file.type === "authorized_user"
      ? file
      : file.type === "impersonated_service_account" && file.source.type === "authorized_user"
        ? file.source
        : undefined;
  return {
    credentialsType: file.type,
    ...(user?.account ? { account: user.account } : {}),
    ...(file.type === "impersonated_service_account" ? { actsAs: file.target } : {}),
  };
}
