import { CredCredentialsError } from "../errors.js";
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
  const hint = code === "access_denied" ? "; run again and choose Allow to sign in" : "; run again";
  return new CredCredentialsError(`${describeAuthorizationError(value)} (${code})${hint}.`, {
    code: codeOfOAuthError(code),
    error: code,
  });
}
