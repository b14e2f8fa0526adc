/**
 * Google's Security Token Service, as `https://sts.googleapis.com` speaks it: `POST /v1/token`
 * (RFC 8693 token exchange of a subject token from the emulator's own OIDC issuer for a federated
 * access token) and `POST /v1/oauthtoken` (refresh grant of `external_account_authorized_user`
 * files, HTTP Basic client auth). Also the URL a `credential_source.url` reads a subject token from.
 * Shapes and error texts: google-auth-library-nodejs (stscredentials, oauth2common,
 * externalAccountAuthorizedUserClient and their tests) and STS errors users report.
 */
import { randomBytes } from "node:crypto";
import type { RequestContext } from "./context.js";
import { parseParams, readBody, sendJson, sendText } from "./http.js";
import { OidcIssuer } from "./oidc.js";
import { perState } from "./per-state.js";
import type { ProviderType, ServedSubjectToken, StsControls, SubjectTokenRequest } from "./sts-types.js";
import { awsOf } from "./aws-state.js";
import { AWS_SUBJECT_TOKEN_TYPE, checkAwsSubjectToken } from "./aws-sigv4.js";
import { type EmulatorState, checkedRotation } from "./state.js";
import { clientRefusal } from "./client-status.js";
import {
  basicMatches,
  oauthError,
  principalOf,
  rawBasic,
  refresh,
  type StsReply,
  stsRefreshOf,
} from "./sts-refresh.js";

export const STS_PATHS = {
  token: "/v1/token",
  oauthToken: "/v1/oauthtoken",
  /** The emulator's OIDC issuer (`iss` of its subject tokens). */
  issuer: "/emulator-oidc",
  /** Served subject tokens: `/emulator-oidc/subject-token/ID`. */
  subjectToken: "/emulator-oidc/subject-token/",
} as const;

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";
const SUBJECT_TOKEN_TYPES = new Set([
  "urn:ietf:params:oauth:token-type:jwt",
  "urn:ietf:params:oauth:token-type:id_token",
  "urn:ietf:params:oauth:token-type:saml2",
  AWS_SUBJECT_TOKEN_TYPE,
]);
const WORKLOAD_AUDIENCE =
  /^\/\/iam\.googleapis\.com\/projects\/(\d+)\/locations\/global\/workloadIdentityPools\/([a-z0-9-]+)\/providers\/([a-z0-9-]+)$/;
const WORKFORCE_AUDIENCE =
  /^\/\/iam\.googleapis\.com\/locations\/global\/workforcePools\/([a-z0-9-]+)\/providers\/([a-z0-9-]+)$/;
/** The default workload identity provider every emulator knows. */
export const DEFAULT_WORKLOAD_AUDIENCE =
  "//iam.googleapis.com/projects/123456789012/locations/global/workloadIdentityPools/emu-pool/providers/emu-oidc";
/** The default AWS provider (of the default workload pool) every emulator knows. */
export const DEFAULT_AWS_AUDIENCE =
  "//iam.googleapis.com/projects/123456789012/locations/global/workloadIdentityPools/emu-pool/providers/emu-aws";
/** The default workforce provider every emulator knows. */
export const DEFAULT_WORKFORCE_AUDIENCE =
  "//iam.googleapis.com/locations/global/workforcePools/emu-workforce/providers/emu-oidc";
const UNKNOWN_POOL =
  'The target service indicated by the "audience" parameters is invalid. This might either be because the pool or provider is disabled or deleted or because it doesn\'t exist.';

/** What the STS side remembers; one per emulator state. */
export class StsState {
  readonly audiences = new Set([DEFAULT_WORKLOAD_AUDIENCE, DEFAULT_WORKFORCE_AUDIENCE, DEFAULT_AWS_AUDIENCE]);
  /** The providers of type AWS (they take signed GetCallerIdentity requests, not JWTs). */
  readonly awsProviders = new Set([DEFAULT_AWS_AUDIENCE]);
  readonly served = new Map<string, ServedSubjectToken>();
  exchanges = 0;
  private issuerValue: OidcIssuer | undefined;

  constructor(readonly state: EmulatorState) {}

  get issuer(): OidcIssuer {
    this.issuerValue ??= new OidcIssuer(`${this.state.baseUrl}${STS_PATHS.issuer}`);
    return this.issuerValue;
  }

  /**
   * Registers a workload (`projects/N/.../workloadIdentityPools/P/providers/V`) or workforce provider
   * audience; `type: "aws"` makes a workload provider an AWS one (workforce pools have none).
   */
  addProvider(audience: string, type: ProviderType = "oidc"): string {
    if (!WORKLOAD_AUDIENCE.test(audience) && !WORKFORCE_AUDIENCE.test(audience))
      throw new RangeError(
        "addIdentityProvider: the audience must be //iam.googleapis.com/projects/N/locations/global/workloadIdentityPools/P/providers/V or //iam.googleapis.com/locations/global/workforcePools/P/providers/V.",
      );
    if (type !== "oidc" && type !== "aws") throw new RangeError('addIdentityProvider: type must be "oidc" or "aws".');
    if (type === "aws" && !WORKLOAD_AUDIENCE.test(audience))
      throw new RangeError("addIdentityProvider: only workload identity pools have AWS providers.");
    this.audiences.add(audience);
    if (type === "aws") this.awsProviders.add(audience);
    else this.awsProviders.delete(audience);
    return audience;
  }

  issueSubjectToken(request: SubjectTokenRequest): string {
    return this.issuer.issue(request);
  }

  /** Serves a subject token at a fresh URL of this emulator; returns the URL. */
  serve(served: ServedSubjectToken): string {
    const id = randomBytes(12).toString("base64url");
    this.served.set(id, { ...served });
    return `${this.state.baseUrl}${STS_PATHS.subjectToken}${id}`;
  }

  /** The fields of an `external_account_authorized_user` file, with a fresh refresh token. */
  issueAuthorizedUser(opts: { audience?: string; account?: string } = {}): Record<string, string> {
    const audience = opts.audience ?? DEFAULT_WORKFORCE_AUDIENCE;
    if (!WORKFORCE_AUDIENCE.test(audience) || !this.audiences.has(audience))
      throw new RangeError("issueExternalAccountAuthorizedUser: give a registered workforce provider audience.");
    const clientId = `emu-workforce-client-${randomBytes(4).toString("hex")}`;
    const clientSecret = `GOCSPX-emu/+${randomBytes(18).toString("base64")}`;
    const account = opts.account ?? this.state.accounts[0];
    const refreshToken = stsRefreshOf(this.state).issue({ audience, clientId, clientSecret, account });
    return {
      type: "external_account_authorized_user",
      audience,
      client_id: clientId,
      client_secret: clientSecret,
      refresh_token: refreshToken,
      token_url: `${this.state.baseUrl}${STS_PATHS.oauthToken}`,
      token_info_url: `${this.state.baseUrl}/v1/introspect`,
    };
  }
}

/** The STS side of an emulator state (made on first use). */
export const stsOf = perState((state) => new StsState(state));

/** Routes STS paths; false when the path is not one of them. */
export async function handleSts(ctx: RequestContext): Promise<boolean> {
  const path = ctx.url.pathname;
  if (path === STS_PATHS.token) await answerPost(ctx, exchange);
  else if (path === STS_PATHS.oauthToken) await answerPost(ctx, refresh);
  else if (path.startsWith(STS_PATHS.subjectToken)) serveSubjectToken(ctx, path.slice(STS_PATHS.subjectToken.length));
  else return false;
  return true;
}

type Reply = StsReply;

async function answerPost(ctx: RequestContext, handler: (ctx: RequestContext, p: Map<string, string>) => Reply) {
  if (ctx.req.method !== "POST") {
    sendJson(ctx.res, 405, { error: "invalid_request", error_description: "POST only." }, { Allow: "POST" });
    return;
  }
  const body = await readBody(ctx.req);
  let params: Map<string, string>;
  try {
    // Google's STS takes form-encoded bodies (and JSON); google-auth-library sends a form.
    params = parseParams(body, ctx.req.headers["content-type"]);
  } catch {
    sendJson(ctx.res, 400, { error: "invalid_request", error_description: "The request body could not be parsed." });
    return;
  }
  ctx.state.countTokenRequest(params.get("grant_type"));
  const reply = handler(ctx, params);
  sendJson(ctx.res, reply.status, reply.body);
}

function exchange(ctx: RequestContext, p: Map<string, string>): Reply {
  const sts = stsOf(ctx.state);
  const client = exchangeClient(ctx);
  if (typeof client === "object") return client;
  const problem = exchangeRequestProblem(sts, p, client);
  if (problem) return problem;
  const audience = p.get("audience") ?? "";
  const subject = verifiedSubject(ctx, sts, p.get("subject_token_type") ?? "", p.get("subject_token") ?? "", audience);
  if (typeof subject !== "string") return subject;
  const scopes = (p.get("scope") ?? "").split(" ").filter(Boolean);
  const invalid = ctx.state.scopes.invalid(scopes);
  if (invalid.length > 0) return oauthError("invalid_scope", `Invalid scope: ${invalid.join(" ").slice(0, 200)}`);
  sts.exchanges += 1;
  const issued = ctx.state.issueAccessToken({
    account: principalOf(audience, subject),
    scopes: scopes.length > 0 ? ctx.state.scopes.granted(scopes) : ["https://www.googleapis.com/auth/cloud-platform"],
    clientId: "sts.googleapis.com",
  });
  return {
    status: 200,
    body: {
      access_token: issued.access_token,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: "Bearer",
      expires_in: issued.expires_in,
    },
  };
}

/**
 * Whether an exchange authenticates an OAuth client the emulator knows (HTTP Basic, as both Google
 * libraries send a file's `client_id` and `client_secret`), or the refusal of a bad or refused one.
 */
function exchangeClient(ctx: RequestContext): boolean | Reply {
  const basic = rawBasic(ctx.req.headers.authorization);
  if (!basic) return false;
  const known = [...ctx.state.clients.values()].find((c) => basicMatches(basic, c));
  if (!known) return oauthError("invalid_client", "The OAuth client was not found.", 401);
  const refused = clientRefusal(ctx.state, known.clientId);
  return refused ? oauthError(refused.error, refused.description, 401) : true;
}

/** What is wrong with an exchange request before its subject token is looked at, if anything. */
function exchangeRequestProblem(
  sts: StsState,
  p: Map<string, string>,
  clientAuthenticated: boolean,
): Reply | undefined {
  const grantType = p.get("grant_type");
  if (grantType !== TOKEN_EXCHANGE)
    return oauthError("unsupported_grant_type", `Invalid value for "grant_type": ${(grantType ?? "").slice(0, 100)}`);
  const requested = p.get("requested_token_type");
  if (requested !== ACCESS_TOKEN_TYPE)
    return oauthError(
      "invalid_request",
      `Invalid value for "requested_token_type": ${(requested ?? "").slice(0, 100)}`,
    );
  const subjectType = p.get("subject_token_type") ?? "";
  if (!SUBJECT_TOKEN_TYPES.has(subjectType))
    return oauthError("invalid_request", `Invalid value for "subject_token_type": ${subjectType.slice(0, 100)}`);
  if (!p.get("subject_token")) return oauthError("invalid_request", 'Missing required parameter: "subject_token".');
  const audience = p.get("audience") ?? "";
  if (!WORKLOAD_AUDIENCE.test(audience) && !WORKFORCE_AUDIENCE.test(audience))
    return oauthError(
      "invalid_request",
      'Invalid value for "audience". This value should be the full resource name of the Identity Provider.',
    );
  if (!sts.audiences.has(audience)) return oauthError("invalid_target", UNKNOWN_POOL);
  // An authenticated client names the project itself (google-auth-library-python#868); else userProject must.
  if (WORKFORCE_AUDIENCE.test(audience) && !clientAuthenticated && !userProjectOf(p.get("options")))
    return oauthError(
      "invalid_request",
      'A workforce pool token exchange needs "userProject" in "options", or client authentication.',
    );
  return undefined;
}

/** The subject (`google.subject`) a valid subject token names, or STS's refusal. */
function verifiedSubject(
  ctx: RequestContext,
  sts: StsState,
  subjectType: string,
  subjectToken: string,
  audience: string,
): string | Reply {
  const awsProvider = sts.awsProviders.has(audience);
  if (awsProvider !== (subjectType === AWS_SUBJECT_TOKEN_TYPE))
    return oauthError(
      "invalid_request",
      `The subject token type ${subjectType.slice(0, 100)} does not match the provider's type (${awsProvider ? "AWS" : "OIDC"}).`,
    );
  if (awsProvider) {
    // An AWS provider maps google.subject to assertion.arn (the default attribute mapping).
    const checked = checkAwsSubjectToken(awsOf(ctx.state), subjectToken, audience);
    return checked.ok ? checked.arn : oauthError(checked.error, checked.description);
  }
  if (subjectType.endsWith(":saml2"))
    return oauthError(
      "invalid_grant",
      "The SAML response could not be verified: the emulator's issuer signs only JWTs.",
    );
  const checked = sts.issuer.check(subjectToken, audience);
  return checked.ok ? String(checked.claims.sub) : oauthError("invalid_grant", checked.description);
}

/**
 * The `userProject` of a workforce exchange's `options`: JSON inside the form, as google-auth-library
 * sends it, or that JSON URL-quoted once more, as Python's google-auth does
 * (`urllib.parse.quote(json.dumps(...))` in google/oauth2/sts.py). Google's STS accepts both.
 */
function userProjectOf(options: string | undefined): string | undefined {
  if (!options) return undefined;
  for (const text of [options, percentDecoded(options)]) {
    try {
      const parsed: unknown = JSON.parse(text ?? "");
      const value = (parsed as { userProject?: unknown } | null)?.userProject;
      if (typeof value === "string" && value !== "") return value;
    } catch {
      // Not this encoding; try the next.
    }
  }
  return undefined;
}

function percentDecoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

function serveSubjectToken(ctx: RequestContext, id: string): void {
  const served = stsOf(ctx.state).served.get(id);
  if (!served || (ctx.req.method !== "GET" && ctx.req.method !== "HEAD")) {
    sendText(ctx.res, 404, "Not Found\n");
    return;
  }
  const needed = served.requiredHeader;
  if (needed && ctx.req.headers[needed.name.toLowerCase()] !== needed.value) {
    sendText(ctx.res, 403, `Missing or wrong header ${needed.name}.\n`);
    return;
  }
  if (served.format === "json") sendJson(ctx.res, 200, { [served.field ?? "access_token"]: served.token });
  else sendText(ctx.res, 200, served.token);
}

export function stsControls(sts: () => StsState): StsControls {
  return {
    addIdentityProvider: (audience, options) => sts().addProvider(audience, options?.type),
    issueSubjectToken: (request) => sts().issueSubjectToken(request),
    serveSubjectToken: (served) => sts().serve(served),
    issueExternalAccountAuthorizedUser: (opts) => sts().issueAuthorizedUser(opts),
    setStsRefreshTokenRotation: (rotate) => {
      stsRefreshOf(sts().state).rotate = checkedRotation(rotate, "setStsRefreshTokenRotation(rotate)");
    },
  };
}
