// AWS workload identity federation (`environment_id: "aws1"`), as google-auth-library's AwsClient and
// Python's google.auth.aws do it: the region and keys from the environment or IMDS, and the subject
// token, a Signature Version 4 signed GetCallerIdentity request that Google's STS (not we) sends to AWS.
import { createHash, createHmac } from "node:crypto";
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { isObject } from "../formats/fields.js";
import { boundedFetch } from "../trust/http.js";
import { printable, quoted } from "../trust/text.js";

/** AWS keys: an IAM user's long-term ones, or a role's temporary ones with their session token. */
export interface AwsKeys {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** IMDS's URLs an AWS source names, judged: each only when the file names it. */
export interface ImdsUrls {
  regionUrl?: string;
  credentialsUrl?: string;
  sessionTokenUrl?: string;
}

/** Who signs: the region (it names AWS STS's regional endpoint) and the keys. */
export interface AwsIdentity {
  region: string;
  keys: AwsKeys;
}

/** IMDS answers in milliseconds on EC2; off EC2 its address answers nothing, so do not wait long. */
const IMDS_TIMEOUT_MS = 5000;
/** IMDS's answers (a zone, a role name, a few keys) are small. */
const IMDS_MAX_BYTES = 64 * 1024;
/** IMDSv2 session tokens are asked for 300 seconds, as google-auth-library does. */
const SESSION_TTL_SECONDS = "300";
const REGION = /^[a-z0-9-]{2,40}$/;
const ROLE = /^[\w+=,.@-]{1,128}$/;
const ALGORITHM = "AWS4-HMAC-SHA256";

const unavailable = (message: string, extra: { status?: number; cause?: unknown } = {}) =>
  new CredCredentialsError(message, { code: ERROR_CODES.AWS_CREDENTIALS_UNAVAILABLE, ...extra });

/** The region and keys to sign with: from `env` when it has them, else IMDS at the judged `urls` (one session token). */
export async function awsIdentity(urls: ImdsUrls, env: NodeJS.ProcessEnv): Promise<AwsIdentity> {
  const envRegion = env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined;
  const envKeys =
    env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
      ? {
          accessKeyId: env.AWS_ACCESS_KEY_ID,
          secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
          ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
        }
      : undefined;
  if (envRegion !== undefined && envKeys !== undefined) return { region: checkedRegion(envRegion), keys: envKeys };
  const imds = new Imds(urls);
  const region = envRegion ?? (await imds.region());
  const keys = envKeys ?? (await imds.keys());
  return { region: checkedRegion(region), keys };
}

function checkedRegion(region: string): string {
  if (!REGION.test(region))
    throw unavailable(
      `The AWS region ${quoted(region.slice(0, 40))} is not a region name such as us-east-1; check AWS_REGION or the instance's placement.`,
    );
  return region;
}

/** The instance metadata service at the file's judged URLs, with one IMDSv2 session token for all requests. */
class Imds {
  #session: Promise<Record<string, string>> | undefined;

  constructor(private readonly urls: ImdsUrls) {}

  async region(): Promise<string> {
    if (this.urls.regionUrl === undefined)
      throw unavailable(
        "The AWS source has no region: set AWS_REGION (or AWS_DEFAULT_REGION), or name the instance metadata service's \"region_url\" in the file's credential_source.",
      );
    const zone = (await this.get(this.urls.regionUrl, "the region")).trim();
    return zone.slice(0, -1); // us-east-1a: the region is the availability zone without its letter
  }

  async keys(): Promise<AwsKeys> {
    const url = this.urls.credentialsUrl;
    if (url === undefined)
      throw unavailable(
        "The AWS source has no AWS keys: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary keys), or name the instance metadata service's \"url\" in the file's credential_source.",
      );
    const role = (await this.get(url, "the instance's IAM role")).trim().split("\n")[0]?.trim() ?? "";
    if (!ROLE.test(role))
      throw unavailable("AWS's instance metadata service named no IAM role; attach a role to the instance.");
    const text = await this.get(`${url.replace(/\/$/, "")}/${role}`, "the role's AWS keys");
    return keysOf(text);
  }

  async get(url: string, what: string): Promise<string> {
    return this.ask(url, what, { method: "GET", headers: await this.sessionHeaders() });
  }

  sessionHeaders(): Promise<Record<string, string>> {
    const url = this.urls.sessionTokenUrl;
    if (url === undefined) return Promise.resolve({});
    this.#session ??= this.ask(url, "an IMDSv2 session token", {
      method: "PUT",
      headers: { "x-aws-ec2-metadata-token-ttl-seconds": SESSION_TTL_SECONDS },
    }).then((token) => ({ "x-aws-ec2-metadata-token": token.trim() }));
    return this.#session;
  }

  async ask(url: string, what: string, request: { method: "GET" | "PUT"; headers: Record<string, string> }) {
    const host = printable(new URL(url).host);
    const reply = await boundedFetch(
      url,
      { ...request, timeoutMs: IMDS_TIMEOUT_MS, maxBytes: IMDS_MAX_BYTES },
      (cause) =>
        unavailable(
          `AWS's instance metadata service at ${host} could not be reached for ${what}; on EC2 check that the instance metadata service is on, elsewhere set AWS_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.`,
          { cause },
        ),
    );
    if (!reply.ok || reply.redirect || reply.tooLarge) throw imdsRefusal(host, what, reply.status, this.urls);
    return reply.text;
  }
}

function imdsRefusal(host: string, what: string, status: number, urls: ImdsUrls) {
  const why =
    status === 401 && urls.sessionTokenUrl === undefined
      ? ': the instance requires IMDSv2; add "imdsv2_session_token_url" to the file\'s credential_source (gcloud iam workload-identity-pools create-cred-config --aws --enable-imdsv2)'
      : status === 404 && what === "the instance's IAM role"
        ? ": no IAM role is attached to the instance; attach one"
        : "";
  return unavailable(`AWS's instance metadata service at ${host} answered HTTP ${status} for ${what}${why}.`, {
    status,
  });
}

/** IMDS's JSON of a role's keys (`AccessKeyId`, `SecretAccessKey`, `Token`). */
function keysOf(text: string): AwsKeys {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const field = (name: string) => (isObject(json) && typeof json[name] === "string" ? (json[name] as string) : "");
  const [accessKeyId, secretAccessKey, sessionToken] = [field("AccessKeyId"), field("SecretAccessKey"), field("Token")];
  if (accessKeyId === "" || secretAccessKey === "")
    throw unavailable("AWS's instance metadata service answered no AWS keys for the instance's role.");
  return { accessKeyId, secretAccessKey, ...(sessionToken === "" ? {} : { sessionToken }) };
}

/** What a signed request is for: the file's verification URL and the provider it is meant for. */
export interface AwsSubject {
  /** `regional_cred_verification_url`, `{region}` to be filled in. */
  verificationUrl: string;
  /** The workload identity provider (`//iam.googleapis.com/...`), signed into the request. */
  audience: string;
}

/**
 * The subject token: GetCallerIdentity at the verification URL (`{region}` filled in), signed with
 * `x-goog-cloud-target-resource` naming the audience (as Python), as URL-encoded JSON {url, method, headers}.
 */
export function awsSubjectToken(identity: AwsIdentity, subject: AwsSubject, now: Date = new Date()): string {
  const written = subject.verificationUrl.replace("{region}", identity.region);
  const url = new URL(written);
  const amzDate = now.toISOString().replace(/[-:]/g, "").replace(/\.\d+/, "");
  const dateStamp = amzDate.slice(0, 8);
  const service = url.hostname.split(".")[0]?.replace(/-fips$/, "") ?? "sts";
  const signed: Record<string, string> = {
    host: url.host,
    "x-amz-date": amzDate,
    ...(identity.keys.sessionToken === undefined ? {} : { "x-amz-security-token": identity.keys.sessionToken }),
    "x-goog-cloud-target-resource": subject.audience,
  };
  const names = Object.keys(signed).sort();
  const canonicalRequest = [
    "POST",
    url.pathname || "/",
    canonicalQuery(url),
    names.map((name) => `${name}:${signed[name]}\n`).join(""),
    names.join(";"),
    sha256Hex(""),
  ].join("\n");
  const scope = `${dateStamp}/${identity.region}/${service}/aws4_request`;
  const stringToSign = [ALGORITHM, amzDate, scope, sha256Hex(canonicalRequest)].join("\n");
  let key = hmac(`AWS4${identity.keys.secretAccessKey}`, dateStamp);
  for (const part of [identity.region, service, "aws4_request"]) key = hmac(key, part);
  const signature = hmac(key, stringToSign).toString("hex");
  const authorization = `${ALGORITHM} Credential=${identity.keys.accessKeyId}/${scope}, SignedHeaders=${names.join(";")}, Signature=${signature}`;
  const headers = Object.entries({ authorization, ...signed }).map(([key, value]) => ({ key, value }));
  return encodeURIComponent(JSON.stringify({ url: written, method: "POST", headers }));
}

/** RFC 3986 encoding, as SigV4 canonicalizes a query string, sorted by name then value. */
function canonicalQuery(url: URL): string {
  const encode = (text: string) =>
    encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const byNameThenValue = ([a, x]: string[], [b, y]: string[]) => (a === b ? compare(x, y) : compare(a, b));
  return [...url.searchParams]
    .map(([name, value]) => [encode(name), encode(value)])
    .sort(byNameThenValue)
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
}

const compare = (a = "", b = ""): number => (a < b ? -1 : a > b ? 1 : 0);
const sha256Hex = (text: string): string => createHash("sha256").update(text).digest("hex");
const hmac = (key: string | Buffer, text: string): Buffer => createHmac("sha256", key).update(text).digest();

/**
 * What a server may echo decoded of a subject token, for redaction: the request whole, its Authorization
 * and signature, its session token (with long-term keys the request alone rebuilds the token).
 */
export function awsSubjectTokenSecrets(token: string): string[] {
  let request: unknown;
  try {
    request = JSON.parse(decodeURIComponent(token));
  } catch {
    return [];
  }
  if (!isObject(request)) return [];
  const headers = Array.isArray(request.headers) ? request.headers : [];
  const value = (key: string) => headers.find((h) => isObject(h) && h.key === key)?.value;
  const authorization = value("authorization");
  const signature = typeof authorization === "string" ? /Signature=([0-9a-f]+)/.exec(authorization)?.[1] : undefined;
  const parts = [JSON.stringify(request), authorization, signature, value("x-amz-security-token")];
  return parts.filter((part): part is string => typeof part === "string");
}

/** Every secret of `identity`, for redaction: the secret key and the session token. */
export function awsSecrets(identity: AwsIdentity): string[] {
  return [identity.keys.secretAccessKey, ...(identity.keys.sessionToken ? [identity.keys.sessionToken] : [])];
}
