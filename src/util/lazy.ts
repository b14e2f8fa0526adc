// Heavy dependencies, loaded the first time they are needed (importing cred-auth loads none).
import { createRequire } from "node:module";
import { hashWithNodeCrypto } from "./sha256.js";

type GoogleAuthLibrary = typeof import("google-auth-library");
type UserRefreshClientClass = GoogleAuthLibrary["UserRefreshClient"];

let googleAuth: Promise<GoogleAuthLibrary> | undefined;

/** google-auth-library (the user's peer copy). */
export function loadGoogleAuth(): Promise<GoogleAuthLibrary> {
  // require(), not import(): import() puts CommonJS through the ESM loader's translator, milliseconds more.
  googleAuth ??= new Promise((resolve) => resolve(withNodeCrypto(require("google-auth-library") as GoogleAuthLibrary)));
  return googleAuth;
}

/** google-auth-library's `UserRefreshClient` from its own module (28 files, not the index's 74): the same class. */
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

/** google-auth-library's `StsCredentials` (not in its index), for a federation client's STS step; undefined if absent. */
export function stsCredentialsClass(): StsCredentialsClass | undefined {
  return requireDeep<{ StsCredentials?: StsCredentialsClass }>("google-auth-library/build/src/auth/stscredentials.js")
    ?.StsCredentials;
}

/** google-auth-library's own "is this a Google VM or serverless" check, from gcp-metadata's one file that holds it. */
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

/** `make()` without google-auth-library's "does not validate the configuration" warning: cred-auth validated it. */
export function withValidatedConfig<T>(make: () => T): T {
  const util = requireDeep<{ suppressAdcWarning?: <R>(fn: () => R) => R }>("google-auth-library/build/src/util.js");
  return typeof util?.suppressAdcWarning === "function" ? util.suppressAdcWarning(make) : make();
}
