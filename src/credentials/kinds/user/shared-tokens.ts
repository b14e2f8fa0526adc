// A user client shares the token cache with print-token: access tokens outlive a process for the
// library too. The credentials file never holds an access token, the token cache never a refresh token.
import type { Credentials, UserRefreshClient } from "google-auth-library";
import { CredCredentialsError } from "../../../errors.js";
import { toCredError } from "../../../protocols/token-errors.js";
import {
  MIN_VALIDITY_MS,
  deleteCachedToken,
  hasValidity,
  readCachedToken,
  tokenCacheKey,
  writeCachedToken,
  type TokenCacheLocation,
} from "../../../token-cache/index.js";
import { standInOf } from "../../../formats/stand-in.js";
import { clientSecretsOf, getCredentialInfo, refreshTokenOf } from "../../../protocols/info.js";
import { refreshingOf } from "./client.js";

const attached = new WeakSet<object>();

/**
 * Shares the token cache with `client`, loaded from a file: a cached token with time left is set on it, and
 * its refreshes written back, under print-token's key. Other clients are left alone; never throws.
 */
export function attachTokenCache(client: UserRefreshClient, location: TokenCacheLocation = {}): boolean {
  const key = keyOf(client);
  if (key === undefined || location.dir === false || attached.has(client)) return false;
  attached.add(client);
  const scopes = [...(getCredentialInfo(client)?.scopes ?? [])];
  client.on("tokens", (tokens: Credentials) => {
    // A refresh reports the new access token without the refresh token: write the access token
    // fields only, the credentials stay as they are.
    if (!tokens.access_token || typeof tokens.expiry_date !== "number") return;
    writeCachedToken(
      key,
      { access_token: tokens.access_token, expiry_date: tokens.expiry_date, token_type: "Bearer", scopes },
      location,
    );
  });
  if (client.credentials.access_token && hasTimeLeft(client.credentials.expiry_date)) return false;
  const cached = readCachedToken(key, location);
  if (!cached || !hasTimeLeft(cached.expiry_date)) return false;
  client.setCredentials({
    ...client.credentials,
    access_token: cached.access_token,
    expiry_date: cached.expiry_date,
    token_type: "Bearer",
  });
  refreshOnRejection(client, key, location);
  return true;
}

/**
 * A cached token may outlive its refresh token: the API's 401 forces a refresh, and when that fails the
 * entry goes and the error says to sign in again.
 */
function refreshOnRejection(client: UserRefreshClient, key: string, location: TokenCacheLocation): void {
  client.forceRefreshOnFailure = true;
  const target = refreshingOf(client);
  const refresh = target.refreshToken.bind(client);
  target.refreshToken = async (refreshToken) => {
    try {
      return await refresh(refreshToken);
    } catch (error) {
      const failure = toCredError(error, "Refreshing the user credentials");
      if (failure instanceof CredCredentialsError) deleteCachedToken(key, location);
      throw failure;
    }
  };
}

/** A sign-in's own token into the token cache under its saved file's key; never throws. */
export function cacheSignInToken(
  file: { clientId: string; refreshToken: string; tokenUrl?: string; scopes?: readonly string[] },
  token: { accessToken: string; expiryDate?: number },
  location: TokenCacheLocation = {},
): boolean {
  if (location.dir === false || typeof token.expiryDate !== "number") return false;
  const scopes = [...(file.scopes ?? [])];
  try {
    const key = tokenCacheKey(
      { type: "authorized_user", clientId: file.clientId, refreshToken: file.refreshToken },
      scopes,
      file.tokenUrl,
    );
    return writeCachedToken(
      key,
      { access_token: token.accessToken, expiry_date: token.expiryDate, token_type: "Bearer", scopes },
      location,
    );
  } catch {
    return false;
  }
}

/** The token-cache key of a file-loaded user client, or undefined when it has none. */
function keyOf(client: UserRefreshClient): string | undefined {
  const info = getCredentialInfo(client);
  // Credentials whose refresh token a secret store keeps elsewhere are keyed by its stand-in (formats/stand-in.ts).
  const refreshToken = standInOf(client) ?? refreshTokenOf(client);
  const clientId = clientSecretsOf(client)?.clientId ?? info?.clientId;
  if (info?.path === undefined || !refreshToken || !clientId) return undefined;
  const tokenUrl = info.tokenUrl ?? String(client.endpoints.oauth2TokenUrl);
  return tokenCacheKey({ type: "authorized_user", clientId, refreshToken }, info.scopes, tokenUrl);
}

/** More than 5 minutes left, the token cache's rule (google-auth-library refreshes earlier on its own). */
function hasTimeLeft(expiryDate: number | null | undefined): boolean {
  return typeof expiryDate === "number" && hasValidity({ expiry_date: expiryDate }, MIN_VALIDITY_MS);
}
