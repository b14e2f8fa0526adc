// Heavy dependencies, loaded the first time they are needed (importing cred-auth loads none).
import { createRequire } from "node:module";
import { hashWithNodeCrypto } from "./sha256.js";

type GoogleAuthLibrary = typeof import("google-auth-library");
type UserRefreshClientClass = GoogleAuthLibrary["UserRefreshClient"];

let googleAuth: Promise<GoogleAuthLibrary> | undefined;

/** google-auth-library (the user's peer copy). */
export function loadGoogleAuth(): Promise<GoogleAuthLibrary> {
  // require(), not import(): google-auth-library is CommonJS, and import() would put it through
  // the ESM loader's CommonJS translator, a few milliseconds more on every fresh process that
  // needs it (bench/README.md, targets 3 and 4). Same module instance either way.
  googleAuth ??= new Promise((resolve) => resolve(withNodeCrypto(require("google-auth-library") as GoogleAuthLibrary)));
  return googleAuth;
}

/**
 * google-auth-library's `UserRefreshClient`, without the rest of the library: its own module
 * loads 28 files where the package's index loads 74 (bench/README.md, target 4). It is the very
 * class the index exports (one module instance per path), so `instanceof` holds for callers.
 * A copy laid out otherwise falls back to the index.
 */
export async function loadUserRefreshClient(): Promise<UserRefreshClientClass> {
  const deep = requireDeep<{ UserRefreshClient?: UserRefreshClientClass }>(
    "google-auth-library/build/src/auth/refreshclient.js",
  );
  if (deep?.UserRefreshClient) return withNodeCrypto(deep.UserRefreshClient);
  return (await loadGoogleAuth()).UserRefreshClient;
}

/** `loaded`, after telling the cache keys' hash that node:crypto is loaded: google-auth-library loads it. */
function withNodeCrypto<T>(loaded: T): T {
  hashWithNodeCrypto(require("node:crypto"));
  return loaded;
}

type StsCredentialsClass = typeof import("google-auth-library/build/src/auth/stscredentials.js").StsCredentials;

/**
 * google-auth-library's `StsCredentials` (not exported by its index), for an external-account
 * client's STS step through the client's own transporter (protocols/client-transport.ts);
 * undefined for a library laid out otherwise.
 */
export function stsCredentialsClass(): StsCredentialsClass | undefined {
  return requireDeep<{ StsCredentials?: StsCredentialsClass }>("google-auth-library/build/src/auth/stscredentials.js")
    ?.StsCredentials;
}

/**
 * google-auth-library's own cheap "is this a Google VM or serverless runtime" check (no network),
 * from the one file of gcp-metadata that holds it, instead of loading google-auth-library whole.
 */
export async function isOnGoogleCloud(): Promise<boolean> {
  const residency = requireDeep<{ detectGCPResidency?: () => boolean }>(
    "gcp-metadata/build/src/gcp-residency.js",
    "google-auth-library",
  );
  if (typeof residency?.detectGCPResidency === "function") return residency.detectGCPResidency();
  return (await loadGoogleAuth()).gcpMetadata.getGCPResidency();
}

/** `specifier` resolved from `from`'s package (ours by default); undefined when it is not there. */
function requireDeep<T>(specifier: string, from?: string): T | undefined {
  try {
    const base = from === undefined ? require : createRequire(require.resolve(from));
    return base(specifier) as T;
  } catch {
    return undefined;
  }
}

/**
 * Runs `make` with google-auth-library's "does not validate the credential configuration"
 * console warning off. Only for configurations cred-auth has validated itself (the token and
 * impersonation URLs are judged by trust/urls.ts through formats/destinations.ts): the warning would be untrue there,
 * and it is printed on every load. A library laid out otherwise just warns.
 */
export function withValidatedConfig<T>(make: () => T): T {
  const util = requireDeep<{ suppressAdcWarning?: <R>(fn: () => R) => R }>("google-auth-library/build/src/util.js");
  return typeof util?.suppressAdcWarning === "function" ? util.suppressAdcWarning(make) : make();
}
