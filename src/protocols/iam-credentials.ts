// Service account impersonation through Google's IAM Credentials API (generateAccessToken,
// generateIdToken), and Google's refusals as coded errors, their words scrubbed of what was sent.
import { CredConnectionError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { type GoogleApiError, consumerProject, parseGoogleApiError } from "../formats/google-api-error.js";
import { CLOUD_PLATFORM_SCOPE } from "../shared/constants.js";
import { type Redact, redactor } from "../trust/redact.js";
import { printable, quoted, serverWords } from "../trust/text.js";
import { googleConsoleLink, isEmulatorUrl } from "../trust/urls.js";
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

/** A delegate as the API names it (`projects/-/serviceAccounts/EMAIL`); gcloud's files hold the bare e-mail. */
export function delegateResourceName(delegate: string): string {
  return delegate.startsWith("projects/") ? delegate : `projects/-/serviceAccounts/${delegate}`;
}

/** What both IAM Credentials calls send, and where. */
interface IamRequest {
  /** The judged `generateAccessToken` or `generateIdToken` URL (formats/destinations.ts). */
  url: string;
  target: string;
  /** The caller's access token, with the cloud-platform scope (or, for an ID token, the iam scope). */
  sourceToken: string;
  delegates: readonly string[];
}

export interface GenerateAccessTokenRequest extends IamRequest {
  scopes: readonly string[];
  lifetimeSec?: number;
}

/** POSTs `fields` and the delegates, as the caller's bearer token, to the request's URL. */
function postToIam(request: IamRequest, fields: object) {
  const delegates = request.delegates.map(delegateResourceName);
  const headers = { Authorization: `Bearer ${request.sourceToken}`, "Content-Type": "application/json" };
  return postToService(request.url, headers, JSON.stringify({ delegates, ...fields }), unreachable);
}

/** A token that acts as `request.target`. */
export async function generateAccessToken(request: GenerateAccessTokenRequest): Promise<FetchedToken> {
  const lifetime = `${request.lifetimeSec ?? MAX_LIFETIME_SEC}s`;
  const response = await postToIam(request, { scope: [...request.scopes], lifetime });
  const body = response.body;
  const reply = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const expiresAt = typeof reply.expireTime === "string" ? Date.parse(reply.expireTime) : Number.NaN;
  if (!response.ok || typeof reply.accessToken !== "string" || reply.accessToken === "" || Number.isNaN(expiresAt))
    throw impersonationError(response.status, body, request.target, [request.sourceToken], request.url);
  return { accessToken: reply.accessToken, expiresAt };
}

/**
 * Google's refusal as an error a program can branch on: a 403 by its ErrorInfo reason (API disabled,
 * quota project denied, no cloud-platform scope, else a missing role), 404 no such account; `sent` scrubbed.
 */
export function impersonationError(
  status: number,
  body: unknown,
  target: string,
  sent: readonly string[],
  url?: unknown,
): CredCredentialsError {
  const redact = redactor(sent);
  const reply = parseGoogleApiError(body);
  const word = reply.status !== undefined && redact(reply.status) === reply.status ? reply.status : `HTTP ${status}`;
  const refusal: Refusal = {
    who: quoted(target),
    google: `Google said (${word}): ${reply.message === undefined ? "no message" : serverWords(redact(reply.message))}`,
    answered: { error: word, status },
  };
  if (status === 403) return deniedBecause(reply, refusal, redact);
  if (status === 404)
    return new CredCredentialsError(
      // The emulator's accounts are registered, not created in a console.
      typeof url === "string" && URL.canParse(url) && isEmulatorUrl(new URL(url))
        ? `The emulator knows no service account ${refusal.who}: register it with \`cred-auth emulator --service-account\` (docs/emulator.md).`
        : `The service account ${refusal.who} or a delegate does not exist; check the e-mail. ${refusal.google}`,
      { code: ERROR_CODES.SERVICE_ACCOUNT_NOT_FOUND, ...refusal.answered },
    );
  return new CredCredentialsError(
    `Google's IAM Credentials API refused to impersonate ${refusal.who}. ${refusal.google}`,
    { code: ERROR_CODES.IMPERSONATION_FAILED, ...refusal.answered },
  );
}

/** What every refusal's message says: whom, Google's own words, and what the error records. */
interface Refusal {
  who: string;
  google: string;
  answered: { error: string; status: number };
}

/** A 403, told apart by Google's ErrorInfo `reason`: each cause has its own cure, so its own code. */
function deniedBecause(reply: GoogleApiError, refusal: Refusal, redact: Redact): CredCredentialsError {
  const { who, google, answered } = refusal;
  const project = consumerProject(reply);
  const inProject = project === undefined ? "the caller's project" : `project ${printable(project)}`;
  if (reply.reason === "SERVICE_DISABLED") {
    const link = googleConsoleLink(redact(reply.metadata.activationUrl ?? ""));
    return new CredCredentialsError(
      `Impersonating ${who} failed: the ${IAM_CREDENTIALS_API} is not enabled in ${inProject} (SERVICE_DISABLED); enable it${link === undefined ? "" : ` at ${link}`}, wait a few minutes, then retry. ${google}`,
      { code: ERROR_CODES.API_DISABLED, ...answered },
    );
  }
  if (reply.reason === "USER_PROJECT_DENIED")
    return new CredCredentialsError(
      `Impersonating ${who} failed: the caller may not use ${inProject} for quota and billing (USER_PROJECT_DENIED); grant the caller roles/serviceusage.serviceUsageConsumer on it, or name another quota project (the file's quota_project_id), then retry. ${google}`,
      { code: ERROR_CODES.USER_PROJECT_DENIED, ...answered },
    );
  if (reply.reason === "ACCESS_TOKEN_SCOPE_INSUFFICIENT")
    return new CredCredentialsError(
      `Impersonating ${who} was refused: the caller's credentials lack the cloud-platform scope (ACCESS_TOKEN_SCOPE_INSUFFICIENT); sign in again with ${CLOUD_PLATFORM_SCOPE}. ${google}`,
      { code: ERROR_CODES.INVALID_SCOPE, ...answered },
    );
  return new CredCredentialsError(
    `Impersonating ${who} was denied: the signed-in account needs the Service Account Token Creator role on it (each delegate on the next), and credentials with the cloud-platform scope. ${google}`,
    { code: ERROR_CODES.IMPERSONATION_DENIED, ...answered },
  );
}

const IAM_CREDENTIALS_API = "IAM Service Account Credentials API (iamcredentials.googleapis.com)";

/** The refusal in an `Impersonated` client's error when IAM Credentials answered; `sent` and bearer tokens scrubbed. */
export function impersonationErrorOf(
  error: unknown,
  target: string,
  sent: readonly string[] = [],
): CredCredentialsError | undefined {
  return refusalIn(error, ":generateAccessToken", target, sent);
}

/** {@link impersonationErrorOf} for `Impersonated.fetchIdToken`, when generateIdToken answered; else undefined. */
export function idTokenImpersonationErrorOf(error: unknown, target: string): CredCredentialsError | undefined {
  return refusalIn(error, ":generateIdToken", target, []);
}

/** The refusal of the IAM Credentials `method` a gaxios error holds, if that method answered. */
function refusalIn(error: unknown, method: string, target: string, sent: readonly string[]) {
  const response = (error as { response?: { status?: unknown; data?: unknown; config?: { url?: unknown } } })?.response;
  if (typeof response?.status !== "number" || !String(response.config?.url ?? "").endsWith(method)) return undefined;
  const secrets = [...sent, ...bearerTokensOf(error)];
  return impersonationError(response.status, response.data, target, secrets, response.config?.url);
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

export interface GenerateIdTokenRequest extends IamRequest {
  audience: string;
  /** Put the account's `email` and `email_verified` in the token (IAP and Cloud Run invoker checks need it). */
  includeEmail: boolean;
}

/** An ID token of `request.target` for `request.audience` from generateIdToken (the Token Creator role's getOpenIdToken). */
export async function generateIdToken(request: GenerateIdTokenRequest): Promise<FetchedIdToken> {
  const response = await postToIam(request, { audience: request.audience, includeEmail: request.includeEmail });
  const token = (response.body as { token?: unknown } | undefined)?.token;
  if (!response.ok || typeof token !== "string" || token === "")
    throw impersonationError(response.status, response.body, request.target, [request.sourceToken], request.url);
  return fetchedIdToken(token, "Google's IAM Credentials API", request.audience);
}
