import { CredCredentialsError } from "../errors.js";
import { MESSAGES } from "../messages.js";
import { codeOfOAuthError, meaningOf, oauthErrorWord } from "../protocols/oauth-errors.js";

/** Only a plain OAuth error code is ever quoted: the value comes from a URL anyone can craft. */
export function safeErrorCode(value: string): string {
  return oauthErrorWord(value) ?? "unknown_error";
}

/** What to tell the user when the browser came back with `error=` (RFC 6749 4.1.2.1). */
export function describeAuthorizationError(value: string): string {
  const code = safeErrorCode(value);
  return meaningOf(code)?.page ?? `The sign-in failed in the browser (${code})`;
}

/** The error thrown for a browser that came back with `error=`. */
export function authorizationError(value: string): CredCredentialsError {
  const code = safeErrorCode(value);
  const message =
    code === "access_denied" ? MESSAGES.signInDenied : `${describeAuthorizationError(value)} (${code}); run again.`;
  return new CredCredentialsError(message, {
    code: codeOfOAuthError(code),
    error: code,
  });
}
