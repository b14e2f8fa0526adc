// One resolution per process for default(): calls with the same scopes, options and environment
// share one in-flight resolution, and later calls reuse its credentials (as GoogleAuth caches its
// client), so 1,000 concurrent callers make one token request, not 1,000 (bench/README.md).
// A failed resolution is not kept; credentials whose refresh fails are forgotten, and the next
// call resolves afresh. Calls with a `signal` or a `code` are each their own: one caller's abort,
// or a one-time authorization code, must not decide for another.
import type { AuthClient } from "google-auth-library";
import type { DefaultOptions } from "../../options.js";

type Resolution = Promise<[AuthClient, string | null]>;

const resolutions = new Map<string, Resolution>();
const objectIds = new WeakMap<object, number>();
let nextObjectId = 0;

/**
 * `resolve(scopes, options)`, shared with every other call of the same key (see above). Credentials
 * `notToKeep` names (a two-cell sign-in's, still waiting) are not kept: the next call resolves afresh.
 */
export function sharedResolution(
  scopes: readonly string[],
  options: DefaultOptions,
  resolve: (scopes: readonly string[], options: DefaultOptions) => Resolution,
  notToKeep: (credentials: AuthClient) => boolean,
): Resolution {
  if (options.signal !== undefined || options.code !== undefined) return resolve(scopes, options);
  const key = sharingKey(scopes, options);
  const known = resolutions.get(key);
  if (known) return known;
  const resolution = resolve(scopes, options).then(([credentials, projectId]) => {
    if (notToKeep(credentials)) forget(key, resolution);
    else forgetOnFailedRefresh(credentials, () => forget(key, resolution));
    return [credentials, projectId] as [AuthClient, string | null];
  });
  resolutions.set(key, resolution);
  resolution.catch(() => forget(key, resolution));
  return resolution;
}

function forget(key: string, resolution: Resolution): void {
  if (resolutions.get(key) === resolution) resolutions.delete(key);
}

/**
 * Every google-auth-library client that refreshes (user, service account, metadata server)
 * goes through `refreshTokenNoCache`: when it fails (a revoked refresh token, a deleted key),
 * the kept resolution is dropped. The error still reaches the caller unchanged.
 */
function forgetOnFailedRefresh(credentials: AuthClient, onFailure: () => void): void {
  const client = credentials as unknown as { refreshTokenNoCache?: (...args: unknown[]) => Promise<unknown> };
  const refresh = client.refreshTokenNoCache;
  if (typeof refresh !== "function") return;
  client.refreshTokenNoCache = function (this: unknown, ...args: unknown[]) {
    return refresh.apply(this, args).catch((error: unknown) => {
      onFailure();
      throw error;
    });
  };
}

/** Same scopes (as a set), same option values (objects by identity), same environment. */
function sharingKey(scopes: readonly string[], options: DefaultOptions): string {
  const values = Object.entries(options)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => [name, typeof value === "object" || typeof value === "function" ? idOf(value) : value]);
  return JSON.stringify([[...new Set(scopes)].sort(), values, environmentKey()]);
}

let environment: string | undefined;

/**
 * The environment decides where credentials come from (GOOGLE_APPLICATION_CREDENTIALS, HOME, ...).
 * Reading process.env costs microseconds a variable (each is a call into Node), so it is read once
 * for the calls made in one synchronous run of code, and read again after it (a microtask): 1,000
 * callers started together read it once (bench/README.md, target 5c). Unsorted on purpose: the
 * same variables set in another order only cost a second resolution, never a wrong share.
 */
function environmentKey(): string {
  if (environment === undefined) {
    environment = JSON.stringify(process.env);
    queueMicrotask(() => {
      environment = undefined;
    });
  }
  return environment;
}

function idOf(value: object): string {
  let id = objectIds.get(value);
  if (id === undefined) {
    id = nextObjectId++;
    objectIds.set(value, id);
  }
  return `#${id}`;
}
