// The access-token cache of print-token and the library: tokens outlive a process, so loops and restarts
// do not ask again. One file per hashed key, never a refresh token or key; node builtins only (hot path).
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
