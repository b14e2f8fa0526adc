#!/usr/bin/env node
// The cred-auth command line (`bin`): turns on Node's compile cache, then runs the command line,
// bundled into one file by `npm run build` (scripts/build.mjs; src/cli/start.ts is its entry).
// Both halve what print-token's cached path costs beyond starting node (bench/README.md).
import { enableCompileCache } from "node:module";
import { lstatSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

// First, before anything that an older Node lacks: the one line that says which Node ran and what is
// needed (the code is ERROR_CODES.NODE_TOO_OLD, spelled out: src/errors.ts would load the bundle).
if (Number(process.versions.node.split(".")[0]) < 22) {
  process.stderr.write(
    `cred-auth: cred-auth needs Node.js 22 or newer; this is Node.js ${process.versions.node} (${process.execPath}). Install Node 22 or later (https://nodejs.org), or run the command with it: /path/to/node22 ${process.argv[1] ?? "cred-auth"} ... (ERR_NODE_TOO_OLD)\n`,
  );
  process.exit(1);
}
useCompileCache(process.env);
// The bundle is minified; with CRED_AUTH_DEBUG=1 (the rule of util/debug.ts, not imported: that would
// be a second copy of it beside the bundle's) its frames name the files of dist/ through its map.
if (/^(1|true|yes)$/i.test(process.env.CRED_AUTH_DEBUG?.trim() ?? "")) process.setSourceMapsEnabled(true);
require("./cli-bundle.js");

/**
 * V8's compiled code for the bundle, kept between runs in `cred-auth/compile-cache` beside the
 * token cache (`$XDG_CACHE_HOME`, `%LOCALAPPDATA%` on Windows, else `~/.cache`): a directory of
 * the user's own, not a shared temp directory. It holds code only (the package's own source
 * compiled), never a token. NODE_DISABLE_COMPILE_CACHE=1 turns it off; a directory that cannot
 * be written (a read-only home) only means no cache.
 */
function useCompileCache(env: NodeJS.ProcessEnv): void {
  try {
    const base =
      env.XDG_CACHE_HOME?.trim() ||
      (process.platform === "win32" ? env.LOCALAPPDATA : undefined) ||
      join(env.HOME || homedir(), ".cache");
    // Only under a cache directory that exists: Node creates the rest, and never a home's tree.
    if (!statSync(base, { throwIfNoEntry: false })?.isDirectory()) return;
    const dir = join(base, "cred-auth", "compile-cache");
    // Compiled code is run: never from a directory someone else owns or can write to.
    if (![join(base, "cred-auth"), dir].every(isPrivateOrAbsent)) return;
    // Everything the CLI writes is private anyway; this makes Node's cache directories 0700 too,
    // whatever the caller's umask (000 would make them writable by every user).
    if (process.platform !== "win32") process.umask(process.umask(0o077) | 0o077); // no-argument umask() is deprecated (DEP0139)
    enableCompileCache(dir);
  } catch {
    // No cache: the command runs as well, only a few milliseconds slower.
  }
}

/** Absent, or a directory of this user that no one else can write (POSIX; always true on Windows). */
function isPrivateOrAbsent(path: string): boolean {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat || process.platform === "win32") return true;
  return stat.isDirectory() && stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0;
}
