/** Compact JWTs: decoding, and RS256 signatures checked (assertions, subject tokens, the emulator's own ID tokens). */
import { sign, verify, type KeyObject } from "node:crypto";

export type JwtClaims = Record<string, unknown>;

export interface DecodedJwt {
  header: JwtClaims;
  claims: JwtClaims;
  signingInput: string;
  signature: Buffer;
}

const base64url = (data: string | Buffer): string => Buffer.from(data).toString("base64url");

function decodeJsonPart(part: string): JwtClaims | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as JwtClaims) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Splits and decodes a JWT without checking its signature; undefined when it is not one. A part
 * may keep its base64 `=` padding: google-auth for Python before 1.6.3 signed padded parts
 * (`base64.urlsafe_b64encode` in google/auth/jwt.py, until googleapis/google-auth-library-python#324), and Google accepts them.
 */
export function decodeJwt(token: string): DecodedJwt | undefined {
  const parts = token.split(".");
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*={0,2}$/.test(p))) return undefined;
  const header = decodeJsonPart(parts[0]);
  const claims = decodeJsonPart(parts[1]);
  if (!header || !claims) return undefined;
  return { header, claims, signingInput: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2], "base64url") };
}

export function verifyRs256(jwt: DecodedJwt, publicKey: KeyObject): boolean {
  if (jwt.header.alg !== "RS256") return false;
  try {
    return verify("RSA-SHA256", Buffer.from(jwt.signingInput), publicKey, jwt.signature);
  } catch {
    return false;
  }
}

/** A compact RS256 JWT of `header` (alg RS256 added) and `claims`. */
export function signRs256(header: JwtClaims, claims: JwtClaims, privateKey: KeyObject): string {
  const signingInput = `${base64url(JSON.stringify({ alg: "RS256", ...header }))}.${base64url(JSON.stringify(claims))}`;
  return `${signingInput}.${base64url(sign("RSA-SHA256", Buffer.from(signingInput), privateKey))}`;
}
