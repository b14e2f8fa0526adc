import { closeSync } from "node:fs";
import { join } from "node:path";
import { tryLock } from "./lock.js";
import {
  type CachedAccessToken,
  type TokenCacheLocation,
  hasValidity,
  openCacheDir,
  readCachedToken,
  readEntry,
  resolveDir,
  writeEntry,
} from "./store.js";

export interface GetTokenWithCacheOptions extends TokenCacheLocation {
  /** Ignore the cached token and get a new one (`print-token --fresh`). */
  fresh?: boolean;
  /** A cached token is used only while it has more than this left. Default 300000 (5 minutes). */
  minValidityMs?: number;
  /** How long to wait for another process that is refreshing the same key. Default 20000. */
  lockWaitMs?: number;
  /** A lock older than this is abandoned. Default 30000. */
  staleLockMs?: number;
}

/** Default of {@link GetTokenWithCacheOptions.minValidityMs}: five minutes. */
export const MIN_VALIDITY_MS = 300_000;

const inFlight = new Map<string, Promise<CachedAccessToken>>();

/**
 * The cached token for `key` while it has more than `minValidityMs` left, else `refresh()`'s, then
 * cached: one refresh per key in the process, and across processes through `KEY.lock`; cache I/O never throws.
 */
export function getTokenWithCache(
  key: string,
  refresh: () => Promise<CachedAccessToken>,
  options: GetTokenWithCacheOptions = {},
): Promise<CachedAccessToken> {
  const dir = resolveDir(options);
  const minValidityMs = options.minValidityMs ?? MIN_VALIDITY_MS;
  const seen = dir === false ? undefined : readCachedToken(key, { dir });
  if (seen && !options.fresh && hasValidity(seen, minValidityMs)) return Promise.resolve(seen);
  if (!dir) return refresh();
  const flightKey = `${dir}\0${key}\0${options.fresh ? "fresh" : ""}`;
  const pending = inFlight.get(flightKey);
  if (pending) return pending;
  const flight = refreshOnce(dir, key, refresh, { ...options, minValidityMs }, seen?.access_token).finally(() =>
    inFlight.delete(flightKey),
  );
  inFlight.set(flightKey, flight);
  return flight;
}

/** Refreshes with the cache directory held open and checked (see openCacheDir); without the cache when it is not private. */
async function refreshOnce(
  dir: string,
  key: string,
  refresh: () => Promise<CachedAccessToken>,
  options: GetTokenWithCacheOptions & { minValidityMs: number },
  seenToken: string | undefined,
): Promise<CachedAccessToken> {
  const opened = openCacheDir(dir, true);
  if (!opened) return refresh();
  try {
    return await refreshLocked(opened.base, key, refresh, options, seenToken);
  } finally {
    if (opened.fd !== undefined) closeSync(opened.fd);
  }
}

async function refreshLocked(
  dir: string,
  key: string,
  refresh: () => Promise<CachedAccessToken>,
  options: GetTokenWithCacheOptions & { minValidityMs: number },
  seenToken: string | undefined,
): Promise<CachedAccessToken> {
  const lockPath = join(dir, `${key}.lock`);
  const staleMs = options.staleLockMs ?? 30_000;
  const deadline = Date.now() + (options.lockWaitMs ?? 20_000);
  // With `fresh`, a token someone else obtained after we were called is fresh enough.
  const usable = (token: CachedAccessToken | undefined): token is CachedAccessToken =>
    token !== undefined &&
    hasValidity(token, options.minValidityMs) &&
    !(options.fresh && token.access_token === seenToken);

  for (let delayMs = 10; ; delayMs = Math.min(delayMs * 2, 200)) {
    const attempt = tryLock(lockPath, staleMs);
    if (attempt.state === "unavailable") break;
    if (attempt.state === "held") {
      try {
        const cached = readEntry(dir, key);
        if (usable(cached)) return cached;
        return await refreshAndStore(dir, key, refresh);
      } finally {
        attempt.lock.release();
      }
    }
    if (Date.now() >= deadline) break;
    await sleep(delayMs);
    const cached = readEntry(dir, key);
    if (usable(cached)) return cached;
  }
  return refreshAndStore(dir, key, refresh);
}

async function refreshAndStore(
  dir: string,
  key: string,
  refresh: () => Promise<CachedAccessToken>,
): Promise<CachedAccessToken> {
  const token = await refresh();
  writeEntry(dir, key, token);
  return token;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
