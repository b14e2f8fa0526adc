/**
 * The IAM Credentials API's refusals in Google's JSON error shape
 * `{"error": {"code", "message", "status", "details"?}}`. Texts and sources: docs/emulator.md,
 * section "IAM Credentials".
 */

export interface GoogleReply {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

const SERVICE = "iamcredentials.googleapis.com";
export const GENERATE_ACCESS_TOKEN_RPC = "google.iam.credentials.v1.IAMCredentials.GenerateAccessToken";
const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";
const BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest";
export const GET_ACCESS_TOKEN = "iam.serviceAccounts.getAccessToken";
const SEE_CONSOLE = "See https://developers.google.com/identity/sign-in/web/devconsole-project.";
const CREDENTIAL_KINDS = "Expected OAuth 2 access token, login cookie or other valid authentication credential.";

function googleError(code: number, status: string, message: string, details?: unknown[]): GoogleReply {
  return { status: code, body: { error: { code, message, status, ...(details ? { details } : {}) } } };
}

/** Why a bearer token was refused (google/api/error_reason.proto names). */
export type UnauthenticatedReason = "CREDENTIALS_MISSING" | "ACCESS_TOKEN_EXPIRED" | "ACCESS_TOKEN_TYPE_UNSUPPORTED";

export function unauthenticated(reason: UnauthenticatedReason, method = GENERATE_ACCESS_TOKEN_RPC): GoogleReply {
  const opening =
    reason === "CREDENTIALS_MISSING"
      ? "Request is missing required authentication credential."
      : "Request had invalid authentication credentials.";
  const reply = googleError(401, "UNAUTHENTICATED", `${opening} ${CREDENTIAL_KINDS} ${SEE_CONSOLE}`, [
    { "@type": ERROR_INFO, reason, domain: "googleapis.com", metadata: { method, service: SERVICE } },
  ]);
  return { ...reply, headers: { "WWW-Authenticate": 'Bearer realm="https://accounts.google.com/"' } };
}

export function insufficientScopes(method = GENERATE_ACCESS_TOKEN_RPC): GoogleReply {
  return googleError(403, "PERMISSION_DENIED", "Request had insufficient authentication scopes.", [
    {
      "@type": ERROR_INFO,
      reason: "ACCESS_TOKEN_SCOPE_INSUFFICIENT",
      domain: "googleapis.com",
      metadata: { method, service: SERVICE },
    },
  ]);
}

export function permissionDenied(permission = GET_ACCESS_TOKEN): GoogleReply {
  return googleError(403, "PERMISSION_DENIED", `Permission '${permission}' denied on resource (or it may not exist).`, [
    {
      "@type": ERROR_INFO,
      reason: "IAM_PERMISSION_DENIED",
      domain: "iam.googleapis.com",
      metadata: { permission },
    },
  ]);
}

export function accountNotFound(id: string): GoogleReply {
  return googleError(404, "NOT_FOUND", `Not found; Gaia id not found for email ${id.slice(0, 200)}`);
}

/** Google's generic text, as for an empty `scope` or an over-long `lifetime`. */
export function invalidArgument(): GoogleReply {
  return googleError(400, "INVALID_ARGUMENT", "Request contains an invalid argument.");
}

export function invalidAccountId(id: string): GoogleReply {
  return googleError(
    400,
    "INVALID_ARGUMENT",
    `Invalid form of account ID ${id.slice(0, 200)}. Should be [Gaia ID |Email |Unique ID |] of the account`,
  );
}

/** A request body the JSON transcoder refuses; `field` names the offending field when there is one. */
export function invalidPayload(message: string, field?: string): GoogleReply {
  const violation = { ...(field ? { field } : {}), description: message };
  return googleError(400, "INVALID_ARGUMENT", message, [{ "@type": BAD_REQUEST, fieldViolations: [violation] }]);
}

export function invalidDuration(value: unknown): GoogleReply {
  const mustEndWithS = typeof value === "string" && !value.endsWith("s");
  const message = `Invalid value at 'lifetime' (type.googleapis.com/google.protobuf.Duration), Field 'lifetime', Illegal duration format${mustEndWithS ? "; duration must end with 's'" : ""}`;
  return invalidPayload(message, "lifetime");
}

export function methodNotAllowed(): GoogleReply {
  return { ...googleError(405, "METHOD_NOT_ALLOWED", "Method not allowed; use POST."), headers: { Allow: "POST" } };
}
