// A token-cache entry: one small JSON file holding an access token, never a refresh token or key; read back
// taking only well-typed fields.
import { isToken } from "../trust/text.js";

/** The `token_type` of an entry under an ID-token key: its `access_token` holds the ID token. */
export const ID_TOKEN_ENTRY_TYPE = "id_token";

/** An access token as the token cache keeps it: never a refresh token or key. */
export interface CachedAccessToken {
  access_token: string;
  /** When the token expires, in milliseconds since the epoch. */
  expiry_date: number;
  /** Always `Bearer` for Google's tokens. */
  token_type: string;
  /** The scopes the token was requested for, when known. */
  scopes?: string[];
}

/** The entry's text, its four fields only; undefined when `access_token` is not a token (junk must not wait at rest). */
export function entryText(token: CachedAccessToken): string | undefined {
  if (!isToken(token.access_token)) return undefined;
  const entry: CachedAccessToken = {
    access_token: token.access_token,
    expiry_date: token.expiry_date,
    token_type: token.token_type || "Bearer",
    ...(token.scopes ? { scopes: [...token.scopes] } : {}),
  };
  return `${JSON.stringify(entry)}\n`;
}

/** The token an entry's text holds, or undefined when it is not a well-formed entry. */
export function parseCachedToken(text: string): CachedAccessToken | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
    // Stryker disable next-line BlockStatement: equivalent: json stays undefined, which is no token
  } catch {
    return undefined;
  }
  // Stryker disable next-line ConditionalExpression: equivalent for the typeof half: a number or string has no access_token
  if (typeof json !== "object" || json === null) return undefined;
  const { access_token, expiry_date, token_type, scopes } = json as Record<string, unknown>;
  if (
    typeof access_token !== "string" ||
    // An entry written before entries were judged may hold a server's junk: a miss, asked again.
    !isToken(access_token) ||
    // Stryker disable next-line ConditionalExpression: equivalent: Number.isFinite is false for a non-number
    typeof expiry_date !== "number" ||
    !Number.isFinite(expiry_date)
  )
    return undefined;
  const token: CachedAccessToken = {
    access_token,
    expiry_date,
    token_type: typeof token_type === "string" && token_type ? token_type : "Bearer",
  };
  if (Array.isArray(scopes) && scopes.every((s) => typeof s === "string")) token.scopes = scopes;
  return token;
}

/** The entry of a bearer token a token service answered, asked for `scopes`. */
export function bearerEntry(
  token: { accessToken: string; expiresAt: number },
  scopes: readonly string[],
): CachedAccessToken {
  return { access_token: token.accessToken, expiry_date: token.expiresAt, token_type: "Bearer", scopes: [...scopes] };
}
