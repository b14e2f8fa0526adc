// Google's Security Token Service over plain values: the token exchange, a workforce user's refresh,
// and STS's refusals as ERR_STS_REJECTED, every secret sent taken out of its words.
import { CredConnectionError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { isObject } from "../formats/fields.js";
import { basicForms, redactor } from "../trust/redact.js";
import { checkedToken, serverWords } from "../trust/text.js";
import { type FetchedToken, postToService } from "./service-request.js";

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

/** What {@link exchangeSubjectToken} sends, and where. */
export interface SubjectTokenExchange {
  /** The judged STS URL. */
  tokenUrl: string;
  subjectToken: string;
  subjectTokenType: string;
  /** The workload or workforce identity provider. */
  audience: string;
  scopes: readonly string[];
  /** A workforce pool's user project, billed for the exchange. */
  userProject?: string;
  /** STS client authentication (a workforce pool's OAuth client), sent as Basic credentials. */
  client?: { id: string; secret: string };
  /** What else to take out of STS's words: what the subject token was made from or decodes to. */
  secrets?: readonly string[];
}

export async function exchangeSubjectToken(exchange: SubjectTokenExchange): Promise<FetchedToken> {
  const form: Record<string, string> = {
    grant_type: TOKEN_EXCHANGE,
    requested_token_type: ACCESS_TOKEN_TYPE,
    subject_token_type: exchange.subjectTokenType,
    subject_token: exchange.subjectToken,
    audience: exchange.audience,
    scope: exchange.scopes.join(" "),
  };
  if (exchange.userProject) form.options = JSON.stringify({ userProject: exchange.userProject });
  const secrets = [exchange.subjectToken, ...(exchange.secrets ?? [])];
  return (await postSts(exchange.tokenUrl, form, exchange.client, secrets)).token;
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

/** The refresh token a reply rotated in (non-empty, not the one `sent`), as both Google libraries keep it. */
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
