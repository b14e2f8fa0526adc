// The OAuth `error` words (RFC 6749 4.1.2.1 and 5.2, Google's own) in one table: each one's stable code, and what
// it means on the sign-in page (`error=`) or in a token server's reply (oauth/errors.ts, protocols/token-errors.ts).
import { type CredErrorCode, ERROR_CODES } from "../errors.js";

/** What one OAuth `error` word means. */
export interface OAuthErrorWord {
  /** The stable code of an error carrying it. */
  readonly code: CredErrorCode;
  /** Its meaning when the browser comes back with it from the sign-in page. */
  readonly page?: string;
  /** Its meaning in a token server's reply. */
  readonly reply?: string;
  /** Google sends it for a temporary failure, inside a 400 too (google-auth-python's _client.py): retry. */
  readonly temporary?: true;
  /** The token server refuses the OAuth client itself: no refresh and no sign-in with it can work. */
  readonly refusesClient?: true;
}

/** Every OAuth `error` word cred-auth has words for. */
export const OAUTH_ERRORS: Readonly<Record<string, OAuthErrorWord>> = {
  access_denied: {
    code: ERROR_CODES.ACCESS_DENIED,
    page: "Sign-in was denied in the browser",
    reply: "access was denied",
  },
  invalid_scope: {
    code: ERROR_CODES.INVALID_SCOPE,
    page: "The sign-in page rejected a requested scope",
    reply: "a requested scope was rejected",
  },
  unauthorized_client: {
    code: ERROR_CODES.INVALID_CLIENT,
    page: "This OAuth client may not use this sign-in flow; check the client type (Desktop app for the loopback flow, Web application for copy-paste)",
    reply: "this OAuth client may not use this grant; check the client type",
  },
  invalid_client: {
    code: ERROR_CODES.INVALID_CLIENT,
    page: "The sign-in page rejected the OAuth client id",
    reply: "the OAuth client id or secret was rejected",
    refusesClient: true,
  },
  // A client deleted or disabled on the console (or by Google, unused): Google answers 401 with these.
  deleted_client: { code: ERROR_CODES.INVALID_CLIENT, reply: "the OAuth client was deleted", refusesClient: true },
  disabled_client: { code: ERROR_CODES.INVALID_CLIENT, reply: "the OAuth client was disabled", refusesClient: true },
  invalid_request: {
    code: ERROR_CODES.CREDENTIALS,
    page: "The sign-in page rejected the request as malformed",
    reply: "the token request was rejected as malformed",
  },
  unsupported_response_type: { code: ERROR_CODES.CREDENTIALS, page: "The sign-in page does not support this flow" },
  server_error: { code: ERROR_CODES.SERVER_ERROR, page: "The sign-in page had a server error", temporary: true },
  temporarily_unavailable: {
    code: ERROR_CODES.SERVER_ERROR,
    page: "The sign-in page is temporarily unavailable",
    temporary: true,
  },
  internal_failure: { code: ERROR_CODES.SERVER_ERROR, temporary: true },
  rate_limit_exceeded: { code: ERROR_CODES.SERVER_ERROR, temporary: true },
  // What invalid_grant blames depends on the grant asked for: protocols/token-errors.ts says which.
  invalid_grant: { code: ERROR_CODES.INVALID_GRANT },
  invalid_rapt: { code: ERROR_CODES.REAUTH_REQUIRED },
  // A refresh grant's `audience` (a user's ID token for another client): google-auth-library-python#669.
  invalid_audience: {
    code: ERROR_CODES.INVALID_AUDIENCE,
    reply:
      "the token server refused the audience: a user's ID token can be asked only for the OAuth client id of an IAP resource in the same project as the client that signed in",
  },
};

/** `value` when it is a plain OAuth error word; undefined for anything else (a URL or reply anyone can craft). */
export function oauthErrorWord(value: unknown): string | undefined {
  return typeof value === "string" && /^[a-z_]{1,64}$/.test(value) ? value : undefined;
}

export function meaningOf(word: string): OAuthErrorWord | undefined {
  return Object.hasOwn(OAUTH_ERRORS, word) ? OAUTH_ERRORS[word] : undefined;
}

export function codeOfOAuthError(word: string): CredErrorCode {
  return meaningOf(word)?.code ?? ERROR_CODES.CREDENTIALS;
}
