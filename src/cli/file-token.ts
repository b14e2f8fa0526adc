// The token-cache path of print-token for user credentials and service account keys; refreshing
// (google-auth-library) lives in ./refresh.ts and is loaded only when a token is needed.
import { type CachedAccessToken, getTokenWithCache, tokenCacheKey } from "../access-token-cache/index.js";
import { resolveEndpoints } from "../google/endpoints.js";
import type { CredentialsFile } from "../google/files.js";
import { chooseTokenUrl } from "../google/token-requests.js";
import { CLOUD_PLATFORM_SCOPE } from "../shared/constants.js";

/**
 * A cached or new token for user credentials (the scopes granted at login) or a service account
 * key (`requested`, else cloud-platform), through the 0600 token cache.
 */
export function fileToken(
  file: CredentialsFile,
  path: string,
  requested: string[] | undefined,
  fresh: boolean,
): Promise<CachedAccessToken> {
  const scopes = file.type === "service_account" ? (requested ?? [CLOUD_PLATFORM_SCOPE]) : (file.scopes ?? []);
  const key = tokenCacheKey(
    file,
    scopes,
    chooseTokenUrl(file.token_uri, resolveEndpoints(process.env, { announce: false })),
  );
  const refresh = (): Promise<CachedAccessToken> =>
    (require("./refresh.js") as typeof import("./refresh.js")).obtainToken(file, path, scopes);
  return getTokenWithCache(key, refresh, { fresh });
}
