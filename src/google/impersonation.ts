/**
 * Service account impersonation through Google's IAM Credentials API: the chain as gcloud's
 * `--impersonate-service-account` spells it, the `generateAccessToken` request, and Google's
 * refusals as {@link CredImpersonationError}s. Reference:
 * https://cloud.google.com/iam/docs/reference/credentials/rest/v1/projects.serviceAccounts/generateAccessToken
 */
import { CredConnectionError, CredCredentialsError, CredImpersonationError, ERROR_CODES } from "../errors.js";
import type { FetchedToken } from "./external-account.js";
import { postToService } from "./service-request.js";

/** Who to impersonate, and through whom: each delegate holds the token-creator role on the next. */
export interface ImpersonationChain {
  target: string;
  delegates: string[];
}

/** Google's longest token without an organisation policy that allows more. */
export const MAX_LIFETIME_SEC = 3600;
const SERVICE_ACCOUNT = /^[^\s@/,:]+@[^\s@/,:]+$/;
const RESOURCE_PREFIX = "projects/-/serviceAccounts/";

/**
 * gcloud's order: `"A,B,TARGET"` (or `["A", "B", "TARGET"]`) impersonates TARGET through A then
 * B; the caller needs the token-creator role on A, A on B, B on TARGET.
 */
export function parseImpersonationChain(value: string | readonly string[], what: string): ImpersonationChain {
  const accounts = (typeof value === "string" ? value.split(",") : [...value]).map((a) =>
    typeof a === "string" ? a.trim() : "",
  );
  const bad = accounts.find((a) => !SERVICE_ACCOUNT.test(a));
  if (accounts.length === 0 || bad !== undefined)
    throw new CredCredentialsError(
      `${what} takes service account e-mails separated by commas (the last is impersonated, through the others in order)${bad ? `, not ${JSON.stringify(bad.slice(0, 100))}` : ""}.`,
      { code: ERROR_CODES.INVALID_OPTION },
    );
  return { target: accounts[accounts.length - 1] as string, delegates: accounts.slice(0, -1) };
}

/** A delegate as the API names it (`projects/-/serviceAccounts/EMAIL`); gcloud's files hold the bare e-mail. */
export function delegateResourceName(delegate: string): string {
  return delegate.startsWith("projects/") ? delegate : `${RESOURCE_PREFIX}${delegate}`;
}

/** The `service_account_impersonation_url` gcloud writes for `target`. */
export function impersonationUrl(target: string, universeDomain = "googleapis.com"): string {
  return `https://iamcredentials.${universeDomain}/v1/${RESOURCE_PREFIX}${target}:generateAccessToken`;
}

/** The account an impersonation URL names (google-auth-library's reading), or undefined. */
export function targetOfImpersonationUrl(url: string): string | undefined {
  if (url.length > 256) return undefined;
  const encoded = /(?<target>[^/]+):generateAccessToken$/.exec(url)?.groups?.target;
  let target: string;
  try {
    target = decodeURIComponent(encoded ?? "");
  } catch {
    return undefined; // a malformed %-escape
  }
  // An e-mail or a numeric unique id; never a path, query or space smuggled in through escapes.
  return /^[^\s/?#%]+$/.test(target) ? target : undefined;
}

/** The project of a user-managed service account (`NAME@PROJECT.iam.gserviceaccount.com`), else null. */
export function projectOfServiceAccount(email: string): string | null {
  return /^[^@]+@([a-z][a-z0-9-]{4,28}[a-z0-9])\.iam\.gserviceaccount\.com$/.exec(email)?.[1] ?? null;
}

/** Options of {@link generateAccessToken}. */
export interface GenerateAccessTokenRequest {
  /** The checked `generateAccessToken` URL (see service-url.ts). */
  url: string;
  target: string;
  /** The caller's access token, with the cloud-platform scope. */
  sourceToken: string;
  delegates: readonly string[];
  scopes: readonly string[];
  lifetimeSec?: number;
}

/** A token that acts as `request.target`. */
export async function generateAccessToken(request: GenerateAccessTokenRequest): Promise<FetchedToken> {
  const response = await postToService(
    request.url,
    { Authorization: `Bearer ${request.sourceToken}`, "Content-Type": "application/json" },
    JSON.stringify({
      delegates: request.delegates.map(delegateResourceName),
      scope: [...request.scopes],
      lifetime: `${request.lifetimeSec ?? MAX_LIFETIME_SEC}s`,
    }),
    (cause) =>
      new CredConnectionError("Google's IAM Credentials API could not be reached; check the network and retry.", {
        code: ERROR_CODES.UNREACHABLE,
        cause,
      }),
  );
  const body = response.body;
  const reply = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const expiresAt = typeof reply.expireTime === "string" ? Date.parse(reply.expireTime) : Number.NaN;
  if (!response.ok || typeof reply.accessToken !== "string" || reply.accessToken === "" || Number.isNaN(expiresAt))
    throw impersonationError(response.status, body, request.target);
  return { accessToken: reply.accessToken, expiresAt };
}

/**
 * Google's refusal (`{"error": {"code", "message", "status"}}`) as an error a program can branch
 * on: 403 permission denied, 404 no such account, anything else a plain refusal.
 */
export function impersonationError(status: number, body: unknown, target: string): CredImpersonationError {
  const error = (body as { error?: { message?: unknown; status?: unknown } } | undefined)?.error;
  const googleStatus = typeof error?.status === "string" ? error.status.slice(0, 40) : `HTTP ${status}`;
  const said = typeof error?.message === "string" ? error.message.replace(/\s+/g, " ").slice(0, 300) : "no message";
  const answered = { error: googleStatus, status };
  const who = JSON.stringify(target);
  if (status === 403)
    return new CredImpersonationError(
      `Impersonating ${who} was denied (${googleStatus}: ${said}). The signed-in account needs the Service Account Token Creator role on it (each delegate on the next), and credentials with the cloud-platform scope.`,
      { code: ERROR_CODES.IMPERSONATION_DENIED, ...answered },
    );
  if (status === 404)
    return new CredImpersonationError(
      `The service account ${who} or a delegate does not exist (${googleStatus}: ${said}); check the e-mail.`,
      { code: ERROR_CODES.SERVICE_ACCOUNT_NOT_FOUND, ...answered },
    );
  return new CredImpersonationError(
    `Google's IAM Credentials API refused to impersonate ${who} (${googleStatus}: ${said}).`,
    answered,
  );
}

/**
 * The refusal inside a google-auth-library `Impersonated` client's error, when the error is the
 * IAM Credentials API's answer (not the source credentials' own token request); else undefined.
 */
export function impersonationErrorOf(error: unknown, target: string): CredImpersonationError | undefined {
  const response = (error as { response?: { status?: unknown; data?: unknown; config?: { url?: unknown } } })?.response;
  if (typeof response?.status !== "number" || !String(response.config?.url ?? "").endsWith(":generateAccessToken"))
    return undefined;
  return impersonationError(response.status, response.data, target);
}
