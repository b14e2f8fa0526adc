/**
 * Google's Security Token Service, for `external_account` and `external_account_authorized_user`
 * files (their shape: formats/external-account.ts): the subject token read from its file or URL,
 * the token exchange, the refresh, and STS's refusals as `ERR_STS_REJECTED` errors. Every URL here was
 * judged by the URL policy (formats/destinations.ts) before it gets here.
 */
import { CredConnectionError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import type { AwsSourceUrls } from "../formats/destinations.js";
import type { AwsSource, ExternalAccountFile, SubjectTokenSource } from "../formats/external-account.js";
import { isObject } from "../formats/external-account.js";
import { readTrustedFile } from "../trust/files.js";
import { boundedFetch } from "../trust/http.js";
import { basicForms, redactor } from "../trust/redact.js";
import { checkedToken, printable, quoted, serverWords } from "../trust/text.js";
import { awsIdentity, awsSecrets, awsSubjectToken, awsSubjectTokenSecrets } from "./aws.js";
import { type FetchedToken, SERVICE_TIMEOUT_MS, postToService } from "./service-request.js";

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

/** Subject tokens (JWTs, SAML assertions) are a few kilobytes; anything this big is not one. */
export const MAX_SUBJECT_TOKEN_BYTES = 256 * 1024;

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
    if (typeof value !== "string") throw fail(`has no string field ${quoted(jsonField.slice(0, 100))}`);
    token = value;
  }
  token = token.trim();
  if (token === "") throw fail("is empty");
  return token;
}

/** A subject token to hand STS, and what the token cache knows it by. */
export interface Subject {
  /**
   * Secret material that tells this subject from any other: the token itself, or an AWS source's
   * region and keys (its signed request differs every second). Only ever hashed into a cache key.
   */
  keyMaterial: string;
  /** The token STS gets: the one read, or (AWS) a request signed now, so its date is fresh. */
  token(): string;
  /** Every secret the token carries or was made from, taken out of STS's words. */
  secrets: string[];
}

/**
 * The file's subject: its token read once from a file or URL ({@link readSubjectToken}), or for an
 * AWS source the region and keys from `env` or IMDS at the judged `aws` URLs (protocols/aws.ts).
 */
export async function readSubject(
  file: ExternalAccountFile,
  aws: AwsSourceUrls | undefined,
  env: NodeJS.ProcessEnv,
): Promise<Subject> {
  const { source } = file;
  if (source.kind !== "aws") {
    const token = await readSubjectToken(source);
    return { keyMaterial: token, token: () => token, secrets: [token] };
  }
  const identity = await awsIdentity(aws ?? {}, env);
  const { region, keys } = identity;
  return {
    keyMaterial: JSON.stringify(["aws", region, keys.accessKeyId, keys.secretAccessKey, keys.sessionToken ?? ""]),
    token: () => awsSubjectToken(identity, { source, audience: file.audience }),
    secrets: awsSecrets(identity),
  };
}

/**
 * The subject token, read once from its file (under the file-trust rule: non-blocking, a regular
 * file, bounded) or its URL (no redirect followed, bounded in time and size). It goes only to the
 * judged STS URL ({@link exchangeSubjectToken}).
 */
export async function readSubjectToken(source: Exclude<SubjectTokenSource, AwsSource>): Promise<string> {
  if (source.kind === "file") return readSubjectTokenFile(source.file, source.jsonField);
  const where = new URL(source.url);
  const shown = printable(`${where.origin}${where.pathname}`.slice(0, 200));
  const reply = await boundedFetch(
    source.url,
    { headers: source.headers, timeoutMs: SERVICE_TIMEOUT_MS, maxBytes: MAX_SUBJECT_TOKEN_BYTES },
    (cause) =>
      new CredConnectionError(`The subject-token URL ${shown} could not be reached; check it from here.`, {
        code: ERROR_CODES.SUBJECT_TOKEN_UNREACHABLE,
        cause,
      }),
  );
  const fail = (what: string, status?: number) =>
    new CredCredentialsError(`The subject-token URL ${shown} ${what}.`, {
      code: ERROR_CODES.SUBJECT_TOKEN_UNREACHABLE,
      status,
    });
  if (reply.redirect)
    throw fail(`answered with a redirect (HTTP ${reply.status}), which is never followed`, reply.status);
  if (!reply.ok) throw fail(`answered HTTP ${reply.status}; check the URL and its headers`, reply.status);
  if (reply.tooLarge) throw fail(`answered more than ${MAX_SUBJECT_TOKEN_BYTES / 1024} KiB, which is no subject token`);
  return pickToken(reply.text, source.jsonField, (what) => fail(`'s answer ${what}`));
}

async function readSubjectTokenFile(file: string, jsonField: string | undefined): Promise<string> {
  const shown = quoted(file);
  let text: string;
  try {
    text = (await readTrustedFile(file, { maxBytes: MAX_SUBJECT_TOKEN_BYTES, keeper: "anyone" })).toString("utf8");
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const why = code === "ENOTFILE" ? "is not a regular file" : code === "EFBIG" ? "is too large" : "could not be read";
    throw new CredCredentialsError(
      `The subject-token file ${shown} ${why} (${typeof code === "string" ? code : "error"}); check that it is written there.`,
      { code: ERROR_CODES.SUBJECT_TOKEN_UNREADABLE, cause },
    );
  }
  return pickToken(
    text,
    jsonField,
    (what) =>
      new CredCredentialsError(`The subject-token file ${shown} ${what}.`, {
        code: ERROR_CODES.SUBJECT_TOKEN_UNREADABLE,
      }),
  );
}

/** What {@link exchangeSubjectToken} sends, and where. */
export interface SubjectTokenExchange {
  /** The judged STS URL. */
  tokenUrl: string;
  /** The subject token, read once ({@link readSubjectToken}). */
  subjectToken: string;
  scopes: readonly string[];
  /** What else to take out of STS's words: what the subject token was made from ({@link Subject.secrets}). */
  secrets?: readonly string[];
}

/** Exchanges the file's subject token at STS for a federated access token (no impersonation leg). */
export async function exchangeSubjectToken(
  file: ExternalAccountFile,
  exchange: SubjectTokenExchange,
): Promise<FetchedToken> {
  const form: Record<string, string> = {
    grant_type: TOKEN_EXCHANGE,
    requested_token_type: ACCESS_TOKEN_TYPE,
    subject_token_type: file.subjectTokenType,
    subject_token: exchange.subjectToken,
    audience: file.audience,
    scope: exchange.scopes.join(" "),
  };
  if (file.workforcePoolUserProject) form.options = JSON.stringify({ userProject: file.workforcePoolUserProject });
  const client =
    file.clientId !== undefined && file.clientSecret !== undefined
      ? { id: file.clientId, secret: file.clientSecret }
      : undefined;
  // An AWS subject token may come back decoded: its request, signature and session token are secrets too.
  const decoded = file.source.kind === "aws" ? awsSubjectTokenSecrets(exchange.subjectToken) : [];
  const secrets = [exchange.subjectToken, ...decoded, ...(exchange.secrets ?? [])];
  return (await postSts(exchange.tokenUrl, form, client, secrets)).token;
}

/** A workforce user's new access token, and the refresh token STS rotated in, when it did. */
export interface RefreshedToken extends FetchedToken {
  /** The new refresh token: the one sent no longer works, so it must be kept in place of it. */
  rotatedRefreshToken?: string;
}

/** What a refresh at STS's /v1/oauthtoken sends, and where (`tokenUrl`, judged). */
export interface StsRefresh {
  tokenUrl: string;
  refreshToken: string;
  clientId: string;
  clientSecret: string;
}

/** A workforce user's new access token; STS may answer a new refresh token ({@link RefreshedToken.rotatedRefreshToken}). */
export async function refreshAtSts(refresh: StsRefresh): Promise<RefreshedToken> {
  const { token, reply } = await postSts(
    refresh.tokenUrl,
    { grant_type: "refresh_token", refresh_token: refresh.refreshToken },
    { id: refresh.clientId, secret: refresh.clientSecret },
    [refresh.refreshToken],
  );
  const rotated = rotatedRefreshToken(reply, refresh.refreshToken);
  return rotated === undefined ? token : { ...token, rotatedRefreshToken: rotated };
}

/**
 * The refresh token a refresh reply rotated in: a non-empty string other than the one `sent`, as
 * both Google libraries keep it (google-auth-library-nodejs externalAccountAuthorizedUserClient.ts,
 * google-auth-library-python external_account_authorized_user.py); else undefined.
 */
export function rotatedRefreshToken(reply: unknown, sent: string): string | undefined {
  const value = isObject(reply) ? reply.refresh_token : undefined;
  return typeof value === "string" && value.trim() !== "" && value !== sent ? value : undefined;
}

async function postSts(
  url: string,
  form: Record<string, string>,
  client: { id: string; secret: string } | undefined,
  secrets: readonly string[],
): Promise<{ token: FetchedToken; reply: Record<string, unknown> }> {
  const basic = client ? Buffer.from(`${client.id}:${client.secret}`).toString("base64") : undefined;
  const response = await postToService(
    url,
    {
      "Content-Type": "application/x-www-form-urlencoded",
      ...(basic === undefined ? {} : { Authorization: `Basic ${basic}` }),
    },
    new URLSearchParams(form).toString(),
    (cause) =>
      new CredConnectionError("Google's Security Token Service could not be reached; check the network and retry.", {
        code: ERROR_CODES.UNREACHABLE,
        cause,
      }),
  );
  const reply = isObject(response.body) ? response.body : {};
  if (!response.ok || typeof reply.access_token !== "string" || reply.access_token === "") {
    const sent = [...secrets, ...(client ? [client.secret, ...basicForms(client.id, client.secret)] : [])];
    throw stsRefusal(response.status, reply, sent);
  }
  const expiresIn = typeof reply.expires_in === "number" ? reply.expires_in : 3600;
  // Checked before it is cached: a "token" with an escape code or a CR LF would be printed later.
  const accessToken = checkedToken(reply.access_token, "an access token");
  return { token: { accessToken, expiresAt: Date.now() + expiresIn * 1000 }, reply };
}

/** STS's refusal, its words on one line, with every form of what we sent taken out and made printable. */
function stsRefusal(status: number, reply: Record<string, unknown>, sent: readonly string[]): CredCredentialsError {
  const redact = redactor(sent);
  const code = typeof reply.error === "string" ? reply.error : "";
  const error = /^[\w.-]{1,100}$/.test(code) && redact(code) === code ? code : "server_error";
  const said =
    typeof reply.error_description === "string" ? serverWords(redact(reply.error_description)) : "no description";
  return new CredCredentialsError(`Google's Security Token Service refused the token request: ${error}: ${said}`, {
    code: ERROR_CODES.STS_REJECTED,
    error,
    status,
  });
}
