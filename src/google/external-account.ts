/**
 * `external_account` (workload and workforce identity federation) and
 * `external_account_authorized_user` files: their validation, where their secrets may be sent, and
 * getting an access token from Google's Security Token Service. Formats: google-auth-library's
 * identitypoolclient, baseexternalclient and externalAccountAuthorizedUserClient, and
 * gcloud's `iam workload-identity-pools create-cred-config` output.
 */
import { readFile } from "node:fs/promises";
import {
  CredCredentialsError,
  CredStsError,
  CredSubjectTokenFileError,
  CredSubjectTokenUrlError,
  ERROR_CODES,
} from "../errors.js";
import { SERVICE_TIMEOUT_MS, postToService } from "./service-request.js";
import { safeServiceUrl } from "./service-url.js";

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";
const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";

/** Where an external_account file's subject token comes from. */
export type SubjectTokenSource =
  | { kind: "file"; file: string; jsonField?: string }
  | { kind: "url"; url: string; headers: Record<string, string>; jsonField?: string };

export interface ExternalAccountFile {
  type: "external_account";
  audience: string;
  subjectTokenType: string;
  tokenUrl: string;
  source: SubjectTokenSource;
  serviceAccountImpersonationUrl?: string;
  /** `service_account_impersonation.token_lifetime_seconds` (Google's default: 3600). */
  impersonationLifetimeSec?: number;
  workforcePoolUserProject?: string;
  quotaProjectId?: string;
  universeDomain: string;
}

export interface ExternalAuthorizedUserFile {
  type: "external_account_authorized_user";
  audience: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  tokenUrl: string;
  quotaProjectId?: string;
  universeDomain: string;
}

export interface FetchedToken {
  accessToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** Field readers whose errors name the file being parsed. */
function fieldsOf(path: string | undefined) {
  const named = path === undefined ? "" : ` ${JSON.stringify(path)}`;
  const invalid = (what: string) =>
    new CredCredentialsError(
      `Credentials file${named} ${what}; write it again with gcloud or your administrator's config.`,
      { code: ERROR_CODES.FILE_INVALID },
    );
  function str(json: Record<string, unknown>, key: string, required: true): string;
  function str(json: Record<string, unknown>, key: string, required: false): string | undefined;
  function str(json: Record<string, unknown>, key: string, required: boolean): string | undefined {
    const value = json[key];
    if (value === undefined && !required) return undefined;
    if (typeof value !== "string" || value === "") throw invalid(`has no "${key}" string`);
    return value;
  }
  return { invalid, str };
}

type Fields = ReturnType<typeof fieldsOf>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseSource(value: unknown, { invalid, str }: Fields): SubjectTokenSource {
  if (!isObject(value)) throw invalid('has no "credential_source" object');
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
    const headers = value.headers ?? {};
    if (!isObject(headers) || Object.values(headers).some((h) => typeof h !== "string"))
      throw invalid('has "credential_source.headers" that are not strings');
    return { kind: "url", url: value.url, headers: headers as Record<string, string>, ...field };
  }
  throw invalid('has a "credential_source" with neither "file" nor "url" (cred-auth reads these two)');
}

/** Validates an `external_account` file's JSON (its token URL is checked when used, with the environment). */
export function parseExternalAccount(json: Record<string, unknown>, path?: string): ExternalAccountFile {
  const fields = fieldsOf(path);
  const { str } = fields;
  const impersonation = str(json, "service_account_impersonation_url", false);
  const lifetime = impersonationLifetime(json.service_account_impersonation, fields);
  const userProject = str(json, "workforce_pool_user_project", false);
  const quota = str(json, "quota_project_id", false);
  return {
    type: "external_account",
    audience: str(json, "audience", true),
    subjectTokenType: str(json, "subject_token_type", true),
    tokenUrl: str(json, "token_url", false) ?? "https://sts.googleapis.com/v1/token",
    source: parseSource(json.credential_source, fields),
    universeDomain: str(json, "universe_domain", false) ?? "googleapis.com",
    ...(impersonation ? { serviceAccountImpersonationUrl: impersonation } : {}),
    ...(impersonation && lifetime !== undefined ? { impersonationLifetimeSec: lifetime } : {}),
    ...(userProject ? { workforcePoolUserProject: userProject } : {}),
    ...(quota ? { quotaProjectId: quota } : {}),
  };
}

/** `service_account_impersonation.token_lifetime_seconds`: 600 to 43200, as Google documents for workload identity federation. */
function impersonationLifetime(value: unknown, { invalid }: Fields): number | undefined {
  if (value === undefined) return undefined;
  const seconds = isObject(value) ? value.token_lifetime_seconds : undefined;
  if (seconds === undefined) return undefined;
  if (typeof seconds !== "number" || !Number.isInteger(seconds) || seconds < 600 || seconds > 43200)
    throw invalid(
      'has a "service_account_impersonation.token_lifetime_seconds" that is not a whole number from 600 to 43200',
    );
  return seconds;
}

/** Validates an `external_account_authorized_user` file's JSON. */
export function parseExternalAuthorizedUser(json: Record<string, unknown>, path?: string): ExternalAuthorizedUserFile {
  const { str } = fieldsOf(path);
  const quota = str(json, "quota_project_id", false);
  return {
    type: "external_account_authorized_user",
    audience: str(json, "audience", true),
    clientId: str(json, "client_id", true),
    clientSecret: str(json, "client_secret", true),
    refreshToken: str(json, "refresh_token", true),
    tokenUrl: str(json, "token_url", false) ?? "https://sts.googleapis.com/v1/oauthtoken",
    universeDomain: str(json, "universe_domain", false) ?? "googleapis.com",
    ...(quota ? { quotaProjectId: quota } : {}),
  };
}

/** Where a subject or refresh token may be sent: Google's STS, or the emulator (see service-url.ts). */
export function safeStsUrl(tokenUrl: string, universeDomain: string, env: NodeJS.ProcessEnv = process.env): string {
  return safeServiceUrl(tokenUrl, "sts", universeDomain, env);
}

function pickToken(text: string, jsonField: string | undefined, fail: (what: string) => Error): string {
  let token = text;
  if (jsonField !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw fail("is not JSON");
    }
    const value = isObject(parsed) ? parsed[jsonField] : undefined;
    if (typeof value !== "string") throw fail(`has no string field "${jsonField.slice(0, 100)}"`);
    token = value;
  }
  token = token.trim();
  if (token === "") throw fail("is empty");
  return token;
}

/** The subject token, read from its file or URL. */
export async function readSubjectToken(source: SubjectTokenSource): Promise<string> {
  if (source.kind === "file") {
    let text: string;
    try {
      text = await readFile(source.file, "utf8");
    } catch (cause) {
      throw new CredSubjectTokenFileError(
        `The subject-token file ${source.file} could not be read (${(cause as NodeJS.ErrnoException).code ?? "error"}); check that it is written there.`,
        { cause },
      );
    }
    return pickToken(
      text,
      source.jsonField,
      (what) => new CredSubjectTokenFileError(`The subject-token file ${source.file} ${what}.`),
    );
  }
  const where = new URL(source.url);
  const shown = `${where.origin}${where.pathname}`.slice(0, 200);
  let response: Response;
  try {
    response = await fetch(source.url, { headers: source.headers, signal: AbortSignal.timeout(SERVICE_TIMEOUT_MS) });
  } catch (cause) {
    throw new CredSubjectTokenUrlError(`The subject-token URL ${shown} could not be reached; check it from here.`, {
      cause,
    });
  }
  if (!response.ok)
    throw new CredSubjectTokenUrlError(
      `The subject-token URL ${shown} answered HTTP ${response.status}; check the URL and its headers.`,
      { status: response.status },
    );
  const text = await response.text();
  return pickToken(
    text,
    source.jsonField,
    (what) => new CredSubjectTokenUrlError(`The subject-token URL ${shown}'s answer ${what}.`),
  );
}

async function postSts(
  url: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<FetchedToken> {
  const response = await postToService(
    url,
    { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    new URLSearchParams(form).toString(),
    (cause) =>
      new CredStsError("Google's Security Token Service could not be reached; check the network and retry.", {
        code: ERROR_CODES.UNREACHABLE,
        cause,
      }),
  );
  const reply = isObject(response.body) ? response.body : {};
  if (!response.ok || typeof reply.access_token !== "string") {
    const error = typeof reply.error === "string" ? reply.error.slice(0, 100) : "server_error";
    const secrets = Object.values(form).concat(Object.values(headers));
    const said =
      typeof reply.error_description === "string" ? scrub(reply.error_description, secrets) : "no description";
    throw new CredStsError(`Google's Security Token Service refused the token request: ${error}: ${said}`, {
      error,
      status: response.status,
    });
  }
  const expiresIn = typeof reply.expires_in === "number" ? reply.expires_in : 3600;
  return { accessToken: reply.access_token, expiresAt: Date.now() + expiresIn * 1000 };
}

/** Google's description, cut short and with any secret we sent taken out (a server may echo one). */
function scrub(description: string, secrets: string[]): string {
  let text = description.slice(0, 300);
  for (const secret of secrets) {
    if (secret.length < 8) continue;
    for (const form of [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)])
      text = text.split(form).join("[redacted]");
  }
  return text;
}

/** Exchanges the file's subject token at STS for a federated access token (no impersonation leg). */
export async function exchangeSubjectToken(
  file: ExternalAccountFile,
  scopes: string[] = [CLOUD_PLATFORM],
  env: NodeJS.ProcessEnv = process.env,
): Promise<FetchedToken> {
  const url = safeStsUrl(file.tokenUrl, file.universeDomain, env);
  const subjectToken = await readSubjectToken(file.source);
  return postSts(url, {
    grant_type: TOKEN_EXCHANGE,
    requested_token_type: ACCESS_TOKEN_TYPE,
    subject_token_type: file.subjectTokenType,
    subject_token: subjectToken,
    audience: file.audience,
    scope: scopes.join(" "),
    ...(file.workforcePoolUserProject
      ? { options: JSON.stringify({ userProject: file.workforcePoolUserProject }) }
      : {}),
  });
}

/** Refreshes an `external_account_authorized_user` file's access token at STS's /v1/oauthtoken. */
export async function refreshExternalAuthorizedUser(
  file: ExternalAuthorizedUserFile,
  env: NodeJS.ProcessEnv = process.env,
): Promise<FetchedToken> {
  const url = safeStsUrl(file.tokenUrl, file.universeDomain, env);
  const basic = Buffer.from(`${file.clientId}:${file.clientSecret}`).toString("base64");
  return postSts(
    url,
    { grant_type: "refresh_token", refresh_token: file.refreshToken },
    { Authorization: `Basic ${basic}` },
  );
}
