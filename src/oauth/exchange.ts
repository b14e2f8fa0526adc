import { setTimeout as delay } from "node:timers/promises";
import type { Credentials, GetTokenOptions, OAuth2Client } from "google-auth-library";
import { CredConnectionError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { galEndpoints, type Endpoints } from "../protocols/endpoints.js";
import { toCredError } from "../protocols/token-errors.js";
import { guardTokenRequests } from "../protocols/token-requests.js";
import { clientTransport } from "../protocols/client-transport.js";
import { loadGoogleAuth } from "../util/lazy.js";
import { missingScopes, scopesNotGrantedError } from "./scopes.js";
import { parseObject } from "../formats/fields.js";

/** What a completed sign-in yields. */
export interface SignInResult {
  /** The long-lived refresh token (offline access). A secret: never print it. */
  refreshToken: string;
  /** The first access token. */
  accessToken: string;
  /** When the access token expires (ms since the epoch), when the provider said. */
  expiryDate?: number;
  /** The OpenID Connect ID token, when `openid`/`email` scopes were requested. */
  idToken?: string;
  /** The scopes granted (the token response's `scope`), else those requested. */
  scopes: string[];
  /** The account's e-mail, when the provider returned an ID token carrying it. */
  account?: string;
  /** The OAuth client id the tokens belong to; refreshing needs it. */
  clientId: string;
  /** That client's secret. */
  clientSecret: string;
}

export interface ExchangeParams {
  endpoints: Endpoints;
  clientId: string;
  clientSecret: string;
  code: string;
  codeVerifier: string;
  redirectUri: string;
  requestedScopes: readonly string[];
}

const EXCHANGE_TIMEOUT_MS = 30_000;
/** Attempts at the token endpoint when Google answers a temporary error (google-auth-python retries 3 times). */
const EXCHANGE_ATTEMPTS = 3;
const RETRY_BASE_MS = 500;

/** A code copied from the address bar, percent-encoded (Google: "Malformed auth code."), decoded; Google's hold no `%`. */
export function decodePastedCode(code: string): string {
  if (!/%[0-9A-Fa-f]{2}/.test(code)) return code;
  try {
    return decodeURIComponent(code);
  } catch {
    return code;
  }
}

type TokenClient = { getToken(request: GetTokenOptions): Promise<{ tokens: Credentials }> };

/** The exchange itself; a temporary error (retryable even inside a 400) is retried, never answered with a new sign-in. */
async function requestTokens(client: TokenClient, request: GetTokenOptions): Promise<Credentials> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await client.getToken(request)).tokens;
    } catch (error) {
      const failure = toCredError(error, "Exchanging the authorization code", "exchange");
      // Temporary: 5xx, 429, and internal_failure / server_error / temporarily_unavailable in any status (Google's).
      const temporary = failure instanceof CredConnectionError && failure.status !== undefined;
      if (!temporary || attempt >= EXCHANGE_ATTEMPTS) throw failure;
      await delay(RETRY_BASE_MS * 2 ** (attempt - 1) * (0.5 + Math.random()));
    }
  }
}

/** An OAuth2Client of the sign-in's client through the one transport, each token request bounded by `timeoutMs`. */
export async function signInClient(
  endpoints: Endpoints,
  { clientId, clientSecret }: { clientId: string; clientSecret: string },
  timeoutMs: number,
): Promise<OAuth2Client> {
  const { OAuth2Client } = await loadGoogleAuth();
  const client = new OAuth2Client({
    clientId,
    clientSecret,
    transporterOptions: clientTransport(),
    endpoints: galEndpoints(endpoints),
  });
  // Bounds each attempt in time and keeps an emulator on loopback away from HTTPS_PROXY.
  guardTokenRequests(client, { tokenUrl: endpoints.tokenUrl, timeoutMs });
  return client;
}

/** Trades the authorization code (with its PKCE verifier) for tokens at the token endpoint. */
export async function exchangeCode(params: ExchangeParams): Promise<SignInResult> {
  const client = await signInClient(params.endpoints, params, EXCHANGE_TIMEOUT_MS);
  const tokens = await requestTokens(client, {
    code: decodePastedCode(params.code),
    codeVerifier: params.codeVerifier,
    redirect_uri: params.redirectUri,
  });
  if (!tokens.refresh_token) {
    throw new CredCredentialsError(
      "The sign-in returned no refresh token; run again (the account may need to remove this app's access first).",
      { code: ERROR_CODES.SERVER_ERROR },
    );
  }
  if (!tokens.access_token)
    throw new CredCredentialsError("The sign-in returned no access token; run again.", {
      code: ERROR_CODES.SERVER_ERROR,
    });
  const granted = tokens.scope?.split(/\s+/).filter(Boolean);
  // Granular consent: the user may untick scopes. Saving such credentials would only fail later with 403.
  const missing = granted ? missingScopes(granted, params.requestedScopes) : [];
  if (missing.length > 0) {
    // The unused refresh token would count towards Google's per-client cap: give it back.
    await client.revokeToken(tokens.refresh_token).catch(() => undefined);
    throw scopesNotGrantedError(missing);
  }
  const idToken = tokens.id_token ?? undefined;
  return {
    refreshToken: tokens.refresh_token,
    accessToken: tokens.access_token,
    expiryDate: tokens.expiry_date ?? undefined,
    idToken,
    scopes: granted?.length ? granted : [...params.requestedScopes],
    account: idToken ? emailOf(idToken) : undefined,
    clientId: params.clientId,
    clientSecret: params.clientSecret,
  };
}

/** A sign-in's tokens as google-auth-library's `setCredentials` takes them. */
export function galCredentials(result: SignInResult): Credentials {
  return {
    refresh_token: result.refreshToken,
    access_token: result.accessToken,
    ...(result.expiryDate !== undefined ? { expiry_date: result.expiryDate } : {}),
    ...(result.idToken ? { id_token: result.idToken } : {}),
  };
}

/** An ID token's `email`, read unverified: it came straight from the token endpoint, and only greets the user. */
export function emailOf(idToken: string): string | undefined {
  const payload = idToken.split(".")[1];
  const email = payload ? parseObject(Buffer.from(payload, "base64url").toString("utf8"))?.email : undefined;
  return typeof email === "string" ? email : undefined;
}
