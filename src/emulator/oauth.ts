/** The OAuth 2.0 endpoints: authorization (consent page), token, revoke, tokeninfo, code page. Google's shapes. */
import { createHash, timingSafeEqual } from "node:crypto";
import { EMULATOR_PATHS } from "../shared/constants.js";
import type { RequestContext } from "./context.js";
import { wait } from "./context.js";
import { applyFault } from "./faults.js";
import { basicCredentials, bearerToken, parseParams, readBody, redirect, sendHtml, sendJson } from "./http.js";
import { revokeGrant } from "./grants.js";
import {
  idTokenInfo,
  mayAskIdTokenFor,
  serviceAccountIdToken,
  type UserIdTokenRequest,
  userIdToken,
} from "./id-tokens.js";
import { decodeJwt, verifyRs256 } from "./jwt.js";
import { clientRefusal } from "./client-status.js";
import { codeErrorPage, codePage, consentPage, errorPage } from "./pages.js";
import { EMAIL_SCOPE, invalidScopeDescription, isSignInScope, OPENID } from "./scopes.js";
import { GOOGLE_TOKEN_URL, type EmulatorState, type Grant } from "./state.js";
import type { EmulatorClient } from "./types.js";

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;
/** Google's authorization codes: `4/` then URL-safe characters. A percent-encoded one (`4%2F0A...`) is malformed. */
const AUTH_CODE = /^4\/[A-Za-z0-9._-]+$/;
/** Google's refresh tokens: `1//` then URL-safe characters. */
const REFRESH_TOKEN = /^1\/\/[A-Za-z0-9._-]+$/;

// ---------------------------------------------------------------- authorization

/** Why a redirect URI is refused for this client, or undefined when it is allowed. */
function redirectUriProblem(state: EmulatorState, client: EmulatorClient, redirectUri: string): string | undefined {
  if (state.redirectUrisOf(client).includes(redirectUri)) return undefined;
  if (client.type === "web") return "The redirect URI is not registered for this web client.";
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    return "The redirect URI is not a valid URL.";
  }
  if (url.protocol !== "http:" || !LOOPBACK_HOSTS.has(url.hostname) || url.username || url.password || url.hash) {
    return "Desktop clients may only redirect to a loopback address: http://127.0.0.1:PORT, http://[::1]:PORT or http://localhost:PORT.";
  }
  return undefined;
}

/** Granted scopes are in Google's spelling, where `openid` comes with `email` and `profile`. */
function wantsIdToken(scopes: string[]): boolean {
  return scopes.includes(OPENID);
}

export function handleAuthGet(ctx: RequestContext): void {
  const { state, res, url } = ctx;
  const q = url.searchParams;
  const clientId = q.get("client_id") ?? "";
  const client = state.clients.get(clientId);
  if (!client) {
    sendHtml(res, 401, errorPage("invalid_client", "The OAuth client was not found.", 401));
    return;
  }
  const refused = clientRefusal(state, clientId);
  if (refused) {
    sendHtml(res, 401, errorPage(refused.error, refused.description, 401));
    return;
  }
  const redirectUri = q.get("redirect_uri");
  if (!redirectUri) {
    sendHtml(res, 400, errorPage("invalid_request", "Missing required parameter: redirect_uri"));
    return;
  }
  const redirectProblem = redirectUriProblem(state, client, redirectUri);
  if (redirectProblem) {
    sendHtml(res, 400, errorPage("redirect_uri_mismatch", redirectProblem));
    return;
  }
  const problem = authRequestProblem(q);
  if (problem) {
    sendHtml(res, 400, errorPage("invalid_request", problem));
    return;
  }
  const prompts = (q.get("prompt") ?? "").split(" ").filter(Boolean);
  const appState = q.get("state") ?? undefined;
  if (prompts.includes("none")) {
    // The emulator keeps no sign-in session, so it can never answer without asking.
    redirect(res, withParams(redirectUri, { error: "interaction_required", state: appState }));
    return;
  }
  const asked = (q.get("scope") ?? "").split(/\s+/).filter(Boolean);
  const invalid = state.scopes.invalid(asked);
  if (invalid.length > 0) {
    // Google shows this page and never redirects back: the app waits until it gives up.
    sendHtml(res, 400, errorPage("invalid_scope", invalidScopeDescription(invalid)));
    return;
  }
  const scopes = state.scopes.granted(asked);
  const challenge = q.get("code_challenge") ?? undefined;
  const method = q.get("code_challenge_method") ?? "plain";
  const loginHint = q.get("login_hint") ?? undefined;
  const requestId = state.addPending({
    clientId,
    redirectUri,
    scopes,
    offline: q.get("access_type") === "offline",
    promptConsent: prompts.includes("consent"),
    ...(appState !== undefined ? { state: appState } : {}),
    ...(challenge ? { codeChallenge: `${method}:${challenge}` } : {}),
    ...(loginHint ? { loginHint } : {}),
  });
  const accounts = accountsFor(state, loginHint);
  sendHtml(
    res,
    200,
    consentPage({
      action: EMULATOR_PATHS.auth,
      requestId,
      clientName: state.clientName(clientId),
      scopes,
      optional: state.granularConsent ? scopes.filter((s) => !isSignInScope(s)) : [],
      accounts,
      selected: loginHint && accounts.includes(loginHint) ? loginHint : accounts[0],
    }),
  );
}

/** The test accounts, plus a login_hint e-mail that is not among them (Google lets you type any account). */
function accountsFor(state: EmulatorState, loginHint: string | undefined): string[] {
  const hint = loginHint && /^[^\s@<>"']+@[^\s@<>"']+$/.test(loginHint) ? loginHint : undefined;
  return hint && !state.accounts.includes(hint) ? [hint, ...state.accounts] : state.accounts;
}

function authRequestProblem(q: URLSearchParams): string | undefined {
  const responseType = q.get("response_type");
  if (!responseType) return "Missing required parameter: response_type";
  if (responseType !== "code") return `Unsupported response_type: ${responseType}. Only "code" is supported.`;
  if (!(q.get("scope") ?? "").trim()) return "Missing required parameter: scope";
  const challenge = q.get("code_challenge");
  const method = q.get("code_challenge_method");
  if (method !== null && method !== "S256" && method !== "plain") return `Invalid code_challenge_method: ${method}`;
  if (method !== null && !challenge) return "Missing required parameter: code_challenge";
  if (challenge !== null && !PKCE_VALUE.test(challenge))
    return "Invalid code_challenge: 43 to 128 characters of [A-Za-z0-9-._~] expected.";
  const accessType = q.get("access_type");
  if (accessType !== null && accessType !== "online" && accessType !== "offline")
    return `Invalid access_type: ${accessType}`;
  const prompts = (q.get("prompt") ?? "").split(" ").filter(Boolean);
  if (prompts.some((p) => p !== "none" && p !== "consent" && p !== "select_account")) return "Invalid prompt value.";
  if (prompts.includes("none") && prompts.length > 1) return "prompt=none cannot be combined with other values.";
  return undefined;
}

function withParams(base: string, params: Record<string, string | undefined>): string {
  const url = new URL(base);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  return url.toString();
}

export async function handleAuthPost(ctx: RequestContext): Promise<void> {
  const { state, req, res } = ctx;
  const body = await readBody(req);
  const form = parseParams(body, "application/x-www-form-urlencoded");
  const request = state.takePending(form.get("request_id") ?? "");
  if (!request) {
    sendHtml(
      res,
      400,
      errorPage(
        "invalid_request",
        "This sign-in request was already used or has expired. Go back to the application and sign in again.",
      ),
    );
    return;
  }
  const decision = form.get("decision");
  if (decision !== "allow" && decision !== "deny") {
    sendHtml(res, 400, errorPage("invalid_request", "Press Allow or Deny."));
    return;
  }
  state.stats.authorizations += 1;
  if (decision === "deny") {
    redirect(res, withParams(request.redirectUri, { error: "access_denied", state: request.state }));
    return;
  }
  const account = form.get("account") ?? "";
  if (!accountsFor(state, request.loginHint).includes(account)) {
    sendHtml(res, 400, errorPage("invalid_request", "Choose one of the listed accounts."));
    return;
  }
  const granted = grantedScopes(state, request.scopes, new URLSearchParams(body).getAll("scope"));
  const code = state.issueCode({ ...request, scopes: granted }, account);
  redirect(res, withParams(request.redirectUri, { state: request.state, code, scope: granted.join(" ") }));
}

/** Granular consent: sign-in scopes always, the others only when their box stayed ticked. */
function grantedScopes(state: EmulatorState, asked: string[], ticked: string[]): string[] {
  if (!state.granularConsent) return asked;
  return asked.filter((scope) => isSignInScope(scope) || ticked.includes(scope));
}

// ---------------------------------------------------------------- token endpoint

interface OAuthError {
  status: number;
  error: string;
  description: string;
  /** Extra reply fields, e.g. reauth's `error_subtype` and `error_uri`. */
  extra?: Record<string, string>;
}

const badRequest = (error: string, description: string): OAuthError => ({ status: 400, error, description });
const INVALID_GRANT = badRequest("invalid_grant", "Bad Request");
// Google's own texts for a failed exchange or refresh (see docs/emulator.md for the sources).
const MALFORMED_CODE = badRequest("invalid_grant", "Malformed auth code.");
const INVALID_VERIFIER = badRequest("invalid_grant", "Invalid code verifier.");
const MISSING_VERIFIER = badRequest("invalid_grant", "Missing code verifier.");
const VERIFIER_NOT_NEEDED = badRequest("invalid_request", "code_verifier or verifier is not needed.");
const REDIRECT_MISMATCH = badRequest("redirect_uri_mismatch", "Bad Request");
const EXPIRED_OR_REVOKED = badRequest("invalid_grant", "Token has been expired or revoked.");
/** google-auth-library-python#669: the refresh grant's `audience` names a client of another project. */
const FOREIGN_AUDIENCE = badRequest(
  "invalid_audience",
  "The audience client and the client need to be in the same project.",
);
/** google-auth-library-python's reauth.py and user reports (cline#4080) show this reply. */
const REAUTH_REQUIRED: OAuthError = {
  ...badRequest("invalid_grant", "reauth related error (invalid_rapt)"),
  extra: { error_uri: "https://support.google.com/a/answer/9368756", error_subtype: "invalid_rapt" },
};

function isOAuthError(value: unknown): value is OAuthError {
  return typeof value === "object" && value !== null && "error" in value && "status" in value;
}

function sendOAuthError(res: RequestContext["res"], e: OAuthError): void {
  sendJson(res, e.status, { error: e.error, error_description: e.description, ...e.extra });
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Client authentication by HTTP Basic or body parameters (RFC 6749 2.3.1), Google's errors. */
function authenticateClient(ctx: RequestContext, params: Map<string, string>): EmulatorClient | OAuthError {
  const basic = basicCredentials(ctx.req);
  const bodyId = params.get("client_id");
  if (basic && bodyId !== undefined && bodyId !== basic.id) {
    return badRequest("invalid_request", "client_id in the body does not match the Authorization header.");
  }
  const id = basic?.id ?? bodyId;
  const secret = basic?.secret ?? params.get("client_secret");
  if (!id) return badRequest("invalid_request", "Could not determine client ID from request.");
  const client = ctx.state.clients.get(id);
  if (!client) return { status: 401, error: "invalid_client", description: "The OAuth client was not found." };
  const refused = clientRefusal(ctx.state, id);
  if (refused) return { status: 401, ...refused };
  if (secret === undefined || secret === "") return badRequest("invalid_request", "client_secret is missing.");
  if (!safeEqual(secret, client.clientSecret))
    return { status: 401, error: "invalid_client", description: "Unauthorized" };
  return client;
}

function pkceMatches(stored: string, verifier: string): boolean {
  if (!PKCE_VALUE.test(verifier)) return false;
  const colon = stored.indexOf(":");
  const method = stored.slice(0, colon);
  const challenge = stored.slice(colon + 1);
  const derived = method === "S256" ? createHash("sha256").update(verifier).digest("base64url") : verifier;
  return safeEqual(derived, challenge);
}

function userTokenResponse(
  state: EmulatorState,
  grant: Grant,
  refreshToken: string | undefined,
  offline: boolean,
  idToken: Omit<UserIdTokenRequest, "accessToken">,
): Record<string, unknown> {
  const issued = state.issueAccessToken(grant, { ...(refreshToken ? { refreshToken } : {}), offline });
  const accessToken = issued.access_token;
  return {
    ...issued,
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    scope: grant.scopes.join(" "),
    token_type: "Bearer",
    ...(wantsIdToken(grant.scopes) ? { id_token: userIdToken(state, grant, { ...idToken, accessToken }) } : {}),
  };
}

function exchangeCode(ctx: RequestContext, params: Map<string, string>): Record<string, unknown> | OAuthError {
  const client = authenticateClient(ctx, params);
  if (isOAuthError(client)) return client;
  const code = params.get("code");
  if (!code) return badRequest("invalid_request", "Missing required parameter: code");
  if (!AUTH_CODE.test(code)) return MALFORMED_CODE;
  const record = ctx.state.takeCode(code);
  if (!record || record.grant.clientId !== client.clientId) return INVALID_GRANT;
  if (params.get("redirect_uri") !== record.redirectUri) return REDIRECT_MISMATCH;
  const pkceProblem = verifierProblem(record.codeChallenge, params.get("code_verifier"));
  if (pkceProblem) return pkceProblem;
  const refreshToken = record.withRefreshToken ? ctx.state.issueRefreshToken(record.grant) : undefined;
  return userTokenResponse(ctx.state, record.grant, refreshToken, record.withRefreshToken, {
    source: "authorization_code",
  });
}

/** PKCE both ways: a code issued with a challenge needs its verifier, one issued without takes none. */
function verifierProblem(challenge: string | undefined, verifier: string | undefined): OAuthError | undefined {
  if (!challenge) return verifier === undefined ? undefined : VERIFIER_NOT_NEEDED;
  if (verifier === undefined || verifier === "") return MISSING_VERIFIER;
  return pkceMatches(challenge, verifier) ? undefined : INVALID_VERIFIER;
}

function refreshAccessToken(ctx: RequestContext, params: Map<string, string>): Record<string, unknown> | OAuthError {
  const client = authenticateClient(ctx, params);
  if (isOAuthError(client)) return client;
  const refreshToken = params.get("refresh_token");
  if (!refreshToken) return badRequest("invalid_request", "Missing required parameter: refresh_token");
  const grant = ctx.state.refreshRecord(refreshToken);
  if (!grant) return REFRESH_TOKEN.test(refreshToken) ? EXPIRED_OR_REVOKED : INVALID_GRANT;
  if (grant.clientId !== client.clientId) return badRequest("unauthorized_client", "Unauthorized");
  if (ctx.state.needsReauth(grant)) return REAUTH_REQUIRED;
  const asked = ctx.state.scopes.granted((params.get("scope") ?? "").split(/\s+/).filter(Boolean));
  if (asked.some((s) => !grant.scopes.includes(s))) {
    return badRequest("invalid_scope", "Some requested scopes were invalid. The refresh token does not cover them.");
  }
  // IAP's desktop flow: an ID token for another client of the same project.
  const audience = askedAudience(ctx.state, params);
  if (audience !== undefined && !mayAskIdTokenFor(ctx.state, client.clientId, audience)) return FOREIGN_AUDIENCE;
  const granted = asked.length > 0 ? { ...grant, scopes: asked } : grant;
  const response = userTokenResponse(ctx.state, granted, refreshToken, true, { source: "refresh_token", audience });
  delete response.refresh_token;
  return response;
}

/**
 * The other client a refresh grant asks a user's ID token for: the first of the parameters the
 * emulator honours (`target_audience`, google-auth-library 11's; `audience`, IAP's desktop flow's).
 */
function askedAudience(state: EmulatorState, params: Map<string, string>): string | undefined {
  for (const name of state.refreshGrantAudienceParameters) {
    const value = params.get(name);
    if (value) return value;
  }
  return undefined;
}

const JWT_TIME_ERROR =
  "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.";

function jwtBearer(ctx: RequestContext, params: Map<string, string>): Record<string, unknown> | OAuthError {
  const { state } = ctx;
  const assertion = params.get("assertion");
  if (!assertion) return badRequest("invalid_request", "Missing required parameter: assertion");
  const jwt = decodeJwt(assertion);
  if (!jwt) return badRequest("invalid_grant", "Invalid JWT.");
  const { claims } = jwt;
  const keys = typeof claims.iss === "string" ? state.serviceAccounts.get(claims.iss) : undefined;
  if (!keys) return badRequest("invalid_grant", "Invalid grant: account not found");
  const candidates = typeof jwt.header.kid === "string" ? keys.filter((k) => k.keyId === jwt.header.kid) : keys;
  const key = candidates.find((k) => verifyRs256(jwt, k.publicKey));
  if (!key) return badRequest("invalid_grant", "Invalid JWT Signature.");
  if (claims.aud !== GOOGLE_TOKEN_URL && claims.aud !== state.tokenUrl) {
    return badRequest("invalid_grant", `Invalid JWT: Failed audience check. The expected value is ${GOOGLE_TOKEN_URL}`);
  }
  const now = Math.floor(Date.now() / 1000);
  const { exp, iat } = claims;
  if (typeof exp !== "number" || typeof iat !== "number" || exp <= now - 60 || iat > now + 60 || exp - iat > 3600) {
    return badRequest("invalid_grant", JWT_TIME_ERROR);
  }
  const account = typeof claims.sub === "string" && claims.sub ? claims.sub : key.email;
  if (typeof claims.target_audience === "string" && claims.target_audience) {
    // Google answers only the ID token: no access token, no expires_in.
    const audience = claims.target_audience;
    return {
      id_token: serviceAccountIdToken(state, { source: "jwt-bearer", email: key.email, audience, includeEmail: true }),
    };
  }
  const scopes = typeof claims.scope === "string" ? claims.scope.split(/\s+/).filter(Boolean) : [];
  if (scopes.length === 0) return badRequest("invalid_scope", "Invalid OAuth scope or ID token audience provided.");
  const issued = state.issueAccessToken({ account, scopes, clientId: key.clientId }, { offline: false });
  return { ...issued, token_type: "Bearer" };
}

export async function handleToken(ctx: RequestContext): Promise<void> {
  const { state, req, res } = ctx;
  if (req.method !== "POST") {
    sendJson(
      res,
      405,
      { error: "invalid_request", error_description: "The token endpoint accepts POST only." },
      { Allow: "POST" },
    );
    return;
  }
  const body = await readBody(req);
  let params: Map<string, string>;
  try {
    params = parseParams(body, req.headers["content-type"]);
  } catch {
    state.countTokenRequest(undefined);
    sendOAuthError(res, badRequest("invalid_request", "The request body could not be parsed."));
    return;
  }
  const grantType = params.get("grant_type");
  state.countTokenRequest(grantType);
  if (!(await wait(state.tokenDelayMs, ctx.closing))) return;
  const fault = state.takeFault();
  if (fault && !(await applyFault(ctx, fault))) return;
  let result: Record<string, unknown> | OAuthError;
  if (grantType === "authorization_code") result = exchangeCode(ctx, params);
  else if (grantType === "refresh_token") result = refreshAccessToken(ctx, params);
  else if (grantType === JWT_BEARER) result = jwtBearer(ctx, params);
  else if (!grantType) result = badRequest("unsupported_grant_type", "Invalid grant_type: ");
  else result = badRequest("unsupported_grant_type", `Invalid grant_type: ${grantType.slice(0, 100)}`);
  if (isOAuthError(result)) sendOAuthError(res, result);
  else sendJson(res, 200, result);
}

// ---------------------------------------------------------------- revoke and tokeninfo

async function requestParams(ctx: RequestContext): Promise<Map<string, string>> {
  const params = new Map<string, string>();
  for (const [key, value] of ctx.url.searchParams) if (!params.has(key)) params.set(key, value);
  if (ctx.req.method === "POST") {
    for (const [key, value] of parseParams(await readBody(ctx.req), ctx.req.headers["content-type"])) {
      if (!params.has(key)) params.set(key, value);
    }
  }
  return params;
}

export async function handleRevoke(ctx: RequestContext): Promise<void> {
  const { state, req, res } = ctx;
  if (req.method !== "POST" && req.method !== "GET") {
    sendJson(res, 405, { error: "invalid_request", error_description: "Use POST." }, { Allow: "POST, GET" });
    return;
  }
  const token = (await requestParams(ctx)).get("token");
  if (!token) {
    sendJson(res, 400, { error: "invalid_request", error_description: "Missing required parameter: token" });
    return;
  }
  const outcome = revokeGrant(state, token);
  if (outcome === "unknown") {
    sendJson(res, 400, { error: "invalid_token", error_description: "Token expired or revoked" });
    return;
  }
  if (outcome === "service-account") {
    // gcloud's store.py: `elif e.args[0] == 'invalid_request': # Service account token`.
    sendJson(res, 400, { error: "invalid_request", error_description: "Bad Request" });
    return;
  }
  state.stats.revocations += 1;
  sendJson(res, 200, {});
}

const INVALID_VALUE = { error: "invalid_token", error_description: "Invalid Value" };

export async function handleTokenInfo(ctx: RequestContext): Promise<void> {
  const { state, req, res } = ctx;
  if (req.method !== "POST" && req.method !== "GET") {
    sendJson(res, 405, { error: "invalid_request", error_description: "Use GET or POST." }, { Allow: "POST, GET" });
    return;
  }
  const params = await requestParams(ctx);
  const idToken = params.get("id_token");
  if (idToken !== undefined) {
    // Google's tokeninfo answers every claim as a string.
    const info = idTokenInfo(state, idToken);
    sendJson(res, info ? 200 : 400, info ?? INVALID_VALUE);
    return;
  }
  const accessToken = params.get("access_token") ?? bearerToken(req);
  const record = accessToken ? state.accessRecord(accessToken) : undefined;
  if (!record) {
    sendJson(res, 400, INVALID_VALUE);
    return;
  }
  const now = Date.now();
  // A service account's token (its client is its own unique id) names no subject without a sign-in scope.
  const anonymous = record.clientId === state.subjectOf(record.account) && !record.scopes.some(isSignInScope);
  sendJson(res, 200, {
    azp: record.clientId,
    aud: record.clientId,
    ...(anonymous ? {} : { sub: state.subjectOf(record.account) }),
    scope: record.scopes.join(" "),
    exp: String(Math.floor(record.expiresAt / 1000)),
    expires_in: String(Math.max(0, Math.floor((record.expiresAt - now) / 1000))),
    ...(record.scopes.includes(EMAIL_SCOPE) ? { email: record.account, email_verified: "true" } : {}),
    access_type: record.offline ? "offline" : "online",
  });
}

// ---------------------------------------------------------------- code page

/**
 * The copy-paste page: one sign-in code, `CODE~STATE` (or CODE when the redirect carried no
 * state), so the application can check the state of what is pasted. 404 with `codePage: false`.
 */
export function handleCodePage(ctx: RequestContext): void {
  if (!ctx.state.codePageEnabled) {
    sendJson(ctx.res, 404, { error: { code: 404, message: "Not found", status: "NOT_FOUND" } });
    return;
  }
  const q = ctx.url.searchParams;
  const code = q.get("code");
  const error = q.get("error");
  const appState = q.get("state");
  if (error) sendHtml(ctx.res, 200, codeErrorPage(error, q.get("error_description") ?? undefined));
  else if (code) sendHtml(ctx.res, 200, codePage(appState ? `${code}~${appState}` : code));
  else
    sendHtml(
      ctx.res,
      400,
      codeErrorPage("No authorization code was received.", "Open this page only through a sign-in link."),
    );
}
