import { CredAuthError, CredConnectionError, CredCredentialsError } from "../errors.js";

const CREDENTIAL_ERRORS: Record<string, string> = {
  invalid_grant: "the refresh token is expired or revoked; sign in again",
  invalid_client: "the OAuth client id or secret was rejected; check the client",
  unauthorized_client: "this OAuth client may not use this grant; check the client type",
  invalid_scope: "a requested scope was rejected",
  access_denied: "access was denied",
  invalid_request: "the token request was rejected as malformed",
};

const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EPIPE", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_SOCKET"]);

interface ErrorLike {
  code?: unknown;
  status?: unknown;
  response?: { status?: number; data?: unknown };
  cause?: unknown;
  name?: unknown;
  type?: unknown;
}

/**
 * Maps what google-auth-library, gaxios or fetch threw while getting a token to a cred-auth
 * error. `what` says what we were doing, e.g. `Refreshing credentials from /path/file.json`.
 * Only the provider's error code and status are quoted: never a token, secret or body.
 */
export function toCredError(error: unknown, what: string): CredAuthError {
  if (error instanceof CredAuthError) return error;
  redactRequests(error);
  const e = (error ?? {}) as ErrorLike;
  const status = e.response?.status ?? (typeof e.status === "number" ? e.status : undefined);
  const oauthCode = oauthErrorCode(e.response?.data);
  if (oauthCode) {
    const reason = CREDENTIAL_ERRORS[oauthCode] ?? "the provider rejected the credentials";
    if (status !== undefined && status >= 500) return new CredConnectionError(`${what} failed: the token server answered ${status} (${oauthCode}); try again later.`, { cause: error });
    return new CredCredentialsError(`${what} failed: ${oauthCode}: ${reason}.`, { cause: error });
  }
  if (status !== undefined) {
    if (status >= 500 || status === 408 || status === 429) {
      return new CredConnectionError(`${what} failed: the token server answered HTTP ${status}; try again later.`, { cause: error });
    }
    return new CredCredentialsError(`${what} failed: the token server answered HTTP ${status}.`, { cause: error });
  }
  const code = networkCode(error);
  if (code) return new CredConnectionError(`${what} failed: could not reach the token server (${code}); check the network.`, { cause: error });
  if (isTimeout(error)) return new CredConnectionError(`${what} failed: the token server did not answer in time; try again later.`, { cause: error });
  if (e.name === "SyntaxError" || (e.response && e.response.data === undefined)) {
    return new CredConnectionError(`${what} failed: the token server sent an unreadable reply.`, { cause: error });
  }
  return new CredCredentialsError(`${what} failed: ${describe(error)}.`, { cause: error });
}

function oauthErrorCode(data: unknown): string | undefined {
  if (data && typeof data === "object" && "error" in data) {
    const code = (data as { error: unknown }).error;
    if (typeof code === "string" && /^[a-z_]{1,64}$/.test(code)) return code;
  }
  return undefined;
}

function networkCode(error: unknown): string | undefined {
  for (let e = error as ErrorLike | undefined, depth = 0; e && depth < 5; e = e.cause as ErrorLike | undefined, depth++) {
    if (typeof e.code === "string" && NETWORK_CODES.has(e.code)) return e.code;
  }
  return undefined;
}

/** gaxios reports a timed-out attempt as code `TimeoutError` with a DOMException of that name as cause. */
function isTimeout(error: unknown): boolean {
  for (let e = error as ErrorLike | undefined, depth = 0; e && depth < 5; e = e.cause as ErrorLike | undefined, depth++) {
    if (e.name === "AbortError" || e.name === "TimeoutError" || e.type === "request-timeout" || e.code === "ETIMEDOUT" || e.code === "TimeoutError") return true;
  }
  return false;
}

const REDACTED = "<redacted by cred-auth>";

/**
 * gaxios errors keep the request (`config.data`/`body`: refresh token, client secret, JWT
 * assertion; `headers`: Authorization). The error becomes our `cause`, which a deep
 * `console.log` would print: blank those parts out.
 */
function redactRequests(error: unknown): void {
  for (let e = error as { config?: unknown; response?: { config?: unknown }; cause?: unknown } | undefined, depth = 0; e && typeof e === "object" && depth < 5; e = e.cause as typeof e, depth++) {
    redactConfig(e.config);
    redactConfig(e.response?.config);
  }
}

function redactConfig(config: unknown): void {
  if (!config || typeof config !== "object") return;
  const c = config as { data?: unknown; body?: unknown; headers?: unknown };
  if (c.data !== undefined) c.data = REDACTED;
  if (c.body !== undefined) c.body = REDACTED;
  if (c.headers instanceof Headers) c.headers.delete("authorization");
}

/** The error's class name only: messages from below may quote request bodies. */
function describe(error: unknown): string {
  if (error instanceof Error) return `unexpected ${error.name}`;
  return "unexpected error";
}
