// The package's runtime entry (dist/index.js). It exports the values src/api.ts declares (api.ts
// is the public API as users see it: its declarations, TSDoc included, become dist/index.d.ts),
// but a function of the credentials machinery loads its module on its first call. So
// `import * as credAuth from "cred-auth"` loads the error classes, the caches (which load what
// they read and write with on first use) and the version: 10 modules instead of 60, about a fifth
// of the import's time, which a notebook's first cell pays on top of type-checking the package's
// declarations (bench/README.md, targets 1 and 9).
// The first call loads what the import used to: `default()` costs the same in all.
// Each export below is typed as api.ts declares it; scripts/build.mjs checks that both export
// the same names.
import type * as Api from "./api.js";
import type * as Complete from "./credentials/complete.js";
import type * as Default from "./credentials/default.js";
import type * as IdToken from "./credentials/id-token.js";
import type * as ServiceAccount from "./credentials/service-account.js";
import type * as User from "./credentials/user.js";
import type * as Registry from "./hosted/registry.js";
import type * as DisplaySafe from "./token-services/display-safe.js";
import type * as LoadUser from "./token-services/load-user.js";

export * as cache from "./cache/index.js";
export * as exceptions from "./errors.js";
// errors.ts exports the error classes and ERROR_CODES, all public (api.ts lists them).
export * from "./errors.js";
export { SignInPendingError, cancelSignIn } from "./oauth/pending.js";
export { VERSION, VERSION as __version__ } from "./version.js";

const displayed = (): typeof DisplaySafe => require("./token-services/display-safe.js");

/**
 * `module()[name]`, required on the first call: the same function to its caller (name, signature,
 * overloads, `this`, what it returns and throws), one frame deeper in a stack trace. Here each
 * credentials object leaves the library, so here it is made display-safe: printed (a notebook
 * cell's value, console.log, JSON.stringify) it shows a summary, never a secret.
 */
function onFirstCall<M, K extends keyof M & string>(module: () => M, name: K): M[K] {
  const forward = function (this: unknown, ...args: unknown[]) {
    const result = (module()[name] as (...args: unknown[]) => unknown).apply(this, args);
    if (result instanceof Promise) return result.then((value) => displayed().displaySafe(value));
    return displayed().displaySafe(result);
  };
  return Object.defineProperty(forward, "name", { value: name }) as M[K];
}

const defaults = (): typeof Default => require("./credentials/default.js");
const user = (): typeof User => require("./credentials/user.js");
const complete = (): typeof Complete => require("./credentials/complete.js");
const serviceAccount = (): typeof ServiceAccount => require("./credentials/service-account.js");
const idToken = (): typeof IdToken => require("./credentials/id-token.js");
const registry = (): typeof Registry => require("./hosted/registry.js");
const loadUser = (): typeof LoadUser => require("./token-services/load-user.js");

export const defaultCredentials: typeof Api.defaultCredentials = onFirstCall(defaults, "defaultCredentials");
export { defaultCredentials as default };
export const getUserCredentials: typeof Api.getUserCredentials = onFirstCall(user, "getUserCredentials");
export const saveUserCredentials: typeof Api.saveUserCredentials = onFirstCall(user, "saveUserCredentials");
export const completeSignIn: typeof Api.completeSignIn = onFirstCall(complete, "completeSignIn");
export const loadUserCredentials: typeof Api.loadUserCredentials = onFirstCall(loadUser, "loadUserCredentials");
export const loadServiceAccountCredentials: typeof Api.loadServiceAccountCredentials = onFirstCall(
  serviceAccount,
  "loadServiceAccountCredentials",
);
export const fetchIdToken: typeof Api.fetchIdToken = onFirstCall(idToken, "fetchIdToken");
export const getIdTokenClient: typeof Api.getIdTokenClient = onFirstCall(idToken, "getIdTokenClient");
export const registerHostedEnvironment: typeof Api.registerHostedEnvironment = onFirstCall(
  registry,
  "registerHostedEnvironment",
);
