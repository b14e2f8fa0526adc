/**
 * Google's ID tokens: RS256 JWTs signed by the keys of id-token-keys.ts, with the claims each
 * source puts in (user sign-in and refresh, service-account keys, IAM Credentials, the metadata
 * server), the published keys, and the checks a receiver makes. Sources: docs/emulator.md,
 * section "ID tokens".
 */
import { createHash } from "node:crypto";
import type { ServerResponse } from "node:http";
import { EMULATOR_PATHS } from "../shared/constants.js";
import type { RequestContext } from "./context.js";
import { sendJson } from "./http.js";
import { IdTokenKeys } from "./id-token-keys.js";
import type { DecodedJwt, JwtClaims } from "./jwt.js";
import { perState } from "./per-state.js";
import { EMAIL_SCOPE } from "./scopes.js";
import type { EmulatorState, Grant } from "./state.js";

/** Every ID token Google signs names this issuer. */
const GOOGLE_ISSUER = "https://accounts.google.com";
/** What receivers accept as Google's issuer (google-auth-library's `verifyIdToken` default, without the universe). */
const GOOGLE_ISSUERS = new Set([GOOGLE_ISSUER, "accounts.google.com"]);
const LIFETIME_SEC = 3600;
/** Google's paths on www.googleapis.com, served at the same paths here. */
const CERT_PATHS = { pem: EMULATOR_PATHS.pemCerts, jwk: EMULATOR_PATHS.jwkCerts } as const;
/** Google's caching of its keys: hours. A verifier that honours it keeps old keys that long. */
const CERTS_MAX_AGE_SEC = 6 * 3600;

export type IdTokenSource = "authorization_code" | "refresh_token" | "jwt-bearer" | "generateIdToken" | "metadata";

/** The signing keys of an emulator (made on first use). */
export const idTokenKeysOf = perState(() => new IdTokenKeys());

function mint(state: EmulatorState, source: IdTokenSource, claims: JwtClaims): string {
  const now = Math.floor(Date.now() / 1000);
  state.stats.idTokens += 1;
  state.stats.idTokensBySource[source] = (state.stats.idTokensBySource[source] ?? 0) + 1;
  return idTokenKeysOf(state).sign({ iss: GOOGLE_ISSUER, ...claims, iat: now, exp: now + LIFETIME_SEC });
}

/** `at_hash`: the left half of the access token's SHA-256, base64url (OpenID Connect Core 3.1.3.6). */
function accessTokenHash(accessToken: string): string {
  return createHash("sha256").update(accessToken).digest().subarray(0, 16).toString("base64url");
}

export interface UserIdTokenRequest {
  source: "authorization_code" | "refresh_token";
  /** Another client's id (the refresh grant's `audience`); default: the grant's own client. */
  audience?: string;
  /** The access token issued beside it, hashed into `at_hash`. */
  accessToken?: string;
}

/** A signed-in user's ID token: `azp` is the client that asked, `email` only with the e-mail scope. */
export function userIdToken(state: EmulatorState, grant: Grant, request: UserIdTokenRequest): string {
  return mint(state, request.source, {
    azp: grant.clientId,
    aud: request.audience ?? grant.clientId,
    sub: state.subjectOf(grant.account),
    ...(grant.scopes.includes(EMAIL_SCOPE) ? { email: grant.account, email_verified: true } : {}),
    ...(request.accessToken ? { at_hash: accessTokenHash(request.accessToken) } : {}),
  });
}

export interface ServiceAccountIdTokenRequest {
  source: "jwt-bearer" | "generateIdToken" | "metadata";
  email: string;
  audience: string;
  includeEmail: boolean;
  /** `azp` is the e-mail instead of the unique id (IAM's `useEmailAzp`). */
  emailAzp?: boolean;
  /** Claims of the source, e.g. the metadata server's `google.compute_engine`. */
  extra?: JwtClaims;
}

/** A service account's ID token: `sub` and `azp` are its numeric unique id. */
export function serviceAccountIdToken(state: EmulatorState, request: ServiceAccountIdTokenRequest): string {
  const uniqueId = state.subjectOf(request.email);
  return mint(state, request.source, {
    azp: request.emailAzp ? request.email : uniqueId,
    aud: request.audience,
    sub: uniqueId,
    ...(request.includeEmail ? { email: request.email, email_verified: true } : {}),
    ...request.extra,
  });
}

/** The emulated VM, as its metadata paths and its identity tokens name it. */
export interface VmInstance {
  projectId: string;
  projectNumber: string;
  id: string;
  name: string;
  zone: string;
}

/** When the emulated VM was "created": the first time anything asked. */
const vmCreatedAt = perState(() => Math.floor(Date.now() / 1000));

/** The license codes of the emulated VM's boot image (an emulator value: a real image has its own). */
const VM_LICENSES = ["1000000000000000001"];

export interface MetadataReply {
  status: number;
  text: string;
}

/**
 * `instance/service-accounts/default/identity?audience=A[&format=standard|full][&licenses=TRUE]`:
 * `standard` (the default) has no e-mail; `full` adds `email` and `google.compute_engine`, with
 * `license_id` when `licenses=TRUE`.
 */
export function metadataIdentity(
  state: EmulatorState,
  email: string,
  params: URLSearchParams,
  vm: VmInstance,
): MetadataReply {
  const audience = params.get("audience");
  if (!audience) return { status: 400, text: "non-empty audience parameter required\n" };
  const format = params.get("format") ?? "standard";
  if (format !== "standard" && format !== "full") return { status: 400, text: 'format must be "standard" or "full"\n' };
  const full = format === "full";
  const computeEngine = {
    instance_creation_timestamp: vmCreatedAt(state),
    instance_id: vm.id,
    instance_name: vm.name,
    project_id: vm.projectId,
    project_number: Number(vm.projectNumber),
    zone: vm.zone,
    ...(params.get("licenses")?.toLowerCase() === "true" ? { license_id: [...VM_LICENSES] } : {}),
  };
  const extra = full ? { google: { compute_engine: computeEngine } } : {};
  return {
    status: 200,
    text: serviceAccountIdToken(state, { source: "metadata", email, audience, includeEmail: full, extra }),
  };
}

/**
 * The claims of a token a receiver would accept from Google: signed RS256 by a key published now,
 * Google's issuer, not expired. The audience is the receiver's own check.
 */
export function verifiedIdToken(state: EmulatorState, token: string): DecodedJwt | undefined {
  const jwt = idTokenKeysOf(state).verifiedJwt(token);
  if (!jwt) return undefined;
  const { iss, exp } = jwt.claims;
  if (typeof iss !== "string" || !GOOGLE_ISSUERS.has(iss)) return undefined;
  if (typeof exp !== "number" || exp * 1000 <= Date.now()) return undefined;
  return jwt;
}

/** tokeninfo's reply for an ID token: every claim as a string, with the header's alg, kid, typ. */
export function idTokenInfo(state: EmulatorState, token: string): Record<string, string> | undefined {
  const jwt = verifiedIdToken(state, token);
  if (!jwt) return undefined;
  const info: Record<string, string> = { alg: "RS256", kid: String(jwt.header.kid), typ: "JWT" };
  for (const [key, value] of Object.entries(jwt.claims))
    info[key] = typeof value === "object" ? JSON.stringify(value) : String(value);
  return info;
}

function sendCerts(res: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body, null, 2);
  res.writeHead(200, {
    "Content-Type": "application/json; charset=UTF-8",
    "Content-Length": Buffer.byteLength(text),
    "Cache-Control": `public, max-age=${CERTS_MAX_AGE_SEC}, must-revalidate, no-transform`,
    Expires: new Date(Date.now() + CERTS_MAX_AGE_SEC * 1000).toUTCString(),
  });
  res.end(text);
}

/** `GET /oauth2/v1/certs` (`{kid: PEM certificate}`) and `/oauth2/v3/certs` (`{keys: [JWK]}`); false for other paths. */
export function handleCerts(ctx: RequestContext): boolean {
  const path = ctx.url.pathname;
  if (path !== CERT_PATHS.pem && path !== CERT_PATHS.jwk) return false;
  ctx.state.stats.certRequests += 1;
  if (ctx.req.method !== "GET" && ctx.req.method !== "HEAD") {
    const error = { code: 405, message: "Method not allowed.", status: "METHOD_NOT_ALLOWED" };
    sendJson(ctx.res, 405, { error }, { Allow: "GET" });
    return true;
  }
  const keys = idTokenKeysOf(ctx.state);
  sendCerts(ctx.res, path === CERT_PATHS.pem ? keys.pemCertificates() : keys.jwks());
  return true;
}

/** Clients without a `project` belong to this one. */
const DEFAULT_PROJECT = "emulator-project";

/** The refresh grant's `audience` (IAP's desktop flow): another OAuth client of the asking client's project. */
export function mayAskIdTokenFor(state: EmulatorState, clientId: string, audience: string): boolean {
  const asking = state.clients.get(clientId);
  const target = state.clients.get(audience);
  return !!asking && !!target && (asking.project ?? DEFAULT_PROJECT) === (target.project ?? DEFAULT_PROJECT);
}
