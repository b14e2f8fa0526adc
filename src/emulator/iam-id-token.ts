/**
 * IAM Credentials' `POST /v1/projects/-/serviceAccounts/ID:generateIdToken`: a service account's
 * ID token for a caller holding roles/iam.serviceAccountTokenCreator on it (the permission
 * iam.serviceAccounts.getOpenIdToken), directly or through delegates. The caller, scope and chain
 * checks and their refusals are generateAccessToken's (iam.ts). Request and reply: the API
 * reference; `useEmailAzp`: google-auth-library-nodejs `Impersonated.fetchIdToken` sends it.
 */
import { invalidArgument, invalidPayload, type GoogleReply } from "./iam-errors.js";
import { delegateIds, handleIamCall, type IamCall, isReply, requestFields } from "./iam.js";
import { serviceAccountIdToken } from "./id-tokens.js";
import type { RequestContext } from "./context.js";

const BOOLEAN_FIELDS = {
  includeEmail: "include_email",
  organizationNumberIncluded: "organization_number_included",
  useEmailAzp: "use_email_azp",
} as const;
const FIELDS = new Set(["audience", "delegates", ...Object.keys(BOOLEAN_FIELDS)]);

type Flag = keyof typeof BOOLEAN_FIELDS;

interface IdTokenRequest extends Record<Flag, boolean> {
  audience: string;
  delegates: string[];
}

/** The JSON transcoder's refusal of a non-boolean, e.g. `Invalid value at 'include_email' (TYPE_BOOL), "yes"`. */
function notBoolean(flag: Flag, value: unknown): GoogleReply {
  const field = BOOLEAN_FIELDS[flag];
  return invalidPayload(`Invalid value at '${field}' (TYPE_BOOL), ${JSON.stringify(value).slice(0, 100)}`, field);
}

function parseIdTokenRequest(body: string): IdTokenRequest | GoogleReply {
  const fields = requestFields(body, FIELDS);
  if (isReply(fields)) return fields;
  const flags = {} as Record<Flag, boolean>;
  for (const flag of Object.keys(BOOLEAN_FIELDS) as Flag[]) {
    const value = fields[flag] ?? false;
    if (typeof value !== "boolean") return notBoolean(flag, value);
    flags[flag] = value;
  }
  const delegates = delegateIds(fields.delegates);
  const audience = fields.audience;
  if (typeof audience !== "string" || audience === "" || !delegates) return invalidArgument();
  return { audience, delegates, ...flags };
}

function mintIdToken(ctx: RequestContext, email: string, request: IdTokenRequest): GoogleReply {
  const token = serviceAccountIdToken(ctx.state, {
    source: "generateIdToken",
    email,
    audience: request.audience,
    includeEmail: request.includeEmail,
    emailAzp: request.useEmailAzp,
    // "null if the service account isn't associated with an organization": none is, here.
    extra: request.organizationNumberIncluded ? { google: { organization_number: null } } : {},
  });
  return { status: 200, body: { token } };
}

const GENERATE_ID_TOKEN: IamCall<IdTokenRequest> = {
  suffix: ":generateIdToken",
  rpc: "google.iam.credentials.v1.IAMCredentials.GenerateIdToken",
  permission: "iam.serviceAccounts.getOpenIdToken",
  parse: parseIdTokenRequest,
  mint: mintIdToken,
};

/** Routes `...:generateIdToken`; false for other paths. */
export function handleIamIdToken(ctx: RequestContext): Promise<boolean> {
  return handleIamCall(ctx, GENERATE_ID_TOKEN);
}
