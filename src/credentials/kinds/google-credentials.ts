// What user credentials and service account keys share: their tokens come from the token endpoint
// the file names (`token_uri`, judged), and are cached under a key made of the file's secret
// identity, that endpoint and the scopes (formats/cache-keys.ts).
import { type CachedAccessToken, getTokenWithCache } from "../../token-cache/index.js";
import { idTokenKeyOwner, tokenCacheKey } from "../../formats/cache-keys.js";
import type { CredentialsFile } from "../../formats/credentials-file.js";
import { credentialsTokenUrl } from "../../formats/destinations.js";
import { chooseTokenUrl } from "../../protocols/token-requests.js";
import type { Universe } from "../../trust/urls.js";
import type { CachedTokenKeys, TokenRequest } from "./kind.js";

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
