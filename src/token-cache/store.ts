// Access tokens on disk, one small JSON file per credentials+scopes key. Kept light: it sits on
// print-token's hot path, so it loads only node builtins.
import {
  type Stats,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  statSync,
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
      private_key?: string;
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
 */
export function tokenCacheKey(file: TokenCacheIdentity, scopes: readonly string[], tokenUrl?: string): string {
  const identity =
    file.type === "authorized_user"
      ? [file.type, file.client_id, file.refresh_token]
      : [
          file.type,
          file.client_email,
          file.private_key_id || `${sha256Hex(file.private_key ?? "")}+${file.client_email}`,
        ];
  const sortedScopes = [...new Set(scopes)].sort();
  return sha256Hex(JSON.stringify(["cred-auth-token-v1", ...identity, tokenUrl ?? file.token_uri ?? "", sortedScopes]));
}

/** The cached token for `key`, or undefined when there is none or its file is unreadable or corrupt. */
export function readCachedToken(key: string, location: TokenCacheLocation = {}): CachedAccessToken | undefined {
  const dir = resolveDir(location);
  if (!dir) return undefined;
  const path = tokenPath(dir, key);
  let text: string;
  try {
    text = readSmallFile(path);
  } catch {
    return undefined;
  }
  return parseCachedToken(text);
}

/** Token entries and locks are tiny; anything bigger is not ours. */
const MAX_ENTRY_BYTES = 64 * 1024;

/**
 * @internal A token-cache file's text. Throws for anything but a small regular file: a FIFO or
 * device planted at an entry's path must not block print-token (readFileSync would wait forever).
 */
export function readSmallFile(path: string): string {
  return readFileLimitedSync(path, MAX_ENTRY_BYTES).toString("utf8");
}

/**
 * Stores `token` under `key` atomically (temp file, fsync, rename; file 0600, directory 0700).
 * Only `access_token`, `expiry_date`, `token_type` and `scopes` are written. Returns false when
 * the cache is off or cannot be written (a read-only home is not an error: the cache is an
 * optimisation).
 */
export function writeCachedToken(key: string, token: CachedAccessToken, location: TokenCacheLocation = {}): boolean {
  const dir = resolveDir(location);
  if (!dir) return false;
  const entry: CachedAccessToken = {
    access_token: token.access_token,
    expiry_date: token.expiry_date,
    token_type: token.token_type || "Bearer",
    ...(token.scopes ? { scopes: [...token.scopes] } : {}),
  };
  const target = tokenPath(dir, key);
  const temp = `${target}.${uniqueSuffix()}.tmp`;
  try {
    ensureDir(dir);
    const fd = openSync(temp, "wx", 0o600);
    try {
      writeSync(fd, `${JSON.stringify(entry)}\n`);
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
  const dir = resolveDir(location);
  if (!dir) return;
  try {
    unlinkSync(tokenPath(dir, key));
  } catch {}
}

/** True when `token` still has more than `minValidityMs` milliseconds to live. */
export function hasValidity(
  token: Pick<CachedAccessToken, "expiry_date">,
  minValidityMs: number,
  now: number = Date.now(),
): boolean {
  return token.expiry_date - now > minValidityMs;
}

/** The directory to use: the given or default one, or `false` when off or not private. @internal */
export function resolveDir(location: TokenCacheLocation): string | false {
  const dir = location.dir === undefined ? tokenCacheDir() : location.dir;
  return dir !== false && isPrivateOrAbsent(dir) ? dir : false;
}

/**
 * A directory of another user, or one that group or others may write to, could hand us planted
 * tokens: it is not used. An absent one is fine (it is created with mode 0700).
 */
function isPrivateOrAbsent(dir: string): boolean {
  if (process.platform === "win32" || typeof process.getuid !== "function") return true;
  let stats: Stats;
  try {
    stats = statSync(dir);
  } catch {
    return true;
  }
  return stats.isDirectory() && stats.uid === process.getuid() && (stats.mode & 0o022) === 0;
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
  } catch {
    return undefined;
  }
  if (typeof json !== "object" || json === null) return undefined;
  const { access_token, expiry_date, token_type, scopes } = json as Record<string, unknown>;
  if (
    typeof access_token !== "string" ||
    access_token === "" ||
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
