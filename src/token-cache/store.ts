// Access tokens on disk, one small JSON file per credentials+scopes key. Kept light: it sits on
// print-token's hot path, so it loads only node builtins.
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import type * as Os from "node:os";
import { join } from "node:path";
import { ENV } from "../shared/constants.js";
import { type CachedAccessToken, entryText, parseCachedToken } from "../formats/token-cache-entry.js";
import { ownedPrivately, readTrustedFileSync } from "../trust/files.js";

// Asked only without HOME: node:os costs most of a millisecond to load, on print-token's cached path.
const os = (): typeof Os => require("node:os");

export type { CachedAccessToken };

/** Where the cache lives: a directory, or `false` when it is turned off. */
export interface TokenCacheLocation {
  /** Default: {@link tokenCacheDir} of `process.env`. `false` turns the cache off. */
  dir?: string | false;
}

/**
 * The cache directory: `$CRED_AUTH_TOKEN_CACHE` (`off`: false), else `$XDG_CACHE_HOME/cred-auth/tokens`,
 * `%LOCALAPPDATA%\cred-auth\tokens` on Windows, else `~/.cache/cred-auth/tokens`.
 */
export function tokenCacheDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string | false {
  const configured = env[ENV.tokenCache]?.trim();
  if (configured?.toLowerCase() === "off") return false;
  if (configured) return configured;
  const xdg = env.XDG_CACHE_HOME?.trim();
  if (xdg) return join(xdg, "cred-auth", "tokens");
  if (platform === "win32" && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, "cred-auth", "tokens");
  return join(env.HOME || os().homedir(), ".cache", "cred-auth", "tokens");
}

/** The cached token for `key`, or undefined when there is none or its file is unreadable or corrupt. */
export function readCachedToken(key: string, location: TokenCacheLocation = {}): CachedAccessToken | undefined {
  return withCacheDir(location, false, (base) => readEntry(base, key));
}

/** @internal The entry for `key` in an opened cache directory (see {@link withCacheDir}). */
export function readEntry(base: string, key: string): CachedAccessToken | undefined {
  const path = tokenPath(base, key);
  let text: string;
  try {
    text = readSmallFile(path);
    // Stryker disable next-line BlockStatement: equivalent: text stays undefined, which parses as no token
  } catch {
    return undefined;
  }
  return parseCachedToken(text);
}

/** Token entries and locks are tiny; anything bigger is not ours. */
const MAX_ENTRY_BYTES = 64 * 1024;

/** @internal An entry's text under the file-trust rule for files we keep: ours, private, regular, no link followed. */
export function readSmallFile(path: string): string {
  return readTrustedFileSync(path, { maxBytes: MAX_ENTRY_BYTES, keeper: "cred-auth", noFollow: true }).toString("utf8");
}

/**
 * Stores only the token's four fields under `key`, atomically (0600 in 0700). False when the cache is off
 * or unwritable (it only saves requests), or the access token is not a token.
 */
export function writeCachedToken(key: string, token: CachedAccessToken, location: TokenCacheLocation = {}): boolean {
  return withCacheDir(location, true, (base) => writeEntry(base, key, token)) ?? false;
}

/** @internal Stores `token` under `key` in an opened cache directory (see {@link withCacheDir}). */
export function writeEntry(base: string, key: string, token: CachedAccessToken): boolean {
  const text = entryText(token);
  // Stryker disable next-line ConditionalExpression: equivalent: writeSync refuses undefined and the catch says false too; this says why
  if (text === undefined) return false;
  const target = tokenPath(base, key);
  const temp = `${target}.${uniqueSuffix()}.tmp`;
  try {
    const fd = openSync(temp, "wx", 0o600);
    try {
      writeSync(fd, text);
      // Stryker disable next-line CallExpression: durability, not observable without a power cut (docs/security.md)
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
    return true;
  } catch {
    try {
      unlinkSync(temp);
    } catch {}
    return false;
  }
}

/** Removes the cached token for `key` (for example after the provider rejected it); true when one was there. */
export function deleteCachedToken(key: string, location: TokenCacheLocation = {}): boolean {
  const removed = withCacheDir(location, false, (base) => {
    try {
      unlinkSync(tokenPath(base, key));
    } catch {
      return false;
    }
    return true;
  });
  return removed === true;
}

/** Removes every entry whose key starts with `owner` and a hyphen (a file's ID tokens, any audience); how many went. */
export function deleteCachedTokensOf(owner: string, location: TokenCacheLocation = {}): number {
  const prefix = `${checkedKey(owner)}-`;
  return (
    withCacheDir(location, false, (base) => {
      let removed = 0;
      for (const name of listOrNothing(base)) {
        if (!name.startsWith(prefix) || !name.endsWith(".json")) continue;
        try {
          unlinkSync(join(base, name));
          removed++;
        } catch {}
      }
      return removed;
    }) ?? 0
  );
}

// Stryker disable all: withCacheDir has just opened this directory as its owner; only a race (the
// directory removed meanwhile) fails the listing, which no test can time
function listOrNothing(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
// Stryker restore all

/**
 * `use` with the cache directory opened and checked on its descriptor (ours, private), reached by
 * `/proc/self/fd/N` on Linux so a swapped link is never used; undefined when off, absent or not private.
 */
export function withCacheDir<T>(
  location: TokenCacheLocation,
  create: boolean,
  use: (base: string) => T,
): T | undefined {
  const dir = location.dir === undefined ? tokenCacheDir() : location.dir;
  if (dir === false) return undefined;
  const opened = openCacheDir(dir, create);
  if (!opened) return undefined;
  try {
    return use(opened.base);
  } finally {
    if (opened.fd !== undefined) closeSync(opened.fd);
  }
}

/** @internal The checked cache directory: its descriptor (none on Windows) and the path to reach entries by. */
export function openCacheDir(dir: string, create: boolean): { fd?: number; base: string } | undefined {
  if (process.platform === "win32" || typeof process.getuid !== "function") {
    if (create) {
      try {
        ensureDir(dir);
      } catch {
        return undefined;
      }
    }
    return { base: dir };
  }
  let fd: number;
  try {
    if (create) ensureDir(dir);
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  const stats = fstatSync(fd);
  if (!stats.isDirectory() || !ownedPrivately(stats)) {
    closeSync(fd);
    return undefined;
  }
  return { fd, base: hasProcFd() ? `/proc/self/fd/${fd}` : dir };
}

let procFd: boolean | undefined;

/** Linux reaches a directory through its descriptor at /proc/self/fd/N (what openat does), when /proc is mounted. */
function hasProcFd(): boolean {
  procFd ??= process.platform === "linux" && existsSync("/proc/self/fd");
  return procFd;
}

/** True when `token` still has more than `minValidityMs` milliseconds to live. */
export function hasValidity(
  token: Pick<CachedAccessToken, "expiry_date">,
  minValidityMs: number,
  now: number = Date.now(),
): boolean {
  return token.expiry_date - now > minValidityMs;
}

/** The directory to use: the given or default one, or `false` when the cache is off. @internal */
export function resolveDir(location: TokenCacheLocation): string | false {
  return location.dir === undefined ? tokenCacheDir() : location.dir;
}

/** @internal */
export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** @internal */
export function tokenPath(dir: string, key: string): string {
  return join(dir, `${checkedKey(key)}.json`);
}

function checkedKey(key: string): string {
  // A key names a file: refuse anything that could leave the directory.
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(key))
    throw new TypeError("token cache key must be 1-128 characters of [A-Za-z0-9_-]");
  return key;
}

/** @internal A name part no other writer uses at once (pid, time, random): node:crypto would cost the hot path. */
export function uniqueSuffix(): string {
  return `${process.pid}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 10)}`;
}
