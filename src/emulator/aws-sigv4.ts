/**
 * STS's check of an AWS subject token (`urn:ietf:params:aws:token-type:aws4_request`): the
 * serialized, signed GetCallerIdentity request google-auth-library's AwsClient and Python's
 * `google.auth.aws` build (URL-encoded JSON `{url, method, headers: [{key, value}]}`). Google hands
 * it to AWS, which checks the Signature Version 4 signature; the emulator issued the AWS keys, so it
 * checks the signature itself and answers with AWS's verdict the way STS relays it.
 * Signing: docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { AwsState, IssuedAwsCredentials } from "./aws-state.js";

export const AWS_SUBJECT_TOKEN_TYPE = "urn:ietf:params:aws:token-type:aws4_request";
const ALGORITHM = "AWS4-HMAC-SHA256";
const STS_HOST = /^sts(?:-fips)?(?:\.([a-z]{2}(?:-[a-z]+)+-\d))?\.amazonaws\.com$/;
const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([A-Z0-9]{16,128})\/(\d{8})\/([a-z0-9-]+)\/([a-z0-9-]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{8})T\d{6}Z$/;
/** AWS refuses a signature more than 15 minutes away from its clock. */
const SKEW_MS = 15 * 60 * 1000;

/** Why STS refused the token: an OAuth error and its description. */
export interface AwsRefusal {
  error: string;
  description: string;
}

export type AwsCheck = { ok: true; arn: string } | ({ ok: false } & AwsRefusal);

interface SignedRequest {
  url: URL;
  method: string;
  headers: Map<string, string>;
  body: string;
}

const MALFORMED: AwsCheck = { ok: false, error: "invalid_request", description: "AWS request has invalid format." };

/** AWS's error, relayed the way STS says it. */
function awsSays(code: string, message: string): AwsCheck {
  return {
    ok: false,
    error: "invalid_grant",
    description: `Received invalid AWS response of type ${code} with error message: ${message}`,
  };
}

const INVALID_TOKEN = () => awsSays("InvalidClientTokenId", "The security token included in the request is invalid.");
const MISMATCH = () =>
  awsSays(
    "SignatureDoesNotMatch",
    "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.",
  );

/** The subject token as the client serialized it, or undefined when it is not one. */
function parseSubjectToken(subjectToken: string): SignedRequest | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decodeURIComponent(subjectToken));
  } catch {
    return undefined;
  }
  const { url, method, headers, body } = (parsed ?? {}) as Record<string, unknown>;
  if (typeof url !== "string" || typeof method !== "string" || !Array.isArray(headers)) return undefined;
  const map = new Map<string, string>();
  for (const header of headers) {
    const { key, value } = (header ?? {}) as Record<string, unknown>;
    if (typeof key !== "string" || typeof value !== "string") return undefined;
    map.set(key.toLowerCase(), value);
  }
  try {
    return { url: new URL(url), method, headers: map, body: typeof body === "string" ? body : "" };
  } catch {
    return undefined;
  }
}

/**
 * Checks a subject token for the provider `audience`: a POST of GetCallerIdentity to a regional AWS
 * STS endpoint, carrying `x-goog-cloud-target-resource` (the audience, with or without `https:`),
 * signed with credentials the emulator issued, recently, with a valid signature.
 */
export function checkAwsSubjectToken(aws: AwsState, subjectToken: string, audience: string): AwsCheck {
  const request = parseSubjectToken(subjectToken);
  if (!request) return MALFORMED;
  const host = STS_HOST.exec(request.url.hostname);
  const query = request.url.searchParams;
  if (
    !host ||
    request.url.protocol !== "https:" ||
    request.method !== "POST" ||
    query.get("Action") !== "GetCallerIdentity" ||
    query.get("Version") !== "2011-06-15"
  )
    return MALFORMED;
  const target = request.headers.get("x-goog-cloud-target-resource");
  if (target !== audience && target !== `https:${audience}`)
    return {
      ok: false,
      error: "invalid_grant",
      description: "The x-goog-cloud-target-resource header of the AWS request does not match the audience.",
    };
  const auth = AUTHORIZATION.exec(request.headers.get("authorization") ?? "");
  const amzDate = AMZ_DATE.exec(request.headers.get("x-amz-date") ?? "");
  if (!auth || !amzDate || request.headers.get("host") !== request.url.host) return MALFORMED;
  const [, accessKeyId, dateStamp, region, service, signedHeaders, signature] = auth;
  const credentials = aws.credentials.get(accessKeyId);
  if (!credentials || request.headers.get("x-amz-security-token") !== credentials.sessionToken) return INVALID_TOKEN();
  if (credentials.expiresAt <= Date.now())
    return awsSays("ExpiredToken", "The security token included in the request is expired");
  const stamp = amzDate[0];
  const skew = dateProblem(stamp);
  if (skew) return awsSays("SignatureDoesNotMatch", skew);
  const hostRegion = host[1] ?? "us-east-1";
  if (dateStamp !== amzDate[1] || region !== hostRegion || service !== "sts") return MISMATCH();
  const expected = signatureOf(request, credentials, { stamp, dateStamp, region, service, signedHeaders });
  if (!expected || !sameHex(expected, signature)) return MISMATCH();
  return { ok: true, arn: credentials.arn };
}

/** AWS's text for a signature dated more than 15 minutes from now, or undefined. */
function dateProblem(stamp: string): string | undefined {
  const at = Date.parse(
    `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 11)}:${stamp.slice(11, 13)}:${stamp.slice(13, 15)}Z`,
  );
  const now = Date.now();
  const awsTime = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, "").replace(/\.\d+/, "");
  if (!Number.isFinite(at)) return "Date must be in ISO-8601 'basic format'.";
  if (at < now - SKEW_MS)
    return `Signature expired: ${stamp} is now earlier than ${awsTime(now - SKEW_MS)} (${awsTime(now)} - 15 min.)`;
  if (at > now + SKEW_MS)
    return `Signature not yet current: ${stamp} is still later than ${awsTime(now + SKEW_MS)} (${awsTime(now)} + 15 min.)`;
  return undefined;
}

/** RFC 3986 encoding as SigV4 canonicalizes query strings. */
function awsEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function canonicalQuery(url: URL): string {
  return [...url.searchParams]
    .map(([key, value]) => [awsEncode(key), awsEncode(value)])
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
    .map(([key, value]) => `${key}=${value}`)
    .join("&");
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");
const hmac = (key: string | Buffer, text: string): Buffer => createHmac("sha256", key).update(text).digest();

/** The signature AWS would compute, or undefined when a signed header is missing. */
function signatureOf(
  request: SignedRequest,
  credentials: IssuedAwsCredentials,
  scope: { stamp: string; dateStamp: string; region: string; service: string; signedHeaders: string },
): string | undefined {
  const names = scope.signedHeaders.split(";");
  if (!names.includes("host")) return undefined;
  const lines: string[] = [];
  for (const name of names) {
    const value = request.headers.get(name);
    if (value === undefined) return undefined;
    lines.push(`${name}:${value.trim().replace(/\s+/g, " ")}\n`);
  }
  const canonicalRequest = [
    request.method,
    request.url.pathname || "/",
    canonicalQuery(request.url),
    lines.join(""),
    scope.signedHeaders,
    sha256(request.body),
  ].join("\n");
  const credentialScope = `${scope.dateStamp}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = [ALGORITHM, scope.stamp, credentialScope, sha256(canonicalRequest)].join("\n");
  let key = hmac(`AWS4${credentials.secretAccessKey}`, scope.dateStamp);
  for (const part of [scope.region, scope.service, "aws4_request"]) key = hmac(key, part);
  return hmac(key, stringToSign).toString("hex");
}

function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && timingSafeEqual(x, y);
}
