// A user's ID token from the OAuth token endpoint: the refresh grant, with `audience` when the
// token is for another OAuth client (IAP's documented desktop flow: an IAP resource's client id,
// in the same project as the client that signed in). Without `audience`, the reply's own
// `id_token` (its `aud` is the signed-in client). Either way the grant must hold `openid`.
// Sent through the client's own transporter, so cred-auth's guard on the token URL (time limit,
// secrets scrubbed from errors: token-requests.ts) and google-auth-library's retries apply, and
// refusals read as every other token request's (token-errors.ts).
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
 * The refresh grant's ID token, through `client`'s transporter. `what` says what was being done,
 * for errors (e.g. `Getting an ID token with the user credentials in "PATH"`).
 *
 * @throws CredCredentialsError `ERR_NO_ID_TOKEN` when the reply holds none (no `openid` granted),
 * `ERR_INVALID_AUDIENCE` when the token server refused the audience, or as any token request.
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
        ...(request.audience === undefined ? {} : { audience: request.audience }),
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
  return fetchedIdToken(idToken, "The token server");
}
