#!/usr/bin/env node
// The `cred-auth` bin: runs dist/cli-bundle.js from a V8 bytecode cache and starts Node's compile cache when the
// cold bundle or a package loads (bench/README.md, target 2); cached code is trusted as code is (docs/security.md).
import type * as NodeModule from "node:module";
import {
  type Stats,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import type * as Os from "node:os";
import { dirname, join } from "node:path";

// First, before anything that an older Node lacks: the one line that says which Node ran and what is
// needed (the code is ERROR_CODES.NODE_TOO_OLD, spelled out: src/errors.ts would load the bundle).
if (Number(process.versions.node.split(".")[0]) < 22) {
  process.stderr.write(
    `cred-auth: cred-auth needs Node.js 22 or newer; this is Node.js ${process.versions.node} (${process.execPath}). Install Node 22 or later (https://nodejs.org), or run the command with it: /path/to/node22 ${process.argv[1] ?? "cred-auth"} ... (ERR_NODE_TOO_OLD)\n`,
  );
  process.exit(1);
}

// Asked only without HOME: node:os costs most of a millisecond to load, on print-token's cached path.
const os = (): typeof Os => require("node:os");

/** The first 16 hex digits of dist/cli-bundle.js's SHA-256, written in by the build ("unbuilt" before). */
const BUNDLE_DIGEST: string = "unbuilt";

const BUNDLE = join(__dirname, "cli-bundle.js");
const MAX_BYTECODE_BYTES = 16 * 1024 * 1024; // a cache is a few hundred kilobytes
// Whether the bundle required only Node's own modules (no cold bundle, no package): print-token's cached path.
let onlyBuiltins = true;
const cacheDir = compileCacheDirectory(process.env);
// CRED_AUTH_DEBUG=1 (shared/constants.ts's debugEnabled, not imported: a second copy beside the bundle's): no bytecode cache,
// so a stack names each function (the bundle keeps its names).
if (/^(1|true|yes)$/i.test(process.env.CRED_AUTH_DEBUG?.trim() ?? "")) {
  if (cacheDir !== undefined) startCompileCache(cacheDir);
  require(BUNDLE);
} else runBundle(cacheDir);

/**
 * `cred-auth/compile-cache` under `$XDG_CACHE_HOME` (`%LOCALAPPDATA%`, `~/.cache`), when each directory is absent or
 * the user's own and closed to others: code placed there runs as the user. NODE_DISABLE_COMPILE_CACHE=1: none.
 */
function compileCacheDirectory(env: NodeJS.ProcessEnv): string | undefined {
  try {
    if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
    const base =
      env.XDG_CACHE_HOME?.trim() ||
      (process.platform === "win32" ? env.LOCALAPPDATA : undefined) ||
      join(env.HOME || os().homedir(), ".cache");
    // Only under a cache directory that exists: the rest is made, never a home's tree.
    const dir = join(base, "cred-auth", "compile-cache");
    const stats = [
      statSync(base),
      lstatSync(dirname(dir), { throwIfNoEntry: false }),
      lstatSync(dir, { throwIfNoEntry: false }),
    ];
    return stats.every(isPrivateDirectory) ? dir : undefined;
  } catch {
    return undefined; // no cache: the command runs as well, only a few milliseconds slower
  }
}

/** Absent, or a directory of this user's that no one else may write (always true on Windows: no owners there). */
function isPrivateDirectory(stat: Stats | undefined): boolean {
  return !stat || process.platform === "win32" || (stat.isDirectory() && isOwnAndClosed(stat));
}

function isOwnAndClosed(stat: Stats): boolean {
  return stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0;
}

/** Node's compile cache in `dir`, for the cold bundle and the packages (failing only means none). */
function startCompileCache(dir: string): void {
  try {
    // Node's cache directories 0700 whatever the umask (000 would open them to all); umask() alone is deprecated.
    if (process.platform !== "win32") process.umask(process.umask(0o077) | 0o077);
    // Required here: node:module (its ES module loader, source maps) is 3% of print-token's cached path.
    (require("node:module") as typeof NodeModule).enableCompileCache(dir);
  } catch {} // no cache
}

/** The bundle's `require`: a first non-builtin module starts the compile cache (print-token's cached path: none). */
function requireStartingCompileCache(dir: string | undefined): (id: string) => unknown {
  return (id) => {
    if (onlyBuiltins && !id.startsWith("node:")) {
      onlyBuiltins = false;
      if (dir !== undefined) startCompileCache(dir);
    }
    return require(id);
  };
}

/**
 * Runs dist/cli-bundle.js from a bytecode cache made after a successful print-token run of the cached path (holding
 * every function it compiled, none of a refresh's: 20 KB and 1 M instructions less a run); its name carries the
 * bundle's digest and Node's version: V8 checks only the source's length.
 */
function runBundle(dir: string | undefined): void {
  if (dir === undefined || BUNDLE_DIGEST === "unbuilt") {
    if (dir !== undefined) startCompileCache(dir);
    require(BUNDLE);
    return;
  }
  const { Script } = require("node:vm") as typeof import("node:vm");
  const cacheFile = join(dir, `print-token-${BUNDLE_DIGEST}-${process.version}-${process.arch}.bin`);
  const cachedData = ownBytecode(cacheFile);
  const wrapper = `(function (exports, require, module, __filename, __dirname) {${readFileSync(BUNDLE, "latin1")}\n})`;
  const script = new Script(wrapper, { filename: BUNDLE, ...(cachedData ? { cachedData } : {}) });
  if ((cachedData === undefined || script.cachedDataRejected) && process.argv[2] === "print-token")
    process.once("exit", (code) => {
      if (code === 0 && onlyBuiltins) saveBytecode(cacheFile, script.createCachedData());
    });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, requireStartingCompileCache(dir), module, BUNDLE, __dirname);
}

/**
 * The cache at `file`, opened without following a link, judged on that handle (the user's, closed to others), its two
 * copies equal (V8 crashes on a corrupt cache; any digest costs 1.7-10 ms, the comparison 0.1).
 */
function ownBytecode(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined; // none yet: this run may make it
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_BYTECODE_BYTES) return undefined;
    if (process.platform !== "win32" && !isOwnAndClosed(stat)) return undefined;
    const data = readFileSync(fd);
    const half = data.subarray(0, data.length / 2);
    return data.length % 2 === 0 && half.equals(data.subarray(half.length)) ? half : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Removes caches and temp files older than 30 days (each update of cred-auth or Node leaves one), when one is made. */
function removeStaleBytecode(dir: string): void {
  for (const name of readdirSync(dir).filter((n) => /^print-token-[\w.-]+\.bin(\.\d+\.tmp)?$/.test(n))) {
    const path = join(dir, name);
    if (Date.now() - (lstatSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 30 * 86_400_000)
      rmSync(path, { force: true });
  }
}

/** Writes the cache whole or not at all (processes run at once); failing only means no cache. */
function saveBytecode(file: string, data: Buffer): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    // Absent or private (compileCacheDirectory): made private when this run started no compile cache.
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(temp, Buffer.concat([data, data]), { mode: 0o600, flag: "wx" });
    renameSync(temp, file);
    removeStaleBytecode(dirname(file));
  } catch {
    try {
      rmSync(temp, { force: true });
    } catch {}
  }
}
