/**
 * The access-token cache shared by `cred-auth print-token` and the library: access tokens
 * outlive a process, so scripts calling print-token in a loop, or programs starting again,
 * do not ask the token server each time. One file per key (a sha256 of the credentials'
 * identity and scopes) holding only `access_token`, `expiry_date`, `token_type` and `scopes`;
 * never a refresh token or key. Safe under concurrent processes.
 *
 * Light by design: node builtins only (it is on print-token's hot path).
 *
 * @packageDocumentation
 */
export {
  type CachedAccessToken,
  type TokenCacheLocation,
  tokenCacheDir,
  readCachedToken,
  writeCachedToken,
  deleteCachedToken,
  deleteCachedTokensOf,
  hasValidity,
} from "./store.js";
// Keys are built in formats/cache-keys.ts (with every other key); re-exported for callers of this room.
export { type TokenCacheIdentity, tokenCacheKey } from "../formats/cache-keys.js";
export { type GetTokenWithCacheOptions, MIN_VALIDITY_MS, getTokenWithCache } from "./get.js";
