// Scopes checked against Google's declared ones before the browser opens (Google's invalid_scope page never comes
// back): a near miss is refused with "did you mean", an unknown one passes with a note. The list loads on first use.
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { ENV } from "../shared/constants.js";
import { GOOGLE_SCOPES, GOOGLE_SCOPES_DATE, GOOGLE_SCOPES_SOURCE } from "./google-scopes.js";

const PREFIX = "https://www.googleapis.com/auth/";

let known: ReadonlySet<string> | undefined;

/** Whether Google declares the scope `name` (after `https://www.googleapis.com/auth/`). */
export function isDeclaredScope(name: string): boolean {
  known ??= new Set(GOOGLE_SCOPES);
  return known.has(name);
}

/** Checks scopes against Google's declared ones: `unknown` ones pass (worth a note). @throws ERR_INVALID_SCOPE for a typo. */
export function checkKnownScopes(scopes: readonly string[]): { readonly unknown: readonly string[] } {
  const unknown: string[] = [];
  const typos: string[] = [];
  for (const scope of scopes) {
    if (!scope.startsWith(PREFIX)) continue;
    const name = scope.slice(PREFIX.length);
    if (isDeclaredScope(name)) continue;
    const meant = closest(name);
    if (meant) typos.push(`${scope} (did you mean ${PREFIX}${meant}?)`);
    else unknown.push(scope);
  }
  if (typos.length > 0) {
    throw new CredCredentialsError(
      `Google knows no scope${typos.length > 1 ? "s" : ""} ${typos.join(", ")}: correct it (newer than ${GOOGLE_SCOPES_DATE}? CRED_AUTH_SCOPE_CHECK=off).`,
      { code: ERROR_CODES.INVALID_SCOPE },
    );
  }
  return { unknown };
}

/** {@link checkKnownScopes} unless `CRED_AUTH_SCOPE_CHECK=off`: notes for scopes the list does not hold. */
export function scopeCheckNotes(scopes: readonly string[], env: NodeJS.ProcessEnv): string[] {
  if (/^(off|0|false|no)$/i.test(env[ENV.scopeCheck]?.trim() ?? "")) return [];
  const { unknown } = checkKnownScopes(scopes);
  return unknown.length > 0 ? [unknownScopesNote(unknown)] : [];
}

export function unknownScopesNote(unknown: readonly string[]): string {
  return `${unknown.join(", ")} ${unknown.length > 1 ? "are" : "is"} not among the scopes of ${GOOGLE_SCOPES_SOURCE}: if Google's page says "invalid_scope", check the spelling.`;
}

/** The declared scope `name` is a typo of (case, one or two edits), if any. */
function closest(name: string): string | undefined {
  const lower = name.toLowerCase();
  const allowed = lower.length < 8 ? 1 : 2;
  let best: { scope: string; distance: number } | undefined;
  for (const scope of GOOGLE_SCOPES) {
    if (Math.abs(scope.length - lower.length) > allowed) continue;
    const distance = scope === lower ? 0 : editDistance(lower, scope, allowed);
    if (distance <= allowed && (!best || distance < best.distance)) best = { scope, distance };
  }
  return best?.scope;
}

/** Edits (insert, delete, replace, swap neighbours) from `a` to `b` (optimal string alignment), at most `limit + 1`. */
export function editDistance(a: string, b: string, limit: number): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2] + 1);
      row.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    before = previous;
    previous = row;
  }
  return Math.min(previous[b.length], limit + 1);
}
