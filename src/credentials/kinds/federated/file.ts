// `external_account` (workload and workforce identity federation), as gcloud's `iam
// workload-identity-pools create-cred-config` and google-auth-library's identitypoolclient read it:
// its fields checked (only those go any further), the URLs it names judged, its token-cache key. Pure.
import { accessTokenKey } from "../../../formats/cache-keys.js";
import { destination } from "../../../formats/destinations.js";
import { type Fields, fieldsOf, isObject, present } from "../../../formats/fields.js";
import { IMPERSONATION_URL_SHAPE, targetOfImpersonationUrl } from "../../../formats/impersonation-url.js";
import { quoted } from "../../../trust/text.js";
import {
  type Universe,
  checkFileUniverse,
  refuseUrlCredentials,
  trustedImdsUrl,
  trustedUrl,
} from "../../../trust/urls.js";
import { sha256Hex } from "../../../util/sha256.js";

/** Where an external_account file's subject token comes from. */
export type SubjectTokenSource =
  | { kind: "file"; file: string; jsonField?: string }
  | { kind: "url"; url: string; headers: Record<string, string>; jsonField?: string }
  | AwsSource;

/** An AWS source (`environment_id: "aws1"`): a signed GetCallerIdentity request is the subject token. */
export interface AwsSource {
  kind: "aws";
  /** `regional_cred_verification_url`: the GetCallerIdentity URL signed (never requested), `{region}` filled in. */
  verificationUrl: string;
  /** `region_url`: the instance's availability zone (the region is the zone without its letter). */
  regionUrl?: string;
  /** `url`: the role name, then `url/ROLE` its temporary keys. */
  credentialsUrl?: string;
  /** `imdsv2_session_token_url`: IMDSv2's session token, sent with every IMDS request. */
  sessionTokenUrl?: string;
}

export interface ExternalAccountFile {
  type: "external_account";
  audience: string;
  subjectTokenType: string;
  /** As written (absent: the file's universe's STS); judged where used. */
  tokenUrl: string;
  source: SubjectTokenSource;
  serviceAccountImpersonationUrl?: string;
  /** The service account that URL names (checked when the file is read). */
  impersonationTarget?: string;
  /** `service_account_impersonation.token_lifetime_seconds` (Google's default: 3600). */
  impersonationLifetimeSec?: number;
  workforcePoolUserProject?: string;
  /** STS client authentication (a workforce pool's OAuth client), sent as Basic credentials. */
  clientId?: string;
  clientSecret?: string;
  /** Where google-auth-library's `getProjectId()` sends the federated token; judged where used. */
  cloudResourceManagerUrl?: string;
  /** An introspection URL some tools write; cred-auth sends nothing there, but a foreign one is refused. */
  tokenInfoUrl?: string;
  quotaProjectId?: string;
  /** The universe the file names (absent: googleapis.com); it must be the one the user trusts. */
  universeDomain: string;
}

/** Subject tokens come from a file, a URL or AWS; executable and certificate sources are not read by cred-auth. */
function parseSource(value: unknown, fields: Fields): SubjectTokenSource {
  const { invalid, str } = fields;
  if (!isObject(value)) throw invalid('has no "credential_source" object');
  if (value.environment_id !== undefined) return parseAwsSource(value, fields);
  const format = value.format;
  let jsonField: string | undefined;
  if (format !== undefined) {
    if (!isObject(format) || (format.type !== "text" && format.type !== "json"))
      throw invalid('has a "credential_source.format" whose "type" is neither "text" nor "json"');
    if (format.type === "json") jsonField = str(format, "subject_token_field_name", true);
  }
  const field = jsonField === undefined ? {} : { jsonField };
  if (typeof value.file === "string" && value.file !== "") return { kind: "file", file: value.file, ...field };
  if (typeof value.url === "string" && value.url !== "") {
    // Stryker disable next-line Regex,StringLiteral: equivalent: a protocol is one scheme and a colon, and no other text is http(s)
    if (!/^https?:$/.test(URL.canParse(value.url) ? new URL(value.url).protocol : ""))
      throw invalid('has a "credential_source.url" that is not an http or https URL');
    return { kind: "url", url: value.url, headers: parseHeaders(value.headers ?? {}, fields), ...field };
  }
  throw invalid('has a "credential_source" with neither "file" nor "url" (cred-auth reads these two)');
}

/** What RFC 9110's `token` (section 5.6.2), a header's name, may not hold: all but letters, digits and these marks. */
const NOT_TOKEN_CHAR = /[^!#$%&'*+\-.^_`|~0-9A-Za-z]/;
/** RFC 9110's field-value: anything else node-fetch refuses at send, and CR LF would start a header. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** `credential_source.headers`: names and values as HTTP can carry them; a value is never shown (it is often a secret). */
function parseHeaders(headers: unknown, { invalid }: Fields): Record<string, string> {
  if (!isObject(headers)) throw invalid('has "credential_source.headers" that are not strings');
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== "string") throw invalid('has "credential_source.headers" that are not strings');
    const problem = notHeaderName(name);
    if (problem !== undefined) throw invalid(problem);
    if (!HEADER_VALUE.test(value))
      throw invalid(
        `has a ${quoted(`credential_source.headers.${name}`)} value holding a character no HTTP header can carry (CR, LF, NUL, another control character or one above U+00FF; the value is not shown)`,
      );
  }
  return headers as Record<string, string>;
}

/** Why `name` is no header name, shown up to its first wrong character (it may be a whole pasted header line, secret and all). */
function notHeaderName(name: string): string | undefined {
  const wrong = name.search(NOT_TOKEN_CHAR);
  if (wrong < 0 && name !== "") return undefined;
  const shown = name.slice(0, wrong + 1);
  return `has a "credential_source.headers" name ${shown === name ? "" : "starting "}${quoted(shown)} that is not a HTTP header name (RFC 9110: letters, digits and !#$%&'*+-.^_\`|~ only)`;
}

/** An AWS source: `environment_id` `aws1` (the only version there is), its verification URL, its IMDS URLs. */
function parseAwsSource(value: Record<string, unknown>, { invalid, str }: Fields): AwsSource {
  const id = value.environment_id;
  const version = typeof id === "string" ? /^aws(\d+)$/.exec(id)?.[1] : undefined;
  if (version === undefined) throw invalid('has a "credential_source.environment_id" that is not "aws1"');
  if (version !== "1")
    throw invalid(`has a "credential_source.environment_id" of AWS version ${version}; only "aws1" exists`);
  const verificationUrl = str(value, "regional_cred_verification_url", true);
  const filled = verificationUrl.replace("{region}", "us-east-1");
  if (!URL.canParse(filled) || new URL(filled).protocol !== "https:")
    throw invalid('has a "credential_source.regional_cred_verification_url" that is not an https URL');
  const optional = present({
    regionUrl: str(value, "region_url", false),
    credentialsUrl: str(value, "url", false),
    sessionTokenUrl: str(value, "imdsv2_session_token_url", false),
  });
  return { kind: "aws", verificationUrl, ...optional };
}

/** Validates an `external_account` file's JSON; `path` names the file in errors. */
export function parseExternalAccount(json: Record<string, unknown>, path?: string): ExternalAccountFile {
  const fields = fieldsOf(path);
  const { str } = fields;
  const universeDomain = str(json, "universe_domain", false) ?? "googleapis.com";
  const impersonation = impersonationOf(json, fields);
  const optional = {
    workforcePoolUserProject: str(json, "workforce_pool_user_project", false),
    clientId: str(json, "client_id", false),
    clientSecret: str(json, "client_secret", false),
    cloudResourceManagerUrl: str(json, "cloud_resource_manager_url", false),
    tokenInfoUrl: str(json, "token_info_url", false),
    quotaProjectId: str(json, "quota_project_id", false),
  };
  return {
    type: "external_account",
    audience: str(json, "audience", true),
    subjectTokenType: str(json, "subject_token_type", true),
    tokenUrl: str(json, "token_url", false) ?? `https://sts.${universeDomain}/v1/token`,
    source: parseSource(json.credential_source, fields),
    universeDomain,
    ...impersonation,
    ...present(optional),
  };
}

type Impersonation = Pick<
  ExternalAccountFile,
  "serviceAccountImpersonationUrl" | "impersonationTarget" | "impersonationLifetimeSec"
>;

/** The service account the file acts as, its URL's account checked, with the token lifetime asked (only then). */
function impersonationOf(json: Record<string, unknown>, fields: Fields): Impersonation {
  const url = fields.str(json, "service_account_impersonation_url", false);
  if (url === undefined) return {};
  const target = targetOfImpersonationUrl(url);
  if (target === undefined)
    throw fields.invalid(`has a "service_account_impersonation_url" that does not end in ${IMPERSONATION_URL_SHAPE}`);
  const lifetime = impersonationLifetime(json.service_account_impersonation, fields);
  return {
    serviceAccountImpersonationUrl: url,
    impersonationTarget: target,
    ...(lifetime === undefined ? {} : { impersonationLifetimeSec: lifetime }),
  };
}

/** `service_account_impersonation.token_lifetime_seconds`: 600 to 43200, as Google documents for workload identity federation. */
function impersonationLifetime(value: unknown, { invalid }: Fields): number | undefined {
  const seconds = isObject(value) ? value.token_lifetime_seconds : undefined;
  if (seconds === undefined) return undefined;
  // Stryker disable next-line ConditionalExpression: equivalent: Number.isInteger is false for a non-number; the typeof is for the compiler
  if (typeof seconds !== "number" || !Number.isInteger(seconds) || seconds < 600 || seconds > 43200)
    throw invalid(
      'has a "service_account_impersonation.token_lifetime_seconds" that is not a whole number from 600 to 43200',
    );
  return seconds;
}

/** An AWS source's IMDS URLs, judged (trust/urls.ts `trustedImdsUrl`): each only when the file names it. */
export interface AwsSourceUrls {
  regionUrl?: string;
  credentialsUrl?: string;
  sessionTokenUrl?: string;
}

/** The judged URLs of an `external_account` file. */
export interface ExternalAccountDestinations {
  /** AWS's instance metadata service, for an AWS source. */
  aws?: AwsSourceUrls;
  /** STS: receives the subject token (read from elsewhere: never the file's own). */
  tokenUrl: string;
  /** IAM Credentials: receives the federated token, when the file impersonates. */
  impersonationUrl?: string;
  /** Cloud Resource Manager: receives the federated token on google-auth-library's `getProjectId()`. */
  cloudResourceManagerUrl: string;
}

/** Where the file's tokens go, judged; a foreign `token_info_url` and a subject URL with credentials refused too. */
export function externalAccountDestinations(
  file: ExternalAccountFile,
  universe: Universe,
  path?: string,
): ExternalAccountDestinations {
  checkFileUniverse(file.universeDomain, universe, path);
  if (file.source.kind === "url") refuseUrlCredentials(file.source.url, "credential_source.url", path);
  if (file.tokenInfoUrl !== undefined)
    trustedUrl(file.tokenInfoUrl, destination("sts", "token_info_url", path), universe);
  const impersonation = file.serviceAccountImpersonationUrl;
  return {
    ...(file.source.kind === "aws" ? { aws: awsSourceUrls(file.source, universe, path) } : {}),
    tokenUrl: trustedUrl(file.tokenUrl, destination("sts", "token_url", path), universe),
    ...(impersonation === undefined
      ? {}
      : {
          impersonationUrl: trustedUrl(
            impersonation,
            destination("iamcredentials", "service_account_impersonation_url", path),
            universe,
          ),
        }),
    cloudResourceManagerUrl: trustedUrl(
      file.cloudResourceManagerUrl ?? `https://cloudresourcemanager.${file.universeDomain}/v1/projects/`,
      destination("cloudresourcemanager", "cloud_resource_manager_url", path),
      universe,
    ),
  };
}

/** An AWS source's IMDS URLs, each judged by the URL policy. */
function awsSourceUrls(source: AwsSource, universe: Universe, path?: string): AwsSourceUrls {
  const judged = (field: string, raw: string | undefined) =>
    raw === undefined ? undefined : trustedImdsUrl(raw, `credential_source.${field}`, path, universe);
  const urls = {
    regionUrl: judged("region_url", source.regionUrl),
    credentialsUrl: judged("url", source.credentialsUrl),
    sessionTokenUrl: judged("imdsv2_session_token_url", source.sessionTokenUrl),
  };
  return Object.fromEntries(Object.entries(urls).filter(([, url]) => url !== undefined));
}

/**
 * The key of its token: the subject (read now: a rotated token, other AWS keys get another key), what
 * the file asks STS and IAM, the judged URLs and the scopes.
 */
export function federatedTokenKey(
  file: ExternalAccountFile,
  scopes: readonly string[],
  urls: { tokenUrl: string; impersonationUrl?: string },
  subjectKeyMaterial: string,
): string {
  const identity = [
    file.audience,
    file.subjectTokenType,
    JSON.stringify(file.source),
    sha256Hex(subjectKeyMaterial),
    file.workforcePoolUserProject ?? "",
    file.clientId ?? "",
    sha256Hex(file.clientSecret ?? ""),
    urls.impersonationUrl ?? "",
    String(file.impersonationLifetimeSec ?? ""),
  ];
  return accessTokenKey([file.type, ...identity, urls.tokenUrl], scopes);
}
