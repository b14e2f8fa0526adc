// Access tokens on disk, one small JSON file per credentials+scopes key. Kept light: it sits on
// print-token's hot path, so it loads only node builtins.
import {
  type Stats,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { ENV } from "../shared/constants.js";
import { readFileLimitedSync } from "../util/atomic-write.js";
import { sha256Hex } from "./sha256.js";

/** An access token as the token cache keeps it: never a refresh token or key. */
export interface CachedAccessToken {
  access_token: string;
  /** When the token expires, in milliseconds since the epoch. */
  expiry_date: number;
  /** Always `Bearer` for Google's tokens. */
  token_type: string;
  /** The scopes the token was requested for, when known. */
  scopes?: string[];
}

/**
 * What identifies the credentials behind a token. Structurally matches the parsed
 * `authorized_user` and `service_account` files; only hashes of these fields reach the disk.
 */
export type TokenCacheIdentity =
  | { type: "authorized_user"; client_id: string; refresh_token: string; token_uri?: string }
  | {
      type: "service_account";
      client_email: string;
      private_key_id?: string;
      private_key: string;
      token_uri?: string;
    };

/** Where the cache lives: a directory, or `false` when it is turned off. */
export interface TokenCacheLocation {
  /** Default: {@link tokenCacheDir} of `process.env`. `false` turns the cache off. */
  dir?: string | false;
}

/**
 * The token cache directory: `$CRED_AUTH_TOKEN_CACHE` (`off` turns the cache off), else
 * `$XDG_CACHE_HOME/cred-auth/tokens`, else `%LOCALAPPDATA%\cred-auth\tokens` on Windows,
 * else `~/.cache/cred-auth/tokens`. Returns `false` when the cache is off.
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
  return join(env.HOME || homedir(), ".cache", "cred-auth", "tokens");
}

/**
 * The cache key of a credentials file and the scopes its tokens are requested with: a sha256
 * hex digest, so neither the refresh token nor the key can be read back from a file name.
 *
 * `tokenUrl` is the token endpoint actually used (default: the file's `token_uri`), so tokens
 * of an emulator never serve Google. For `authorized_user` files pass the granted scopes
 * (a refresh cannot change them); for service accounts the requested ones.
 *
 * Every key derives from secret material (the refresh token; the private key), never from public
 * values alone: a forged key file carrying a victim's `client_email` and `private_key_id` with a
 * private key of its own must not find the victim's tokens.
 */
export function tokenCacheKey(file: TokenCacheIdentity, scopes: readonly string[], tokenUrl?: string): string {
  const identity =
    file.type === "authorized_user"
      ? [file.type, file.client_id, file.refresh_token]
      : [file.type, file.client_email, file.private_key_id ?? "", sha256Hex(file.private_key)];
  const sortedScopes = [...new Set(scopes)].sort();
  return sha256Hex(JSON.stringify(["cred-auth-token-v2", ...identity, tokenUrl ?? file.token_uri ?? "", sortedScopes]));
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

/**
 * @internal A token-cache file's text. Throws for anything but a small regular file of ours that
 * nobody else may write, judged on the opened descriptor: not a symbolic link (`O_NOFOLLOW`), not
 * a FIFO or device (which must not block print-token), not a file another user planted.
 */
export function readSmallFile(path: string): string {
  return readFileLimitedSync(path, MAX_ENTRY_BYTES, { noFollow: true, check: refuseForeign }).toString("utf8");
}

function refuseForeign(stats: Stats): void {
  // Stryker disable next-line StringLiteral,ObjectLiteral: equivalent: every caller turns any error here into "no entry"
  if (!ownedPrivately(stats)) throw Object.assign(new Error("not a private file of this user"), { code: "EPERM" });
}

/** Ours (the current uid) and not writable by group or others. Windows has neither: true there. */
function ownedPrivately(stats: Stats): boolean {
  if (process.platform === "win32" || typeof process.getuid !== "function") return true;
  return stats.uid === process.getuid() && (stats.mode & 0o022) === 0;
}

/**
 * Stores `token` under `key` atomically (temp file, fsync, rename; file 0600, directory 0700).
 * Only `access_token`, `expiry_date`, `token_type` and `scopes` are written. Returns false when
 * the cache is off or cannot be written (a read-only home is not an error: the cache is an
 * optimisation).
 */
export function writeCachedToken(key: string, token: CachedAccessToken, location: TokenCacheLocation = {}): boolean {
  return withCacheDir(location, true, (base) => writeEntry(base, key, token)) ?? false;
}

/** @internal Stores `token` under `key` in an opened cache directory (see {@link withCacheDir}). */
export function writeEntry(base: string, key: string, token: CachedAccessToken): boolean {
  const entry: CachedAccessToken = {
    access_token: token.access_token,
    expiry_date: token.expiry_date,
    token_type: token.token_type || "Bearer",
    ...(token.scopes ? { scopes: [...token.scopes] } : {}),
  };
  const target = tokenPath(base, key);
  const temp = `${target}.${uniqueSuffix()}.tmp`;
  try {
    const fd = openSync(temp, "wx", 0o600);
    try {
      writeSync(fd, `${JSON.stringify(entry)}\n`);
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

/** Removes the cached token for `key` (for example after the provider rejected it). */
export function deleteCachedToken(key: string, location: TokenCacheLocation = {}): void {
  withCacheDir(location, false, (base) => {
    try {
      unlinkSync(tokenPath(base, key));
    } catch {}
  });
}

/**
 * Runs `use` with the cache directory opened and checked: a directory (a link counts as the
 * directory it points to), ours, not writable by group or others, judged by `fstat` of the opened
 * descriptor. `use` gets the
 * path to reach entries by: on Linux the descriptor's `/proc/self/fd/N`, so a directory swapped
 * for a link after the check is never used; elsewhere the directory's path. Returns undefined when
 * the cache is off, absent (and `create` is false) or not private.
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

function parseCachedToken(text: string): CachedAccessToken | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
    // Stryker disable next-line BlockStatement: equivalent: json stays undefined, which is no token
  } catch {
    return undefined;
  }
  // Stryker disable next-line ConditionalExpression: equivalent for the typeof half: a number or string has no access_token
  if (typeof json !== "object" || json === null) return undefined;
  const { access_token, expiry_date, token_type, scopes } = json as Record<string, unknown>;
  if (
    typeof access_token !== "string" ||
    access_token === "" ||
    // Stryker disable next-line ConditionalExpression: equivalent: Number.isFinite is false for a non-number
    typeof expiry_date !== "number" ||
    !Number.isFinite(expiry_date)
  )
    return undefined;
  const token: CachedAccessToken = {
    access_token,
    expiry_date,
    token_type: typeof token_type === "string" && token_type ? token_type : "Bearer",
  };
  if (Array.isArray(scopes) && scopes.every((s) => typeof s === "string")) token.scopes = scopes;
  return token;
}

/**
 * A name part no other writer uses at the same time: pid, time and a random number (the files
 * are opened with O_EXCL anyway). Not node:crypto: loading it costs milliseconds on the hot path.
 * @internal
 */
export function uniqueSuffix(): string {
  return `${process.pid}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 10)}`;
}
