// Where and how long google-auth-library's token requests go: the JWT client hard-codes Google's
// token URL and no client bounds a request in time, so an interceptor on its transporter does both.
import type { AuthClient } from "google-auth-library";
import { CredConnectionError, ERROR_CODES } from "../errors.js";
import { credentialsTokenUrl } from "../formats/destinations.js";
import { ENV } from "../shared/constants.js";
import type { Universe } from "../trust/urls.js";
import { announceEmulator } from "./endpoints.js";
import { collectSecrets, grantTypeOf, redactTokenRequestError, toCredError } from "./token-errors.js";

/** How long one token request attempt may take before it counts as a timeout. */
export const DEFAULT_TOKEN_TIMEOUT_MS = 20_000;

/** The token-request timeout: `CRED_AUTH_TOKEN_TIMEOUT_MS` when it is a positive integer, else 20 s. */
export function tokenTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const value = env[ENV.tokenTimeout]?.trim() ?? "";
  const ms = /^[0-9]{1,9}$/.test(value) ? Number(value) : 0;
  return ms > 0 ? ms : DEFAULT_TOKEN_TIMEOUT_MS;
}

/** A token reply is a small JSON object; a longer one is not read (node-fetch's `size`). */
export const MAX_TOKEN_REPLY_BYTES = 256 * 1024;

type Interceptors = AuthClient["transporter"]["interceptors"]["request"];
type RequestInterceptor = NonNullable<Parameters<Interceptors["add"]>[0]>;
type PreparedOptions = Parameters<RequestInterceptor["resolved"] & {}>[0];
type Adapter = NonNullable<PreparedOptions["adapter"]>;
type ErrorRedactor = NonNullable<PreparedOptions["errorRedactor"]>;

/** The token URL of `file`: its `token_uri` judged in `universe`, the emulator standing in (and announced when asked). */
export function chooseTokenUrl(
  file: { universeDomain?: string; tokenUrl?: string },
  universe: Universe,
  path?: string,
): string {
  const tokenUrl = credentialsTokenUrl(file, universe, path);
  if (universe.emulator !== undefined && tokenUrl.startsWith(`${universe.emulator}/`))
    announceEmulator(universe.emulator);
  return tokenUrl;
}

export interface TokenRequestGuard {
  tokenUrl: string;
  /** Per-attempt limit in milliseconds. */
  timeoutMs: number;
  /** A hard-coded URL the client uses instead of `tokenUrl` (Google's, for JWT): rewritten to `tokenUrl`. */
  rewriteFrom?: string;
}

/**
 * Interceptors on `client`'s transporter: token requests go to `tokenUrl` within `timeoutMs` per attempt,
 * a reply without a string `access_token` is refused, and a failure never holds what was sent.
 */
export function guardTokenRequests(client: AuthClient, guard: TokenRequestGuard): void {
  const target = new URL(guard.tokenUrl);
  const rewriteFrom =
    guard.rewriteFrom !== undefined && !sameUrl(guard.rewriteFrom, guard.tokenUrl) ? guard.rewriteFrom : undefined;
  client.transporter.interceptors.request.add({
    resolved: async (options) => {
      if (rewriteFrom !== undefined && sameUrl(options.url, rewriteFrom)) options.url = new URL(target);
      if (!sameUrl(options.url, target)) return options;
      // Loopback is never reached through a proxy: the transport (trust/transport.ts) drops gaxios's.
      (options as { size?: number }).size = MAX_TOKEN_REPLY_BYTES;
      options.adapter = withTimeout(options.adapter, guard.timeoutMs);
      options.errorRedactor = redactingSentSecrets(options, options.errorRedactor);
      return options;
    },
  });
  client.transporter.interceptors.response.add({
    resolved: async (response) => {
      // google-auth-library assumes a JSON object and would fail with a TypeError quoting the
      // reply (which may hold a token); refuse anything else as unreadable, naming nothing.
      if (sameUrl(response.config.url, target) && (response.data === null || typeof response.data !== "object")) {
        throw new SyntaxError("The token server's reply is not a JSON object.");
      }
      if (sameUrl(response.config.url, target) && !usableAccessToken(response.data)) {
        throw new SyntaxError("The token server's reply holds an access_token that is not a string.");
      }
      return response;
    },
  });
}

/** Absent (an id-token reply) or a non-empty string; anything else would end up in an Authorization header. */
function usableAccessToken(data: object): boolean {
  const token = (data as { access_token?: unknown }).access_token;
  return token === undefined || (typeof token === "string" && token !== "");
}

/** gaxios's default redactor leaves the refresh token, the code and the server's echo: take what was sent out. */
function redactingSentSecrets(options: PreparedOptions, inner: PreparedOptions["errorRedactor"]): ErrorRedactor {
  // Loaded on use: print-token's cached path loads this module but makes no request.
  const sent = new Set<string>();
  collectSecrets(options, sent);
  // Read before gaxios' own redactor rewrites the body: it says what a rejection was about.
  const grantType = grantTypeOf({ config: options });
  return ((data) => {
    const redacted = typeof inner === "function" ? inner(data) : data;
    redactTokenRequestError(data, sent, grantType);
    return redacted;
  }) as ErrorRedactor;
}

function withTimeout(inner: Adapter | undefined, timeoutMs: number): Adapter {
  return async (options, defaultAdapter) => {
    const timer = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timer]) : timer;
    const attempt = { ...options, signal };
    try {
      return await (inner ? inner(attempt, defaultAdapter) : defaultAdapter(attempt));
    } catch (error) {
      // node-fetch reports a plain AbortError; the timer's reason says "TimeoutError", which gaxios retries.
      // Only an attempt the timer ended: a reply that failed on its own is no timeout, even when the timer fired since.
      if (timer.aborted && !options.signal?.aborted && isAbort(error)) throw timer.reason;
      throw error;
    }
  };
}

/** An attempt ended by its signal: node-fetch's AbortError, or the signal's own reason. */
function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

function sameUrl(a: string | URL, b: string | URL): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    return x.origin === y.origin && x.pathname === y.pathname;
  } catch {
    return false;
  }
}

/** Obtains an access token once, mapping failures to cred-auth errors. */
export async function proveCredentials(client: AuthClient, what: string): Promise<void> {
  try {
    const { token } = await client.getAccessToken();
    if (!token)
      throw new CredConnectionError(`${what} failed: the token server's reply held no access token; try again later.`, {
        code: ERROR_CODES.SERVER_ERROR,
      });
  } catch (error) {
    throw toCredError(error, what);
  }
}
