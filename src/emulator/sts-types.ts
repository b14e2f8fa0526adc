/** Public types of the emulator's STS side (kept apart so types.ts imports no handler). */

export interface SubjectTokenRequest {
  /** The `aud` claim: usually the provider's `//iam.googleapis.com/...` audience. */
  audience: string;
  /** The `sub` claim (default "emu-workload"). */
  subject?: string;
  /** Seconds from now to `exp` (default 3600; negative: already expired). */
  lifetimeSec?: number;
  /** Extra claims (e.g. e-mail, groups). */
  claims?: Record<string, unknown>;
}

/** A subject token served at a URL, as a `credential_source.url` reads it. */
export interface ServedSubjectToken {
  token: string;
  /** "text" (default) or "json" (then under `field`, default "access_token"). */
  format?: "text" | "json";
  field?: string;
  /** A header the request must carry, e.g. `{ name: "Metadata", value: "True" }`. */
  requiredHeader?: { name: string; value: string };
}

/**
 * How STS `/v1/oauthtoken` rotates refresh tokens. `true` (Google's documented behaviour): each
 * reply carries a new `refresh_token`, and the presented one keeps working. `false`: no
 * `refresh_token` in the reply. `"revoke-old"`, a fault stricter than Google: the presented token
 * stops working at once, and presenting a rotated one again revokes its line (RFC 9700 4.14.2),
 * for tests that a client keeps the newest token.
 */
export type StsRefreshTokenRotation = boolean | "revoke-old";

/** What a provider takes: OIDC (or SAML) tokens, or AWS signed GetCallerIdentity requests. */
export type ProviderType = "oidc" | "aws";

/** The STS controls of the Emulator object (its `extends StsControls`). */
export interface StsControls {
  /**
   * Registers a workload identity or workforce provider audience; returns it. `type: "aws"` (workload
   * pools only) makes it an AWS provider. Three defaults always exist (workload OIDC and AWS, workforce OIDC).
   */
  addIdentityProvider(audience: string, options?: { type?: ProviderType }): string;
  /** Signs a subject token with the emulator's OIDC issuer (RS256; iss = `URL/emulator-oidc`). */
  issueSubjectToken(request: SubjectTokenRequest): string;
  /** Serves a subject token at a fresh URL of the emulator (a `credential_source.url`); returns the URL. */
  serveSubjectToken(served: ServedSubjectToken): string;
  /** The JSON of an `external_account_authorized_user` file whose refresh token the emulator's /v1/oauthtoken accepts. */
  issueExternalAccountAuthorizedUser(opts?: { audience?: string; account?: string }): Record<string, string>;
  /** Sets STS refresh-token rotation at run time (see {@link StsRefreshTokenRotation}). */
  setStsRefreshTokenRotation(rotate: StsRefreshTokenRotation): void;
}
