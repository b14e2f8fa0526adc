/** Compact JWTs: HS256 id tokens the emulator signs itself, RS256 assertions it verifies. */
import { createHmac, timingSafeEqual, verify, type KeyObject } from "node:crypto";

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

export function signHs256(claims: JwtClaims, secret: Buffer, kid?: string): string {
  const header = kid ? { alg: "HS256", typ: "JWT", kid } : { alg: "HS256", typ: "JWT" };
  const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  const signature = createHmac("sha256", secret).update(signingInput).digest();
  return `${signingInput}.${base64url(signature)}`;
}

/** The claims of an HS256 JWT signed with `secret`, or undefined. */
export function verifyHs256(token: string, secret: Buffer): JwtClaims | undefined {
  const jwt = decodeJwt(token);
  if (jwt?.header.alg !== "HS256") return undefined;
  const expected = createHmac("sha256", secret).update(jwt.signingInput).digest();
  if (expected.length !== jwt.signature.length || !timingSafeEqual(expected, jwt.signature)) return undefined;
  return jwt.claims;
}

export function verifyRs256(jwt: DecodedJwt, publicKey: KeyObject): boolean {
  if (jwt.header.alg !== "RS256") return false;
  try {
    return verify("RSA-SHA256", Buffer.from(jwt.signingInput), publicKey, jwt.signature);
  } catch {
    return false;
  }
}
