// A credentials object displayed shows a summary (class, type, account, scopes, expiry), never a secret: a notebook's
// output lands in git. Applied where a client leaves the library; the object itself is unchanged.
import type { Credentials } from "google-auth-library";
import { getCredentialInfo } from "./info.js";

/** What a displayed credentials object shows (and JSON.stringify writes). */
export interface CredentialsSummary {
  type?: string;
  account?: string;
  scopes?: string[];
  /** When the access token held expires (ISO 8601), or "no token yet". */
  expiry: string;
}

type Inspect = (value: unknown, options?: object) => string;
/** The three hidden properties that display an object. */
type Display = Record<symbol | "toJSON", PropertyDescriptor>;

const NODE_INSPECT = Symbol.for("nodejs.util.inspect.custom");
const DENO_INSPECT = Symbol.for("Deno.customInspect");

/** `value` with its credentials objects made display-safe: a client, or each of a tuple (default()'s). */
export function displaySafe<T>(value: T): T {
  if (Array.isArray(value)) for (const item of value) guard(item);
  else guard(value);
  return value;
}

/** The summary `credentials` displays as: nothing secret, read when displayed (the expiry moves). */
export function credentialsSummary(credentials: object): CredentialsSummary {
  const info = getCredentialInfo(credentials);
  const fields = credentials as { email?: unknown; serviceAccountEmail?: unknown; scopes?: unknown };
  const type = info?.type;
  const account =
    info?.account ?? [fields.email, fields.serviceAccountEmail].find((v): v is string => typeof v === "string" && !!v);
  const scopes = info?.scopes.length ? [...info.scopes] : scopeList(fields.scopes);
  return {
    ...(type ? { type } : {}),
    ...(account ? { account } : {}),
    ...(scopes?.length ? { scopes } : {}),
    expiry: expiryOf((credentials as { credentials?: Credentials }).credentials),
  };
}

/** Each guarded object's own display functions, made once: default()'s 1,000 concurrent callers share one (5c). */
const displays = new WeakMap<object, Display>();

/** Gives a credentials object its display (util.inspect, Deno.inspect, JSON.stringify); others untouched. */
function guard(value: unknown): void {
  if (!isCredentials(value) || !Object.isExtensible(value)) return;
  const known = displays.get(value);
  if (known && ownDisplay(value, known)) return;
  const display = known ?? displayOf(value);
  displays.set(value, display);
  Object.defineProperties(value, display);
}

/** Whether `value` still shows through `display`'s functions (a caller may have replaced one). */
function ownDisplay(value: object, display: Display): boolean {
  const shown = value as Record<symbol | "toJSON", unknown>;
  return (
    shown[NODE_INSPECT] === display[NODE_INSPECT].value &&
    shown[DENO_INSPECT] === display[DENO_INSPECT].value &&
    shown.toJSON === display.toJSON.value
  );
}

/** The display functions of `value`: its summary, through the runtime's inspect or JSON. */
function displayOf(value: object): Display {
  const name = value.constructor?.name || "Credentials";
  // The runtime's own inspect formats the summary (colours, depth); without one (an older caller), JSON.
  const show = (inspect: Inspect | undefined, options?: object): string => {
    const summary = credentialsSummary(value);
    return `${name} ${inspect ? inspect(summary, options) : JSON.stringify(summary)}`;
  };
  // Own, non-enumerable: copies, Object.keys and google-auth-library never see them.
  const hidden = (fn: unknown): PropertyDescriptor => ({ value: fn, configurable: true, writable: true });
  return {
    [NODE_INSPECT]: hidden((_depth: number, options: object, inspect?: Inspect) => show(inspect, options)),
    [DENO_INSPECT]: hidden((inspect?: Inspect, options?: object) => show(inspect, options)),
    toJSON: hidden(() => credentialsSummary(value)),
  };
}

/** A google-auth-library client, or any object that gives access tokens or request headers. */
function isCredentials(value: unknown): value is object {
  if (typeof value !== "object" || value === null) return false;
  const client = value as { getAccessToken?: unknown; getRequestHeaders?: unknown };
  return typeof client.getAccessToken === "function" || typeof client.getRequestHeaders === "function";
}

function expiryOf(credentials: Credentials | undefined): string {
  const expiry = credentials?.expiry_date;
  return typeof expiry === "number" && Number.isFinite(expiry) ? new Date(expiry).toISOString() : "no token yet";
}

function scopeList(scopes: unknown): string[] | undefined {
  if (typeof scopes === "string") return scopes.split(/\s+/).filter(Boolean);
  return Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === "string") : undefined;
}
