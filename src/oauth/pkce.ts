import { createHash, randomBytes } from "node:crypto";
import type { Endpoints } from "../protocols/endpoints.js";

/** A PKCE pair (RFC 7636): the verifier stays here, the S256 challenge goes in the URL. */
export interface Pkce {
  codeVerifier: string;
  codeChallenge: string;
}

/** A fresh random `state`: 256 bits, URL-safe. */
export function createState(): string {
  return randomBytes(32).toString("base64url");
}

/** A fresh PKCE verifier (43 URL-safe characters = 256 bits) and its S256 challenge. */
export function createPkce(): Pkce {
  const codeVerifier = randomBytes(32).toString("base64url");
  return { codeVerifier, codeChallenge: s256(codeVerifier) };
}

/** BASE64URL(SHA256(verifier)), the `S256` code challenge. */
export function s256(codeVerifier: string): string {
  // Stryker disable next-line StringLiteral: verifiers are base64url (ASCII): every encoding gives the same bytes
  return createHash("sha256").update(codeVerifier, "ascii").digest("base64url");
}

/** What goes into an authorization URL. */
export interface AuthorizationUrlParams {
  endpoints: Pick<Endpoints, "authUrl">;
  clientId: string;
  redirectUri: string;
  scopes: readonly string[];
  state: string;
  codeChallenge: string;
  loginHint?: string;
}

/**
 * The authorization URL. `access_type=offline` with `prompt=consent` makes the provider
 * return a refresh token on every sign-in, including re-authorizations (1.8.2).
 */
export function buildAuthorizationUrl(params: AuthorizationUrlParams): string {
  const url = new URL(params.endpoints.authUrl);
  const query = url.searchParams;
  query.set("response_type", "code");
  query.set("client_id", params.clientId);
  query.set("redirect_uri", params.redirectUri);
  query.set("scope", params.scopes.join(" "));
  query.set("state", params.state);
  query.set("code_challenge", params.codeChallenge);
  query.set("code_challenge_method", "S256");
  query.set("access_type", "offline");
  query.set("prompt", "consent");
  if (params.loginHint) query.set("login_hint", params.loginHint);
  return url.href;
}
