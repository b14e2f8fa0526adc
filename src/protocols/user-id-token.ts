// A user's ID token from the OAuth token endpoint: the refresh grant, naming the other OAuth client
// when the token is for one (IAP's desktop flow: an IAP resource's client id, in the same project
// as the client that signed in). It is named twice, as `target_audience` (what google-auth-library
// 11 sends, commit "Use `target_audience` > `audience`",) and as
// `audience` (IAP's older desktop-flow page): no page says which one Google reads or what it does
// with the other, and a token whose `aud` is not the one asked is refused (id-token-reply.ts), so
// a server that reads either gives the right token and one that reads neither a clear error.
// Without an audience, the reply's own `id_token` (its `aud` is the signed-in client). Either way
// the grant must hold `openid`.
// Sent through the transporter of a client cred-auth built (never one the caller built: its gaxios
// has its own proxies and redirects), so the transport, the token URL's guard (token-requests.ts)
// and google-auth-library's retries apply, and refusals read as every other token request's.
import type { OAuth2Client } from "google-auth-library";
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { type FetchedIdToken, fetchedIdToken } from "./id-token-reply.js";
import { toCredError } from "./token-errors.js";

/** What the refresh grant for an ID token sends. */
export interface UserIdTokenRequest {
  /** The judged token URL (formats/destinations.ts), or the caller's own client's. */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  /** Another OAuth client's id; undefined: the signed-in client's own token. */
  audience?: string;
}

/**
 * The refresh grant's ID token, through `client`'s transporter (a client cred-auth built). `what` says what was being done,
 * for errors (e.g. `Getting an ID token with the user credentials in "PATH"`).
 *
 * @throws CredCredentialsError `ERR_NO_ID_TOKEN` when the reply holds none (no `openid` granted),
 * `ERR_INVALID_AUDIENCE` when the token server refused the audience, `ERR_ID_TOKEN_WRONG_AUDIENCE`
 * when its token is for another audience, or as any token request.
 * @throws CredConnectionError as any token request.
 */
export async function userIdToken(
  client: OAuth2Client,
  request: UserIdTokenRequest,
  what: string,
): Promise<FetchedIdToken> {
  let reply: unknown;
  try {
    const response = await client.transporter.request<unknown>({
      url: request.tokenUrl,
      method: "POST",
      data: new URLSearchParams({
        grant_type: "refresh_token",
        client_id: request.clientId,
        client_secret: request.clientSecret,
        refresh_token: request.refreshToken,
        ...(request.audience === undefined ? {} : { target_audience: request.audience, audience: request.audience }),
      }),
      responseType: "json",
      // As google-auth-library's own token requests: a POST is retried on 5xx too.
      retry: true,
      retryConfig: { httpMethodsToRetry: ["POST"] },
    });
    reply = response.data;
  } catch (error) {
    throw toCredError(error, what, "refresh");
  }
  const idToken = (reply as { id_token?: unknown } | null)?.id_token;
  if (idToken === undefined || idToken === null || idToken === "")
    throw new CredCredentialsError(
      `${what} failed: the token server answered without an ID token, so these user credentials were signed in without the openid scope; sign in again (cred-auth login asks for openid by default).`,
      { code: ERROR_CODES.NO_ID_TOKEN },
    );
  // Without `audience`, the signed-in client's own token.
  return fetchedIdToken(idToken, "The token server", request.audience ?? request.clientId);
}
