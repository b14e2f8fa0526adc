// An ID token as a token service hands it out: a JWT read unverified (its receiver checks it), but one
// whose `aud` is not the audience asked is refused: a server may honour another parameter than the one sent.
import { CredConnectionError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { parseObject } from "../formats/fields.js";
import { quoted } from "../trust/text.js";

export interface FetchedIdToken {
  idToken: string;
  /** The token's `exp`, in milliseconds since the epoch. */
  expiresAt: number;
}

/** ID tokens are a few kilobytes at most; anything longer is not one. */
const MAX_ID_TOKEN_LENGTH = 16 * 1024;
/** An `aud` is quoted in an error up to this length (an audience is at most 2048 characters). */
const MAX_QUOTED_AUDIENCE = 2048;

/**
 * `token` when it is a JWT with a numeric `exp` and `aud` = `audience` (`who` names the sender):
 * else ERR_SERVER_ERROR (not a readable JWT) or ERR_ID_TOKEN_WRONG_AUDIENCE.
 */
export function fetchedIdToken(token: unknown, who: string, audience: string): FetchedIdToken {
  const claims = typeof token === "string" ? claimsOf(token.trim()) : undefined;
  const exp = claims?.exp;
  if (typeof token !== "string" || typeof exp !== "number" || !Number.isFinite(exp) || exp <= 0)
    throw new CredConnectionError(`${who} sent an ID token that is not a readable JWT; try again later.`, {
      code: ERROR_CODES.SERVER_ERROR,
    });
  if (!isFor(claims?.aud, audience)) throw wrongAudience(who, audience, claims?.aud);
  return { idToken: token.trim(), expiresAt: exp * 1000 };
}

/** RFC 7519: `aud` is one string, or a list of them. Google's are one string. */
function isFor(aud: unknown, audience: string): boolean {
  return aud === audience || (Array.isArray(aud) && aud.includes(audience));
}

function wrongAudience(who: string, audience: string, aud: unknown): CredCredentialsError {
  const came =
    typeof aud === "string"
      ? quoted(aud.slice(0, MAX_QUOTED_AUDIENCE))
      : aud === undefined
        ? "missing"
        : "not one string";
  return new CredCredentialsError(
    `${who} sent an ID token for another audience: asked for ${quoted(audience)}, its aud is ${came}, so cred-auth did not hand it out (the service would refuse it, or another accept it). With a user's credentials, ask for an IAP resource's client id of the same project or for your own client id, and call Cloud Run through a service account or impersonation (see the "Calling Cloud Run and IAP" page).`,
    { code: ERROR_CODES.ID_TOKEN_WRONG_AUDIENCE },
  );
}

function claimsOf(token: string): { exp?: unknown; aud?: unknown } | undefined {
  const parts = token.split(".");
  if (token.length > MAX_ID_TOKEN_LENGTH || parts.length !== 3 || !parts.every((p) => /^[\w-]+$/.test(p)))
    return undefined;
  return parseObject(Buffer.from(parts[1] as string, "base64url").toString("utf8"));
}
