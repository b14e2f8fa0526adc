/**
 * A test OIDC issuer inside the emulator: it signs RS256 subject tokens (iss, aud, sub, iat, exp)
 * with its own key, and verifies them for the STS endpoint. Only tokens it issued itself pass.
 */
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { decodeJwt, verifyRs256, type JwtClaims } from "./jwt.js";
import type { SubjectTokenRequest } from "./sts-types.js";

/** Why a subject token fails, as STS words it, or the claims when it passes. */
export type SubjectCheck = { ok: true; claims: JwtClaims } | { ok: false; description: string };

const b64 = (data: string | Buffer): string => Buffer.from(data).toString("base64url");

export class OidcIssuer {
  readonly keyId = randomBytes(8).toString("hex");
  private keys: { privateKey: KeyObject; publicKey: KeyObject } | undefined;

  constructor(readonly issuer: string) {}

  /** Generated on first use: most emulator runs never federate. */
  private keyPair(): { privateKey: KeyObject; publicKey: KeyObject } {
    this.keys ??= generateKeyPairSync("rsa", { modulusLength: 2048 });
    return this.keys;
  }

  issue(request: SubjectTokenRequest): string {
    const now = Math.floor(Date.now() / 1000);
    const lifetime = request.lifetimeSec ?? 3600;
    const claims: JwtClaims = {
      ...request.claims,
      iss: this.issuer,
      aud: request.audience,
      sub: request.subject ?? "emu-workload",
      iat: Math.min(now, now + lifetime - 60),
      exp: now + lifetime,
    };
    const header = { alg: "RS256", typ: "JWT", kid: this.keyId };
    const input = `${b64(JSON.stringify(header))}.${b64(JSON.stringify(claims))}`;
    return `${input}.${b64(sign("RSA-SHA256", Buffer.from(input), this.keyPair().privateKey))}`;
  }

  /** Checks signature, issuer, audience and expiry, in that order (as a provider would). */
  check(token: string, audience: string): SubjectCheck {
    const jwt = decodeJwt(token);
    if (!jwt) return { ok: false, description: "Unable to parse the ID Token." };
    if (jwt.header.kid !== this.keyId || !verifyRs256(jwt, this.keyPair().publicKey))
      return { ok: false, description: "Invalid ID Token signature." };
    const { claims } = jwt;
    if (claims.iss !== this.issuer)
      return {
        ok: false,
        description: `The issuer in ID Token [${String(claims.iss)}] does not match the expected issuer.`,
      };
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!aud.includes(audience))
      return {
        ok: false,
        description: `The audience in ID Token [${aud.map(String).join(", ")}] does not match the expected audience ${audience}.`,
      };
    if (typeof claims.exp !== "number" || claims.exp * 1000 <= Date.now())
      return { ok: false, description: "The ID Token has expired." };
    if (typeof claims.sub !== "string" || claims.sub === "")
      return { ok: false, description: "The ID Token has no subject." };
    return { ok: true, claims };
  }
}
