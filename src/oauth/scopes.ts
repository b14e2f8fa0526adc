// Scopes as Google accepts and grants them, checked before a sign-in: a short form (`bigquery`) gets
// Google's invalid_scope page, which never comes back.
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { own } from "../trust/own.js";
import { isDeclaredScope } from "./known-scopes.js";

const AUTH = "https://www.googleapis.com/auth/";

/** OpenID Connect's short names, the only short scopes Google accepts. */
const SIGN_IN_SCOPES: Record<string, string> = {
  openid: "openid",
  email: `${AUTH}userinfo.email`,
  profile: `${AUTH}userinfo.profile`,
};

/** Whether Google could accept `scope`: an absolute https URL, or `openid`, `email`, `profile`. */
export function isWellFormedScope(scope: string): boolean {
  if (Object.hasOwn(SIGN_IN_SCOPES, scope)) return true;
  try {
    const url = new URL(scope);
    return url.protocol === "https:" && url.href === scope && !/\s/.test(scope);
  } catch {
    return false;
  }
}

/** The full URL of a short name Google declares (`bigquery`), as a suggestion. */
function suggestion(scope: string): string {
  const name = scope.replace(/^\/+|\/+$/g, "");
  return isDeclaredScope(name) ? ` (did you mean ${AUTH}${name}?)` : "";
}

/** Rejects scopes Google would refuse, naming each (the full URL for a known short name). @throws ERR_INVALID_SCOPE */
export function assertValidScopes(scopes: readonly string[]): void {
  const bad = scopes.filter((scope) => !isWellFormedScope(scope));
  if (bad.length === 0) return;
  const spaced = bad.find((scope) => scope.trim() !== scope && isWellFormedScope(scope.trim()));
  if (spaced !== undefined)
    throw new CredCredentialsError(
      `The scope "${spaced.slice(0, 200)}" has a space around it: remove the space (write "${spaced.trim().slice(0, 200)}").`,
      { code: ERROR_CODES.INVALID_SCOPE },
    );
  const named = bad.map((scope) => `"${scope.slice(0, 200)}"${suggestion(scope)}`).join(", ");
  throw new CredCredentialsError(
    `Google would refuse the scope${bad.length > 1 ? "s" : ""} ${named}: give each scope as its full https://www.googleapis.com/auth/... URL, or openid, email, profile.`,
    { code: ERROR_CODES.INVALID_SCOPE },
  );
}

/** Google's spelling of a scope: `email` and `profile` come back as their userinfo URLs. */
export function canonicalScope(scope: string): string {
  return own(SIGN_IN_SCOPES, scope) ?? scope;
}

/** The requested scopes that `granted` lacks (both spellings of `email`/`profile` count). */
export function missingScopes(granted: readonly string[], requested: readonly string[]): string[] {
  const have = new Set(granted.map(canonicalScope));
  return requested.filter((scope) => !have.has(canonicalScope(scope)));
}

/** Scopes the user unticked at the consent: the credentials would fail later with 403, so nothing is saved. */
export function scopesNotGrantedError(missing: readonly string[]): CredCredentialsError {
  return new CredCredentialsError(
    `The sign-in did not grant ${missing.join(", ")}: sign in again and tick ${missing.length > 1 ? "every box" : "its box"} on Google's consent page (or ask for fewer scopes). Nothing was saved.`,
    { code: ERROR_CODES.INVALID_SCOPE, error: "invalid_scope" },
  );
}
