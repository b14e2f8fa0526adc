// What user credentials and keys share: tokens from the judged `token_uri`, cached under a key of the
// file's secret, that endpoint and the scopes; the loaders' options.
import type { Credentials } from "google-auth-library";
import { CredCredentialsError, ERROR_CODES } from "../../errors.js";
import { type CachedAccessToken, getTokenWithCache } from "../../token-cache/index.js";
import { quoted } from "../../trust/text.js";
import { idTokenKeyOwner, tokenCacheKey } from "../../formats/cache-keys.js";
import type { CredentialsFile } from "./file.js";
import { credentialsTokenUrl } from "../../formats/destinations.js";
import { chooseTokenUrl } from "../../protocols/token-requests.js";
import { type Universe, trustedUniverse } from "../../trust/urls.js";
import type { CachedTokenKeys, TokenRequest } from "./kind.js";

/** Options of the public loaders (loadUserCredentials, loadServiceAccountCredentials). */
export interface LoadCredentialsOptions {
  /** Limit for one attempt at a token request, in milliseconds (default 20000; gaxios retries). */
  timeoutMs?: number;
  /**
   * The universe whose Google services may receive the credentials' secrets: a file for another
   * universe is refused. Default: `GOOGLE_CLOUD_UNIVERSE_DOMAIN`, else `googleapis.com`.
   */
  universeDomain?: string;
}

/** How a user's or a key's client is built: where the file came from, the environment, the universe. */
export interface ClientOptions extends LoadCredentialsOptions {
  /** Where the credentials came from; recorded in their CredentialInfo. */
  path?: string;
  /** Environment to read `CRED_AUTH_EMULATOR_HOST` and `GOOGLE_CLOUD_UNIVERSE_DOMAIN` from. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** The universe decided by the caller (default: from `env` and {@link LoadCredentialsOptions.universeDomain}). */
  universe?: Universe;
}

/** Where a user file's or key's new token is asked for. */
export interface CredentialsRefresh {
  path: string;
  env: NodeJS.ProcessEnv;
  universe: Universe;
}

/** A client's new access token as the token cache stores it; without a known expiry, printed but never served again. */
export function entryFromCredentials(
  credentials: Credentials,
  scopes: readonly string[],
  path: string,
): CachedAccessToken {
  const { access_token, expiry_date } = credentials;
  if (!access_token)
    throw new CredCredentialsError(`The token server returned no access token for ${quoted(path)}.`, {
      code: ERROR_CODES.SERVER_ERROR,
    });
  return {
    access_token,
    expiry_date: typeof expiry_date === "number" ? expiry_date : Date.now(),
    token_type: "Bearer",
    scopes: [...scopes],
  };
}

/** The universe a loader trusts: the caller's decision, else the option and the environment's. */
export function universeFor(options: ClientOptions): Universe {
  return options.universe ?? trustedUniverse(options.env, options.universeDomain);
}

/** `refresh()`'s token through the token cache, under the key of `file`, its token URL and `scopes`. */
export function cachedCredentialsToken(
  file: CredentialsFile,
  scopes: readonly string[],
  request: TokenRequest,
  refresh: () => Promise<CachedAccessToken>,
): Promise<CachedAccessToken> {
  const tokenUrl = chooseTokenUrl(file, request.universe, request.path);
  return getTokenWithCache(tokenCacheKey(file, scopes, tokenUrl), refresh, request.cache);
}

/** The key of `file`'s token with `scopes` where print-token would look (for `status`). */
export function credentialsTokenKey(
  file: CredentialsFile,
  scopes: readonly string[],
  { universe, path }: { universe: Universe; path: string },
): string {
  return tokenCacheKey(file, scopes, chooseTokenUrl(file, universe, path));
}

/** Every entry print-token may have cached for `file` with its default `scopes`: with the emulator standing in for Google, and without. */
export function credentialsCachedTokens(
  file: CredentialsFile,
  scopes: readonly string[],
  { universe, path }: { universe: Universe; path: string },
): CachedTokenKeys {
  const urls = tokenUrlsOf(file, universe, path);
  return {
    keys: urls.map((tokenUrl) => tokenCacheKey(file, scopes, tokenUrl)),
    owners: urls.map((tokenUrl) => idTokenKeyOwner(tokenCacheKey(file, [], tokenUrl))),
  };
}

/** The token URLs tokens of `file` were cached under: with the emulator standing in for Google, and without. */
function tokenUrlsOf(file: CredentialsFile, universe: Universe, path: string): string[] {
  const { emulator: _, ...withoutEmulator } = universe;
  const urls = [credentialsTokenUrl(file, universe, path)];
  try {
    urls.push(credentialsTokenUrl(file, withoutEmulator, path));
  } catch {
    // a loopback token_uri is only allowed with the emulator: then there is no other key
  }
  return [...new Set(urls)];
}

/** The fields of `values` that are set. */
export function optional<T extends Record<string, unknown>>(
  values: T,
): Partial<{ [K in keyof T]: Exclude<T[K], undefined> }> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<{
    [K in keyof T]: Exclude<T[K], undefined>;
  }>;
}
