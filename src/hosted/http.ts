import type { Credentials } from "google-auth-library";
import { type CredAuthError, CredConnectionError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { scrubbedError } from "../trust/redact.js";
import { requestSecrets, transportFetch } from "../trust/transport.js";
import { loadGoogleAuth } from "../util/lazy.js";

/** A platform's reply (a token, a secret, a list of scopes) is small; a longer one is not read. */
const MAX_PLATFORM_REPLY_BYTES = 1024 * 1024;

export interface PlatformRequest {
  url: string;
  method?: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

/** A reply read whole within the timeout. */
export interface PlatformReply {
  status: number;
  header(name: string): string | null;
  text: string;
}

/** `request` sent and its reply read within `timeoutMs`; `platform` and `what` name the party in errors. */
export async function platformFetch(platform: string, what: string, request: PlatformRequest): Promise<PlatformReply> {
  const ms = request.timeoutMs;
  const signal = AbortSignal.timeout(ms);
  try {
    // The one transport (trust/transport.ts): no redirect followed, loopback never through a proxy.
    const response = await transportFetch(request.url, {
      method: request.method ?? "GET",
      headers: request.headers,
      body: request.body,
      signal,
      redirect: "manual",
      size: MAX_PLATFORM_REPLY_BYTES,
    });
    const text = await response.text();
    return { status: response.status, header: (name) => response.headers.get(name), text };
  } catch (raw) {
    // fetch may quote a header value it refused: the failure is handed on without the request's secrets.
    const error = scrubbedError(raw, requestSecrets(request.url, request));
    if (signal.aborted) {
      throw new CredConnectionError(
        `${platform}: ${what} did not answer within ${ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`}; try again later.`,
        { cause: error, code: ERROR_CODES.TIMEOUT },
      );
    }
    throw new CredConnectionError(`${platform}: could not reach ${what} (${networkCode(error)}).`, {
      cause: error,
      code: ERROR_CODES.UNREACHABLE,
    });
  }
}

/** Parses a JSON reply; a reply that is not JSON is the platform's fault, not the user's. */
export function parseJson(platform: string, what: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CredConnectionError(`${platform}: ${what} sent an unreadable reply (not JSON).`, {
      cause: error,
      code: ERROR_CODES.SERVER_ERROR,
    });
  }
}

/** The error for an HTTP status the platform should not have answered. */
export function statusError(platform: string, what: string, status: number, advice: string): CredAuthError {
  if (status >= 500 || status === 408 || status === 429) {
    return new CredConnectionError(`${platform}: ${what} answered HTTP ${status}; try again later.`, {
      code: ERROR_CODES.SERVER_ERROR,
      status,
    });
  }
  return new CredCredentialsError(`${platform}: ${what} answered HTTP ${status}; ${advice}`, {
    code: ERROR_CODES.HOSTED_UNAVAILABLE,
    status,
  });
}

/** GAL token fields from a lifetime in seconds (none given: GAL refreshes on a 401 instead). */
export function tokenCredentials(accessToken: string, expiresInSeconds: unknown): Credentials {
  const credentials: Credentials = { access_token: accessToken, token_type: "Bearer" };
  if (typeof expiresInSeconds === "number" && Number.isFinite(expiresInSeconds)) {
    credentials.expiry_date = Date.now() + expiresInSeconds * 1000;
  }
  return credentials;
}

/** google-auth-library, or an error saying to install it. */
export async function loadGoogleAuthFor(platform: string): ReturnType<typeof loadGoogleAuth> {
  try {
    return await loadGoogleAuth();
  } catch (error) {
    throw new CredCredentialsError(
      `${platform}: the module google-auth-library could not be loaded; install it (npm install google-auth-library).`,
      { cause: error, code: ERROR_CODES.MODULE_MISSING },
    );
  }
}

/** The project chosen by the user in the environment (GAL reads these first too). */
export function projectIdFromEnv(env: NodeJS.ProcessEnv): string | null {
  return env.GOOGLE_CLOUD_PROJECT || env.GCLOUD_PROJECT || null;
}

function networkCode(error: unknown): string {
  for (
    let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    if (typeof e.code === "string" && /^[A-Z_]{2,40}$/.test(e.code)) return e.code;
  }
  return error instanceof Error ? error.name : "unknown error";
}
