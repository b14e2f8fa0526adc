/**
 * Google's IAM Service Account Credentials API, as `https://iamcredentials.googleapis.com` speaks
 * it: `POST /v1/projects/-/serviceAccounts/EMAIL:generateAccessToken` mints an access token of a
 * service account for a caller (user, service account or federated principal) that holds
 * roles/iam.serviceAccountTokenCreator on it, directly or through a chain of delegates.
 * Shapes: the API reference and google-auth-library-nodejs `src/auth/impersonated.ts`.
 * `serveIamCall` holds the checks every method shares; `generateIdToken` is iam-id-token.ts.
 */
import type { RequestContext } from "./context.js";
import { applyFault } from "./faults.js";
import { bearerToken, readBody, sendJson } from "./http.js";
import {
  accountNotFound,
  GENERATE_ACCESS_TOKEN_RPC,
  GET_ACCESS_TOKEN,
  type GoogleReply,
  insufficientScopes,
  invalidAccountId,
  invalidArgument,
  invalidDuration,
  invalidPayload,
  methodNotAllowed,
  permissionDenied,
  unauthenticated,
} from "./iam-errors.js";
import { type IamState, iamOf, isAccountId } from "./iam-state.js";
import type { AccessTokenInfo } from "./types.js";

/** `/v1/projects/PROJECT/serviceAccounts/NAME`: NAME ends with `:generateAccessToken`. */
const ACCOUNT_PATH = /^\/v1\/projects\/[^/]+\/serviceAccounts\/([^/]+)$/;
const GENERATE = ":generateAccessToken";
/** A delegate: `projects/-/serviceAccounts/ID` (or another project), or the bare id. */
const DELEGATE = /^(?:projects\/[^/]+\/serviceAccounts\/)?([^/]+)$/;
/** The caller's token must carry one of these. */
const CALLER_SCOPES = ["https://www.googleapis.com/auth/cloud-platform", "https://www.googleapis.com/auth/iam"];
const MAX_LIFETIME_SEC = 3600;
const REQUEST_FIELDS = new Set(["scope", "delegates", "lifetime"]);

interface TokenRequest {
  scopes: string[];
  delegates: string[];
  lifetimeSec?: number;
}

/** One IAM Credentials method, for the checks they all share (`serveIamCall`). */
export interface IamCall<R extends { delegates: string[] }> {
  /** `:generateAccessToken`: how the resource name ends. */
  suffix: string;
  /** The RPC that ErrorInfo names, e.g. `google.iam.credentials.v1.IAMCredentials.GenerateAccessToken`. */
  rpc: string;
  /** The permission the caller (or its last delegate) needs on the account. */
  permission: string;
  /** The JSON body, or Google's 400. */
  parse(body: string): R | GoogleReply;
  /** What the account mints once every check passed. */
  mint(ctx: RequestContext, account: string, request: R): GoogleReply;
}

const GENERATE_ACCESS_TOKEN: IamCall<TokenRequest> = {
  suffix: GENERATE,
  rpc: GENERATE_ACCESS_TOKEN_RPC,
  permission: GET_ACCESS_TOKEN,
  parse: parseRequest,
  mint: issue,
};

/** Routes the IAM Credentials path; false when the path is not it. */
export function handleIam(ctx: RequestContext): Promise<boolean> {
  return handleIamCall(ctx, GENERATE_ACCESS_TOKEN);
}

/** Routes `POST .../serviceAccounts/ID<suffix>` to `call`; false when the path is another one. */
export async function handleIamCall<R extends { delegates: string[] }>(
  ctx: RequestContext,
  call: IamCall<R>,
): Promise<boolean> {
  const match = ACCOUNT_PATH.exec(ctx.url.pathname);
  if (!match) return false;
  const name = decodeURIComponent(match[1]);
  if (!name.endsWith(call.suffix)) return false;
  ctx.state.stats.iamRequests += 1;
  const fault = ctx.state.takeFault("iam");
  if (fault && !(await applyFault(ctx, fault))) return true;
  const reply =
    ctx.req.method === "POST" ? await serveIamCall(ctx, name.slice(0, -call.suffix.length), call) : methodNotAllowed();
  sendJson(ctx.res, reply.status, reply.body, reply.headers);
  return true;
}

export const isReply = (value: object): value is GoogleReply => "status" in value && "body" in value;

/** Caller, scopes, body, account ids, target and delegation chain, in Google's order; then `call.mint`. */
async function serveIamCall<R extends { delegates: string[] }>(
  ctx: RequestContext,
  targetId: string,
  call: IamCall<R>,
): Promise<GoogleReply> {
  const caller = authenticate(ctx, call.rpc);
  if (!("account" in caller)) return caller;
  if (!caller.scopes.some((scope) => CALLER_SCOPES.includes(scope))) return insufficientScopes(call.rpc);
  const request = call.parse(await readBody(ctx.req));
  if (isReply(request)) return request;
  if (!isAccountId(targetId)) return invalidAccountId(targetId);
  const badDelegate = request.delegates.find((id) => !isAccountId(id));
  if (badDelegate !== undefined) return invalidAccountId(badDelegate);
  const iam = iamOf(ctx.state);
  const target = iam.find(targetId);
  if (!target) return accountNotFound(targetId);
  if (!chainHolds(iam, iam.memberOf(caller), request.delegates, target)) return permissionDenied(call.permission);
  return call.mint(ctx, target, request);
}

/** The caller's access token, or Google's 401. */
function authenticate(ctx: RequestContext, rpc: string): AccessTokenInfo | GoogleReply {
  const token = bearerToken(ctx.req) ?? ctx.url.searchParams.get("access_token") ?? "";
  if (!token) return unauthenticated("CREDENTIALS_MISSING", rpc);
  const record = ctx.state.accessTokens.get(token);
  const caller = ctx.state.checkAccessToken(token);
  if (caller) return caller;
  return unauthenticated(record ? "ACCESS_TOKEN_EXPIRED" : "ACCESS_TOKEN_TYPE_UNSUPPORTED", rpc);
}

/**
 * The caller holds the token-creator role on the first delegate, each delegate on the next, the
 * last on the target (no delegates: the caller on the target). Unknown delegates hold nothing.
 */
function chainHolds(iam: IamState, caller: string, delegateIds: string[], target: string): boolean {
  const delegates = delegateIds.map((id) => iam.find(id) ?? id);
  const holders = [caller, ...delegates.map((email) => `serviceAccount:${email.toLowerCase()}`)];
  return [...delegates, target].every((account, i) => iam.mayMint(holders[i], account));
}

function issue(ctx: RequestContext, account: string, request: TokenRequest): GoogleReply {
  const lifetimeSec = request.lifetimeSec ?? Math.min(ctx.state.lifetimeSec, MAX_LIFETIME_SEC);
  // Google's expireTime has whole seconds: the token never outlives what it says.
  const expiresAt = Math.floor((Date.now() + lifetimeSec * 1000) / 1000) * 1000;
  const issued = ctx.state.issueAccessToken(
    { account, scopes: [...new Set(request.scopes)], clientId: ctx.state.subjectOf(account) },
    { offline: false, expiresAt },
  );
  return {
    status: 200,
    body: { accessToken: issued.access_token, expireTime: new Date(expiresAt).toISOString().replace(/\.\d+Z$/, "Z") },
  };
}

function parseRequest(body: string): TokenRequest | GoogleReply {
  const fields = requestFields(body, REQUEST_FIELDS);
  if (isReply(fields)) return fields;
  const scopes = stringList(fields.scope);
  const delegates = delegateIds(fields.delegates);
  if (!scopes || scopes.length === 0 || !delegates) return invalidArgument();
  const lifetime = parseLifetime(fields.lifetime);
  if (lifetime !== undefined && typeof lifetime !== "number") return lifetime;
  return { scopes, delegates, ...(lifetime !== undefined ? { lifetimeSec: lifetime } : {}) };
}

/** A request body's fields, or the JSON transcoder's 400 (not JSON, not an object, an unknown field). */
export function requestFields(body: string, known: ReadonlySet<string>): Record<string, unknown> | GoogleReply {
  let parsed: unknown;
  try {
    parsed = body.trim() === "" ? {} : JSON.parse(body);
  } catch {
    return invalidPayload("Invalid JSON payload received. Unexpected token.");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    return invalidPayload("Invalid JSON payload received. Expected an object.");
  const fields = parsed as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !known.has(key));
  if (unknown !== undefined)
    return invalidPayload(`Invalid JSON payload received. Unknown name "${unknown.slice(0, 100)}": Cannot find field.`);
  return fields;
}

/** `delegates` (absent: none) as account ids, or undefined when it is not a list of names. */
export function delegateIds(value: unknown): string[] | undefined {
  return stringList(value ?? [])?.map((name) => DELEGATE.exec(name)?.[1] ?? name);
}

function stringList(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string" || item === "")) return undefined;
  return value as string[];
}

/** Seconds of a protobuf Duration string ("3600s", "1.5s"); undefined when absent. */
function parseLifetime(value: unknown): number | GoogleReply | undefined {
  if (value === undefined || value === null) return undefined;
  const match = typeof value === "string" ? /^(-?\d+(?:\.\d{1,9})?)s$/.exec(value) : null;
  if (!match) return invalidDuration(value);
  const seconds = Number(match[1]);
  return seconds > 0 && seconds <= MAX_LIFETIME_SEC ? seconds : invalidArgument();
}
