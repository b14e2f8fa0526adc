// The runtime entry (dist/index.js): exports at once only what the import may load (errors, caches, the pending
// sign-in, the version: "Load budget"); api.ts's functions load on first call, listed by the build into LAZY_EXPORTS.
import type * as DisplaySafe from "./protocols/display-safe.js";
import { debugEnabled } from "./shared/constants.js";

// A Node older than the engines field: one line on import (in a notebook, under the import cell), not a failure later.
if (Number(process.versions.node.split(".")[0]) < 22)
  process.stderr.write(
    `cred-auth: cred-auth needs Node.js 22 or newer, and this is Node.js ${process.versions.node}: some calls may fail. Install Node 22 or later (https://nodejs.org); in a notebook, start its kernel with it (docs/notebooks.md).\n`,
  );

export * as cache from "./credentials-cache/index.js";
export * as exceptions from "./errors.js";
// errors.ts exports the error classes and ERROR_CODES, all public (api.ts lists them).
export * from "./errors.js";
export { SignInPendingError, cancelSignIn } from "./oauth/pending.js";
export { VERSION, VERSION as __version__ } from "./version.js";

/** api.ts's other values, `[exported name, module, the module's export]`: written by the build (tsc's: empty). */
const LAZY_EXPORTS: readonly (readonly [name: string, module: string, original: string])[] = [];

let displaySafeModule: typeof DisplaySafe | undefined;
const displayed = (): typeof DisplaySafe => (displaySafeModule ??= require("./protocols/display-safe.js"));

/**
 * `module()[name]`, required on the first call: the same function to its caller. Each credentials object leaves
 * the library here, so here it is made display-safe: printed, it shows a summary, never a secret.
 */
function onFirstCall(module: () => Record<string, unknown>, name: string): (...args: unknown[]) => unknown {
  const forward = function (this: unknown, ...args: unknown[]) {
    const result = (module()[name] as (...args: unknown[]) => unknown).apply(this, args);
    if (result instanceof Promise) return settled(result);
    return displayed().displaySafe(result);
  };
  return Object.defineProperty(forward, "name", { value: name });
}

/**
 * What a lazy function's promise settles to, display-safe; a failure's stack starts at the caller's own
 * `await` (an uncaught one would show a line of dist/ instead), unless CRED_AUTH_DEBUG asks for all of it.
 * Not under Deno: its kernel shows the cell, and a cred-auth error stays its one line there (errors.ts).
 */
async function settled(result: Promise<unknown>): Promise<unknown> {
  try {
    return displayed().displaySafe(await result);
  } catch (error) {
    if (error instanceof Error && !("Deno" in globalThis) && !debugEnabled()) Error.captureStackTrace(error, settled);
    throw error;
  }
}

// One forwarder per function, under each name api.ts gives it (`default` is `defaultCredentials`).
const forwarders = new Map<string, (...args: unknown[]) => unknown>();
for (const [name, path, original] of LAZY_EXPORTS) {
  const key = `${path}#${original}`;
  let loaded: Record<string, unknown> | undefined;
  const forward = forwarders.get(key) ?? onFirstCall(() => (loaded ??= require(path)), original);
  forwarders.set(key, forward);
  Object.defineProperty(exports, name, { enumerable: true, value: forward });
}
