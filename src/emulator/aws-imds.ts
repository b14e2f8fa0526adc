/**
 * The EC2 instance metadata service (IMDS), as an AWS workload's client library reads it, under
 * `/aws-imds` on the emulator: `PUT /latest/api/token` (IMDSv2: a session token for the TTL in
 * `X-aws-ec2-metadata-token-ttl-seconds`), then GETs carrying it in `X-aws-ec2-metadata-token`:
 * `meta-data/placement/availability-zone`, `meta-data/iam/security-credentials[/ROLE]`. Shapes:
 * AWS's "Use the Instance Metadata Service to access instance metadata" and "Retrieve security
 * credentials from instance metadata", and what google-auth-library's AwsClient reads.
 */
import { EMULATOR_PATHS } from "../shared/constants.js";
import type { RequestContext } from "./context.js";
import { awsOf, type AwsState } from "./aws-state.js";
import { sendText } from "./http.js";

export const AWS_IMDS_PATH = EMULATOR_PATHS.awsImds;
const TTL_HEADER = "x-aws-ec2-metadata-token-ttl-seconds";
const TOKEN_HEADER = "x-aws-ec2-metadata-token";
const MAX_TTL_SEC = 21_600;
const CREDENTIALS = "/latest/meta-data/iam/security-credentials";

/** IMDS's own error pages: a small XHTML document naming the status. */
function imdsError(ctx: RequestContext, status: number, title: string, headers: Record<string, string> = {}): void {
  const body = `<?xml version="1.0" encoding="iso-8859-1"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"
\t"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">
 <head>
  <title>${status} - ${title}</title>
 </head>
 <body>
  <h1>${status} - ${title}</h1>
 </body>
</html>
`;
  sendText(ctx.res, status, body, { "Content-Type": "text/html", ...headers });
}

/** Routes `/aws-imds/...`; false when the path is not under it. */
export function handleAwsImds(ctx: RequestContext): boolean {
  const path = ctx.url.pathname;
  if (path !== AWS_IMDS_PATH && !path.startsWith(`${AWS_IMDS_PATH}/`)) return false;
  ctx.state.stats.awsImdsRequests += 1;
  const aws = awsOf(ctx.state);
  const sub = path.slice(AWS_IMDS_PATH.length);
  if (sub === "/latest/api/token") openSession(ctx, aws);
  else if (ctx.req.method !== "GET" && ctx.req.method !== "HEAD") imdsError(ctx, 405, "Method Not Allowed");
  else if (authorized(ctx, aws)) answerMetadata(ctx, aws, sub);
  else imdsError(ctx, 401, "Unauthorized");
  return true;
}

/** `PUT /latest/api/token`: a session token for 1 to 21600 seconds; never through a proxy. */
function openSession(ctx: RequestContext, aws: AwsState): void {
  if (ctx.req.method !== "PUT") return imdsError(ctx, 405, "Method Not Allowed", { Allow: "PUT" });
  // IMDS refuses token requests that went through a proxy (they carry X-Forwarded-For).
  if (ctx.req.headers["x-forwarded-for"] !== undefined) return imdsError(ctx, 403, "Forbidden");
  const ttlText = ctx.req.headers[TTL_HEADER];
  const ttl = typeof ttlText === "string" && /^\d{1,5}$/.test(ttlText) ? Number(ttlText) : Number.NaN;
  if (!(ttl >= 1 && ttl <= MAX_TTL_SEC)) return imdsError(ctx, 400, "Missing or Invalid Parameters");
  sendText(ctx.res, 200, aws.openSession(ttl), {
    "Content-Type": "text/plain",
    "X-Aws-Ec2-Metadata-Token-Ttl-Seconds": String(ttl),
  });
}

/** IMDSv2: a valid session token; IMDSv1 (when allowed): none at all. A bad token is refused either way. */
function authorized(ctx: RequestContext, aws: AwsState): boolean {
  const token = ctx.req.headers[TOKEN_HEADER];
  if (token === undefined) return aws.imdsV1;
  return typeof token === "string" && aws.sessionValid(token);
}

function answerMetadata(ctx: RequestContext, aws: AwsState, sub: string): void {
  const text = (body: string) => sendText(ctx.res, 200, body, { "Content-Type": "text/plain" });
  const path = sub.replace(/\/+$/, "");
  const role = aws.roleName;
  if (path === "/latest/meta-data") return text("ami-id\nhostname\niam/\ninstance-id\nplacement/\n");
  if (path === "/latest/meta-data/instance-id") return text(aws.instanceId);
  if (path === "/latest/meta-data/placement/availability-zone") return text(aws.availabilityZone);
  if (path === "/latest/meta-data/placement/region") return text(aws.region);
  // No role attached: both credentials paths answer 404, as on an instance without a profile.
  if (path === CREDENTIALS && role !== null) return text(role);
  if (path === `${CREDENTIALS}/${role}` && role !== null) return roleCredentials(ctx, aws);
  return imdsError(ctx, 404, "Not Found");
}

/** The instance profile's credentials, in IMDS's JSON (sent as text/plain, as IMDS does). */
function roleCredentials(ctx: RequestContext, aws: AwsState): void {
  const issued = aws.instanceRoleCredentials();
  const body = {
    Code: "Success",
    LastUpdated: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    Type: "AWS-HMAC",
    AccessKeyId: issued.accessKeyId,
    SecretAccessKey: issued.secretAccessKey,
    Token: issued.sessionToken,
    Expiration: issued.expiration,
  };
  sendText(ctx.res, 200, JSON.stringify(body, null, 2), { "Content-Type": "text/plain" });
}
