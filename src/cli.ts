#!/usr/bin/env node
// The cred-auth command line (`bin`): runs the command line, bundled by `npm run build`
// (scripts/build.mjs; src/cli/start.ts is its entry): dist/cli-bundle.js holds what print-token's
// cached path runs, dist/cli-cold.js the rest, loaded when reached. print-token's path is compiled
// from a bytecode cache of its own (runBundle); Node's compile cache is turned on when the cold
// bundle or a package loads. Together they take print-token's cached path close to the cost of
// starting node (bench/README.md, target 2).
import type * as NodeModule from "node:module";
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
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
const cacheDir = compileCacheDirectory(process.env);
// The bundle is minified; with CRED_AUTH_DEBUG=1 (the rule of util/debug.ts, not imported: that would
// be a second copy of it beside the bundle's) its frames name the files of dist/ through its map.
if (/^(1|true|yes)$/i.test(process.env.CRED_AUTH_DEBUG?.trim() ?? "")) {
  if (cacheDir !== undefined) startCompileCache(cacheDir);
  process.setSourceMapsEnabled(true);
  require(BUNDLE);
} else runBundle(cacheDir);

/**
 * V8's compiled code for the command line, kept between runs in `cred-auth/compile-cache` beside
 * the token cache (`$XDG_CACHE_HOME`, `%LOCALAPPDATA%` on Windows, else `~/.cache`): a directory
 * of the user's own, not a shared temp directory. It holds code only (the package's own source
 * compiled), never a token. NODE_DISABLE_COMPILE_CACHE=1 turns it off; a directory that cannot
 * be written (a read-only home) only means no cache. The directory, when it may be used.
 */
function compileCacheDirectory(env: NodeJS.ProcessEnv): string | undefined {
  try {
    if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
    const base =
      env.XDG_CACHE_HOME?.trim() ||
      (process.platform === "win32" ? env.LOCALAPPDATA : undefined) ||
      join(env.HOME || os().homedir(), ".cache");
    // Only under a cache directory that exists: the rest is made, never a home's tree.
    if (!statSync(base, { throwIfNoEntry: false })?.isDirectory()) return undefined;
    const dir = join(base, "cred-auth", "compile-cache");
    // Compiled code is run: never from a directory someone else owns or can write to.
    return [join(base, "cred-auth"), dir].every(isPrivateOrAbsent) ? dir : undefined;
  } catch {
    // No cache: the command runs as well, only a few milliseconds slower.
    return undefined;
  }
}

/** Node's compile cache in `dir`, for the cold bundle and the packages (failing only means none). */
function startCompileCache(dir: string): void {
  try {
    // Everything the CLI writes is private anyway; this makes Node's cache directories 0700 too,
    // whatever the caller's umask (000 would make them writable by every user).
    if (process.platform !== "win32") process.umask(process.umask(0o077) | 0o077); // no-argument umask() is deprecated (DEP0139)
    // Required here, not imported: node:module brings Node's ES module loader and source maps, about
    // 3% of print-token's cached path, which never turns the compile cache on (bench/README.md, target 2).
    (require("node:module") as typeof NodeModule).enableCompileCache(dir);
  } catch {
    // No cache.
  }
}

/**
 * The `require` the bundle is run with: the first module it asks for that is not built into Node
 * (the cold bundle, a package) turns Node's compile cache on first. print-token's cached path asks
 * for none, so it does not pay for a cache it would not use: its bundle has a bytecode cache of
 * its own (runBundle), and Node's would hold nothing of it.
 */
function requireStartingCompileCache(dir: string | undefined): (id: string) => unknown {
  let notStarted = dir;
  return (id) => {
    if (notStarted !== undefined && !id.startsWith("node:")) {
      startCompileCache(notStarted);
      notStarted = undefined;
    }
    return require(id);
  };
}

/** Absent, or a directory of this user that no one else can write (POSIX; always true on Windows). */
function isPrivateOrAbsent(path: string): boolean {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat || process.platform === "win32") return true;
  return stat.isDirectory() && stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0;
}

/**
 * Runs dist/cli-bundle.js from a bytecode cache made after a successful print-token run, so
 * that it holds every function that path compiled. Node's compile cache is made before the code
 * runs, so it holds little more than the top level, and V8 compiled each function again on every
 * run (about a sixth of the cached path's instructions). The cache's name carries the bundle's
 * digest and Node's version: a cache of another bundle or another V8 is never offered to this one
 * (V8 itself checks only the source's length and its own version). Without a cache directory,
 * or before the build wrote the digest, the bundle is required as any module.
 */
function runBundle(dir: string | undefined): void {
  if (dir === undefined || BUNDLE_DIGEST === "unbuilt") {
    if (dir !== undefined) startCompileCache(dir);
    require(BUNDLE);
    return;
  }
  const { Script } = require("node:vm") as typeof import("node:vm");
  const cacheFile = join(dir, `print-token-${BUNDLE_DIGEST}-${process.version}-${process.arch}.bin`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // None yet: this run may make it.
  }
  const wrapper = `(function (exports, require, module, __filename, __dirname) {${readFileSync(BUNDLE, "utf8")}\n})`;
  const script = new Script(wrapper, { filename: BUNDLE, ...(cachedData ? { cachedData } : {}) });
  if ((cachedData === undefined || script.cachedDataRejected) && process.argv[2] === "print-token")
    process.once("exit", (code) => {
      if (code === 0) saveBytecode(cacheFile, script.createCachedData());
    });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, requireStartingCompileCache(dir), module, BUNDLE, __dirname);
}

/** A cache file older than this was made by a bundle or a Node that is likely gone. */
const STALE_BYTECODE_MS = 30 * 24 * 3600 * 1000;

/**
 * Removes the caches of other bundles and Nodes (and temp files of runs that died) made more
 * than 30 days ago: each update of cred-auth or of Node leaves one behind. Only when a cache is
 * made, so never on the cached path; another install still in use makes its cache again once.
 */
function removeStaleBytecode(dir: string): void {
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    if (!/^print-token-[\w.-]+\.bin(\.\d+\.tmp)?$/.test(name)) continue;
    const path = join(dir, name);
    if (now - (lstatSync(path, { throwIfNoEntry: false })?.mtimeMs ?? now) > STALE_BYTECODE_MS)
      rmSync(path, { force: true });
  }
}

/** Writes the cache whole or not at all (processes run at once); failing only means no cache. */
function saveBytecode(file: string, data: Buffer): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    // Absent or private (compileCacheDirectory): made private when this run started no compile cache.
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(temp, data, { mode: 0o600, flag: "wx" });
    renameSync(temp, file);
    removeStaleBytecode(dirname(file));
  } catch {
    try {
      rmSync(temp, { force: true });
    } catch {}
  }
}
