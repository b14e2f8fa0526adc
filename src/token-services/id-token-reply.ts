// An ID token as a token service hands it out: a JWT whose `exp` says how long it may be used.
// Only its payload's `exp` is read, unverified: the token is passed on, never trusted here (its
// receiver checks the signature). Nothing of the token is ever quoted in an error.
import { CredConnectionError, ERROR_CODES } from "../errors.js";

/** An ID token and when it expires. */
export interface FetchedIdToken {
  idToken: string;
  /** The token's `exp`, in milliseconds since the epoch. */
  expiresAt: number;
}

/** ID tokens are a few kilobytes at most; anything longer is not one. */
const MAX_ID_TOKEN_LENGTH = 16 * 1024;

/**
 * `token` when it is a JWT whose payload holds a numeric `exp`, with that expiry; else a
 * {@link CredConnectionError} (`ERR_SERVER_ERROR`) naming `who` sent it.
 */
export function fetchedIdToken(token: unknown, who: string): FetchedIdToken {
  const expiresAt = typeof token === "string" ? expiryOf(token.trim()) : undefined;
  if (typeof token !== "string" || expiresAt === undefined)
    throw new CredConnectionError(`${who} sent an ID token that is not a readable JWT; try again later.`, {
      code: ERROR_CODES.SERVER_ERROR,
    });
  return { idToken: token.trim(), expiresAt };
}

function expiryOf(token: string): number | undefined {
  const parts = token.split(".");
  if (token.length > MAX_ID_TOKEN_LENGTH || parts.length !== 3 || !parts.every((p) => /^[\w-]+$/.test(p)))
    return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1] as string, "base64url").toString("utf8"));
    const exp = (claims as { exp?: unknown } | null)?.exp;
    return typeof exp === "number" && Number.isFinite(exp) && exp > 0 ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
