import { CredCredentialsError, type CredErrorCode, ERROR_CODES } from "../errors.js";

/** Words for the OAuth `error=` codes a browser can come back with (RFC 6749 4.1.2.1). */
const AUTHORIZATION_ERRORS: Record<string, string> = {
  access_denied: "Sign-in was denied in the browser",
  invalid_scope: "The sign-in page rejected a requested scope",
  unauthorized_client:
    "This OAuth client may not use this sign-in flow; check the client type (Desktop app for the loopback flow, Web application for copy-paste)",
  invalid_request: "The sign-in page rejected the request as malformed",
  server_error: "The sign-in page had a server error",
  temporarily_unavailable: "The sign-in page is temporarily unavailable",
  unsupported_response_type: "The sign-in page does not support this flow",
  invalid_client: "The sign-in page rejected the OAuth client id",
};

/** The stable code of each `error=` a browser can come back with. */
const AUTHORIZATION_ERROR_CODES: Record<string, CredErrorCode> = {
  access_denied: ERROR_CODES.ACCESS_DENIED,
  invalid_scope: ERROR_CODES.INVALID_SCOPE,
  unauthorized_client: ERROR_CODES.INVALID_CLIENT,
  invalid_client: ERROR_CODES.INVALID_CLIENT,
  server_error: ERROR_CODES.SERVER_ERROR,
  temporarily_unavailable: ERROR_CODES.SERVER_ERROR,
};

/** Only a plain OAuth error code is ever quoted: the value comes from a URL anyone can craft. */
export function safeErrorCode(value: string): string {
  return /^[a-z_]{1,64}$/.test(value) ? value : "unknown_error";
}

/** What to tell the user when the browser came back with `error=`. */
export function describeAuthorizationError(value: string): string {
  const code = safeErrorCode(value);
  return AUTHORIZATION_ERRORS[code] ?? `The sign-in failed in the browser (${code})`;
}

/** The error thrown for a browser that came back with `error=`. */
export function authorizationError(value: string): CredCredentialsError {
  const code = safeErrorCode(value);
  const hint = code === "access_denied" ? "; run again and choose Allow to sign in" : "; run again";
  return new CredCredentialsError(`${describeAuthorizationError(value)} (${code})${hint}.`, {
    code: AUTHORIZATION_ERROR_CODES[code] ?? ERROR_CODES.CREDENTIALS,
    error: code,
  });
}
