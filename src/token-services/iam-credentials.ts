/**
 * Service account impersonation through Google's IAM Credentials API: the `generateAccessToken`
 * request, and Google's refusals as {@link CredImpersonationError}s, their words scrubbed of what
 * was sent (trust/redact.ts). The chain and the URL's shape: formats/impersonated-file.ts. Reference:
 * https://cloud.google.com/iam/docs/reference/credentials/rest/v1/projects.serviceAccounts/generateAccessToken
 */
import { CredConnectionError, CredImpersonationError, ERROR_CODES } from "../errors.js";
import { delegateResourceName } from "../formats/impersonated-file.js";
import { redactor } from "../trust/redact.js";
import { printable, quoted } from "../trust/text.js";
import { type FetchedIdToken, fetchedIdToken } from "./id-token-reply.js";
import { type FetchedToken, postToService } from "./service-request.js";

/** Google's longest token without an organisation policy that allows more. */
export const MAX_LIFETIME_SEC = 3600;

/** No answer from IAM Credentials at all (network, time-out). */
function unreachable(cause: unknown): CredConnectionError {
  return new CredConnectionError("Google's IAM Credentials API could not be reached; check the network and retry.", {
    code: ERROR_CODES.UNREACHABLE,
    cause,
  });
}

/** Options of {@link generateAccessToken}. */
export interface GenerateAccessTokenRequest {
  /** The judged `generateAccessToken` URL (formats/destinations.ts). */
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
    unreachable,
  );
  const body = response.body;
  const reply = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const expiresAt = typeof reply.expireTime === "string" ? Date.parse(reply.expireTime) : Number.NaN;
  if (!response.ok || typeof reply.accessToken !== "string" || reply.accessToken === "" || Number.isNaN(expiresAt))
    throw impersonationError(response.status, body, request.target, [request.sourceToken]);
  return { accessToken: reply.accessToken, expiresAt };
}

/**
 * Google's refusal (`{"error": {"code", "message", "status"}}`) as an error a program can branch
 * on: 403 permission denied, 404 no such account, anything else a plain refusal. Every form of
 * `sent` (the caller's token) is taken out of Google's words, which are made printable.
 */
export function impersonationError(
  status: number,
  body: unknown,
  target: string,
  sent: readonly string[],
): CredImpersonationError {
  const redact = redactor(sent);
  const error = (body as { error?: { message?: unknown; status?: unknown } } | undefined)?.error;
  const word = typeof error?.status === "string" ? error.status : "";
  const googleStatus = /^[A-Z_]{1,40}$/.test(word) && redact(word) === word ? word : `HTTP ${status}`;
  const said =
    typeof error?.message === "string"
      ? printable(redact(error.message).replace(/\s+/g, " ").slice(0, 300))
      : "no message";
  const answered = { error: googleStatus, status };
  const who = quoted(target);
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
 * `sent` (the source's access token: gaxios blanks the header it kept) and any bearer token the
 * kept request still shows are scrubbed from the answer.
 */
export function impersonationErrorOf(
  error: unknown,
  target: string,
  sent: readonly string[] = [],
): CredImpersonationError | undefined {
  const response = (error as { response?: { status?: unknown; data?: unknown; config?: { url?: unknown } } })?.response;
  if (typeof response?.status !== "number" || !String(response.config?.url ?? "").endsWith(":generateAccessToken"))
    return undefined;
  return impersonationError(response.status, response.data, target, [...sent, ...bearerTokensOf(error)]);
}

/** The bearer tokens of the request(s) a gaxios error kept: `Authorization: Bearer TOKEN`. */
function bearerTokensOf(error: unknown): string[] {
  const e = error as { config?: { headers?: unknown }; response?: { config?: { headers?: unknown } } };
  const tokens: string[] = [];
  for (const headers of [e.config?.headers, e.response?.config?.headers]) {
    const value =
      headers instanceof Headers
        ? headers.get("authorization")
        : headers && typeof headers === "object"
          ? ((headers as Record<string, unknown>).Authorization ?? (headers as Record<string, unknown>).authorization)
          : undefined;
    const token = typeof value === "string" ? /^\s*bearer\s+(\S+)/i.exec(value)?.[1] : undefined;
    if (token) tokens.push(token);
  }
  return tokens;
}

/** Options of {@link generateIdToken}. */
export interface GenerateIdTokenRequest {
  /** The judged `generateIdToken` URL (formats/destinations.ts `idTokenUrlOf`). */
  url: string;
  target: string;
  /** The caller's access token (cloud-platform or iam scope). */
  sourceToken: string;
  delegates: readonly string[];
  audience: string;
  /** Put the account's `email` and `email_verified` in the token (IAP and Cloud Run invoker checks need it). */
  includeEmail: boolean;
}

/**
 * An ID token of `request.target` for `request.audience`, from IAM Credentials'
 * `generateIdToken` (the caller needs the Token Creator role, whose
 * `iam.serviceAccounts.getOpenIdToken` permission this is). Refusals as {@link impersonationError}.
 * Reference: https://cloud.google.com/iam/docs/reference/credentials/rest/v1/projects.serviceAccounts/generateIdToken
 */
export async function generateIdToken(request: GenerateIdTokenRequest): Promise<FetchedIdToken> {
  const response = await postToService(
    request.url,
    { Authorization: `Bearer ${request.sourceToken}`, "Content-Type": "application/json" },
    JSON.stringify({
      delegates: request.delegates.map(delegateResourceName),
      audience: request.audience,
      includeEmail: request.includeEmail,
    }),
    unreachable,
  );
  const token = (response.body as { token?: unknown } | undefined)?.token;
  if (!response.ok || typeof token !== "string" || token === "")
    throw impersonationError(response.status, response.body, request.target, [request.sourceToken]);
  return fetchedIdToken(token, "Google's IAM Credentials API");
}

/**
 * {@link impersonationErrorOf} for google-auth-library's `Impersonated.fetchIdToken`: the refusal
 * inside its error when IAM Credentials' `generateIdToken` answered; else undefined.
 */
export function idTokenImpersonationErrorOf(error: unknown, target: string): CredImpersonationError | undefined {
  const response = (error as { response?: { status?: unknown; data?: unknown; config?: { url?: unknown } } })?.response;
  if (typeof response?.status !== "number" || !String(response.config?.url ?? "").endsWith(":generateIdToken"))
    return undefined;
  return impersonationError(response.status, response.data, target, bearerTokensOf(error));
}
