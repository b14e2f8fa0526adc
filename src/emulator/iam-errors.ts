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

const LOCALIZED_MESSAGE = "type.googleapis.com/google.rpc.LocalizedMessage";
const HELP = "type.googleapis.com/google.rpc.Help";
const SERVICE_TITLE = "IAM Service Account Credentials API";

/** Google's error JSON with the ErrorInfo, LocalizedMessage and Help details its API frontend adds. */
function consumerRefusal(
  reason: string,
  message: string,
  project: string,
  link: { description: string; url: string },
  metadata: Record<string, string>,
): GoogleReply {
  return googleError(403, "PERMISSION_DENIED", message, [
    {
      "@type": ERROR_INFO,
      reason,
      domain: "googleapis.com",
      metadata: { containerInfo: project, consumer: `projects/${project}`, service: SERVICE, ...metadata },
    },
    { "@type": LOCALIZED_MESSAGE, locale: "en-US", message },
    { "@type": HELP, links: [link] },
  ]);
}

/** The API is not enabled in the consumer project (the caller's quota project, or its own). */
export function serviceDisabled(project: string): GoogleReply {
  const url = `https://console.developers.google.com/apis/api/${SERVICE}/overview?project=${project}`;
  const message = `${SERVICE_TITLE} has not been used in project ${project} before or it is disabled. Enable it by visiting ${url} then retry. If you enabled this API recently, wait a few minutes for the action to propagate to our systems and retry.`;
  return consumerRefusal(
    "SERVICE_DISABLED",
    message,
    project,
    { description: "Google developers console API activation", url },
    { serviceTitle: SERVICE_TITLE, activationUrl: url },
  );
}

/** The caller may not bill the consumer project (no serviceusage.services.use on its quota project). */
export function userProjectDenied(project: string): GoogleReply {
  const url = `https://console.developers.google.com/iam-admin/iam?project=${project}`;
  const message = `Caller does not have required permission to use project ${project}. Grant the caller the roles/serviceusage.serviceUsageConsumer role, or a custom role with the serviceusage.services.use permission, by visiting ${url} and then retry. Propagation of the new permission may take a few minutes.`;
  return consumerRefusal(
    "USER_PROJECT_DENIED",
    message,
    project,
    { description: "Google developer console IAM admin", url },
    { consoleUrl: url },
  );
}

/** google.rpc.Code names and the texts Google's API frontend sends with them. */
const API_STATUS: Record<number, [string, string]> = {
  400: ["INVALID_ARGUMENT", "Request contains an invalid argument."],
  401: ["UNAUTHENTICATED", "Request is missing required authentication credential."],
  403: ["PERMISSION_DENIED", "The caller does not have permission"],
  404: ["NOT_FOUND", "Requested entity was not found."],
  409: ["ABORTED", "The operation was aborted."],
  429: ["RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."],
  500: ["INTERNAL", "Internal error encountered."],
  501: ["UNIMPLEMENTED", "Operation is not implemented, or supported, or enabled."],
  503: ["UNAVAILABLE", "The service is currently unavailable."],
  504: ["DEADLINE_EXCEEDED", "The request timed out."],
};

/** A bare API error of `status` (a queued IAM fault), in Google's JSON error shape. */
export function apiError(status: number): GoogleReply {
  const [name, message] = API_STATUS[status] ?? (status >= 500 ? API_STATUS[500] : ["UNKNOWN", "Unknown error."]);
  return googleError(status, name, message);
}
