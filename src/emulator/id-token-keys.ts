/**
 * The keys that sign the emulator's ID tokens, as Google's keys behave: RS256, a `kid` in every
 * header, several published at once (as certificates at `/oauth2/v1/certs`, as a JWK set at
 * `/oauth2/v3/certs`), rotated. The key that signs next is published before it signs, and the one
 * that signed before stays published for one more rotation, so a verifier that cached the keys
 * keeps working across one rotation, not two. Sources: docs/emulator.md, section "ID tokens".
 */
import { generateKeyPairSync, type JsonWebKey, type KeyObject, randomBytes } from "node:crypto";
import { type DecodedJwt, decodeJwt, type JwtClaims, signRs256, verifyRs256 } from "./jwt.js";
import { selfSignedCertificate } from "./x509.js";

/** Google's certificates name this subject. */
const CERT_SUBJECT = "federated-signon.system.gserviceaccount.com";
/** Google's certificates are valid for about two weeks. */
const CERT_VALIDITY_MS = 14 * 24 * 3600 * 1000;

interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  certificate: string;
}

/** Which keys exist now: the one that signs, and every one a verifier may meet. */
export interface IdTokenKeyIds {
  signing: string;
  published: string[];
}

function newKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const now = Date.now();
  return {
    // Google's key ids are 40 hex digits.
    kid: randomBytes(20).toString("hex"),
    privateKey,
    publicKey,
    certificate: selfSignedCertificate({
      commonName: CERT_SUBJECT,
      publicKey,
      privateKey,
      serial: randomBytes(8),
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + CERT_VALIDITY_MS),
    }),
  };
}

export class IdTokenKeys {
  private previous: SigningKey | undefined;
  private current: SigningKey | undefined;
  private upcoming: SigningKey | undefined;

  // Keys are made on first use (RSA key generation takes a moment, and many runs mint no ID
  // token); the next one when it is first published, which is always before it signs.
  private get signingKey(): SigningKey {
    this.current ??= newKey();
    return this.current;
  }

  private get nextKey(): SigningKey {
    this.upcoming ??= newKey();
    return this.upcoming;
  }

  private published(): SigningKey[] {
    return [...(this.previous ? [this.previous] : []), this.signingKey, this.nextKey];
  }

  ids(): IdTokenKeyIds {
    return { signing: this.signingKey.kid, published: this.published().map((k) => k.kid) };
  }

  /** The next key signs, a new one is published to follow it, the oldest is withdrawn. */
  rotate(): IdTokenKeyIds {
    this.previous = this.signingKey;
    this.current = this.nextKey;
    this.upcoming = undefined;
    return this.ids();
  }

  sign(claims: JwtClaims): string {
    const key = this.signingKey;
    return signRs256({ kid: key.kid, typ: "JWT" }, claims, key.privateKey);
  }

  /** The token, decoded, when a published key signed it with RS256; its claims are not checked here. */
  verifiedJwt(token: string): DecodedJwt | undefined {
    const jwt = decodeJwt(token);
    const key = jwt && this.published().find((k) => k.kid === jwt.header.kid);
    return jwt && key && verifyRs256(jwt, key.publicKey) ? jwt : undefined;
  }

  /** `/oauth2/v1/certs`: `{kid: PEM certificate}`. */
  pemCertificates(): Record<string, string> {
    return Object.fromEntries(this.published().map((k) => [k.kid, k.certificate]));
  }

  /** `/oauth2/v3/certs`: `{keys: [JWK]}`. */
  jwks(): { keys: JsonWebKey[] } {
    return {
      keys: this.published().map((k) => ({
        ...k.publicKey.export({ format: "jwk" }),
        alg: "RS256",
        kid: k.kid,
        use: "sig",
      })),
    };
  }
}
