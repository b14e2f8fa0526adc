// One resolution per process for default(): calls with the same scopes, options and environment share it,
// so 1,000 concurrent callers make one token request. Failures are not kept; `signal` and `code` calls are their own.
import type { AuthClient } from "google-auth-library";
import type { DefaultOptions } from "../../options.js";

type Resolution = Promise<[AuthClient, string | null]>;

const resolutions = new Map<string, Resolution>();
const objectIds = new WeakMap<object, number>();
let nextObjectId = 0;

/** `resolve(scopes, options)`, shared with every call of the same key; `notToKeep`'s credentials are not kept. */
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

/** A kept resolution whose refresh fails (a revoked token, a deleted key) is dropped; the error reaches the caller. */
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
  const scopeSet = scopes.length === 1 ? scopes : [...new Set(scopes)].sort();
  return `${environmentId()}${JSON.stringify([scopeSet, optionValues(options)])}`;
}

/** The options' defined values by name, sorted; `[]` without any (the common call: no per-call arrays). */
function optionValues(options: DefaultOptions): unknown[] {
  if (!Object.values(options).some((value) => value !== undefined)) return [];
  return Object.entries(options)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => [name, typeof value === "object" || typeof value === "function" ? idOf(value) : value]);
}

/** Each environment seen (process.env as JSON), by a number: the key holds the number, not kilobytes of text. */
const environmentIds = new Map<string, number>();
let environment: number | undefined;

/** The environment, read once per microtask: 1,000 callers started together read process.env once (bench target 5c). */
function environmentId(): number {
  if (environment === undefined) {
    const text = JSON.stringify(process.env);
    environment = environmentIds.get(text) ?? environmentIds.size;
    environmentIds.set(text, environment);
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
