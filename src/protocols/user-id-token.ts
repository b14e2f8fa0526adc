// A user's ID token from the refresh grant, through a client cred-auth built: another client's audience is sent as
// `target_audience` and `audience` (no page says which Google reads); without one, the grant's own `id_token`.
import type { OAuth2Client } from "google-auth-library";
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { type FetchedIdToken, fetchedIdToken } from "./id-token-reply.js";
import type { StsRefresh } from "./sts.js";
import { toCredError } from "./token-errors.js";

/** What the refresh grant for an ID token sends: a refresh's fields (the caller's own client's token URL, or judged). */
export interface UserIdTokenRequest extends StsRefresh {
  /** Another OAuth client's id; undefined: the signed-in client's own token. */
  audience?: string;
}

/** The refresh grant's ID token through `client`'s transporter (`what` names it in errors). */
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
