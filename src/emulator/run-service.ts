/**
 * Private Cloud Run services: every path under `/run/NAME` is the service NAME, whose URL is
 * `EMULATOR_URL/run/NAME`. As Cloud Run's front end does, it lets a request through only with a
 * Google-signed ID token (`Authorization: Bearer`, or `X-Serverless-Authorization`) whose audience
 * is the service's URL (or that URL with a trailing slash) or one of its custom audiences, from a
 * caller holding roles/run.invoker; then the "service" answers a small JSON naming the caller.
 * Sources: docs/emulator.md, section "Protected services".
 */
import { EMULATOR_PATHS } from "../shared/constants.js";
import type { RequestContext } from "./context.js";
import { escapeHtml, sendHtml, sendJson } from "./http.js";
import { verifiedIdToken } from "./id-tokens.js";
import type { RunService } from "./id-token-types.js";
import type { JwtClaims } from "./jwt.js";
import { perState } from "./per-state.js";
import type { EmulatorState } from "./state.js";

const RUN_PREFIX = `${EMULATOR_PATHS.run}/`;
/** Cloud Run's service names: a letter, then lowercase letters, digits and hyphens, at most 49. */
const SERVICE_NAME = /^[a-z](?:[a-z0-9-]{0,47}[a-z0-9])?$/;
const ALL_AUTHENTICATED = "allAuthenticatedUsers";
const MEMBER = /^(user|serviceAccount):([^\s@]+@[^\s@]+)$/;
/**
 * Cloud Run accepts ID tokens that gcloud mints for a signed-in user (audience: gcloud's own OAuth
 * client) for any service: its "Authenticate developers" page says so for
 * `gcloud auth print-identity-token`. The second id is gcloud's ADC client
 * (`gcloud auth application-default login`), reported to work the same way
 * (googleapis/google-auth-library-java#469); Google does not document it.
 */
const CLOUD_RUN_ANY_SERVICE_AUDIENCES = [
  "32555940559.apps.googleusercontent.com",
  "764086051850-6qr4p6gpi6hn506pt8ejuq83di341hur.apps.googleusercontent.com",
];

interface Registered {
  customAudiences: string[];
  invokers: string[];
}

const DEFAULT_SERVICE: Registered = { customAudiences: [], invokers: [ALL_AUTHENTICATED] };

/** A service's settings, or a RangeError that says what is wrong. */
export function checkRunService(service: RunService): Registered & { name: string } {
  const name = service?.name;
  if (typeof name !== "string" || !SERVICE_NAME.test(name))
    throw new RangeError(
      "A protected service needs a name of lowercase letters, digits and hyphens, starting with a letter (at most 49).",
    );
  const list = (value: unknown, what: string): string[] => {
    if (value === undefined) return [];
    if (!Array.isArray(value) || value.some((v) => typeof v !== "string" || v === ""))
      throw new RangeError(`Service ${name}: ${what} must be an array of non-empty strings.`);
    return value as string[];
  };
  const invokers = list(service.invokers, "invokers").map(normalizeInvoker);
  return {
    name,
    customAudiences: list(service.customAudiences, "customAudiences"),
    invokers: invokers.length > 0 ? invokers : [ALL_AUTHENTICATED],
  };
}

function normalizeInvoker(member: string): string {
  if (member === ALL_AUTHENTICATED) return member;
  const match = MEMBER.exec(member);
  if (!match)
    throw new RangeError(
      `"${member.slice(0, 100)}" is not an invoker: give user:EMAIL, serviceAccount:EMAIL or allAuthenticatedUsers.`,
    );
  return `${match[1]}:${match[2].toLowerCase()}`;
}

/** The registered services of an emulator; an unregistered name is a service with the defaults. */
const runServicesOf = perState(() => new Map<string, Registered>());

/** Registers (or replaces) a service; its URL. */
export function addRunService(state: EmulatorState, service: RunService): string {
  const { name, ...settings } = checkRunService(service);
  runServicesOf(state).set(name, settings);
  return `${state.baseUrl}${RUN_PREFIX}${name}`;
}

/** Google's front-end error pages, as Cloud Run sends them. */
function refusalPage(status: 401 | 403, path: string): string {
  const code = `<code>${escapeHtml(path)}</code>`;
  const [title, heading, sentence] =
    status === 401
      ? ["401 Unauthorized", "Unauthorized", `Your client does not have permission to the requested URL ${code}.`]
      : ["403 Forbidden", "Forbidden", `Your client does not have permission to get URL ${code} from this server.`];
  return `<html><head>\n<meta http-equiv="content-type" content="text/html;charset=utf-8">\n<title>${title}</title>\n</head>\n<body text=#000000 bgcolor=#ffffff>\n<h1>Error: ${heading}</h1>\n<h2>${sentence}</h2>\n<h2></h2>\n</body></html>\n`;
}

/**
 * `Authorization: Bearer X`, or Cloud Run's `X-Serverless-Authorization: Bearer X`, which wins;
 * undefined when neither header is there, "" when the one there holds no single bearer token.
 */
function presentedToken(ctx: RequestContext): string | undefined {
  const header = ctx.req.headers["x-serverless-authorization"] ?? ctx.req.headers.authorization;
  if (header === undefined) return undefined;
  return (typeof header === "string" && /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1]) || "";
}

/** The IAM member an ID token's `email` names; none without an e-mail. */
function memberOf(email: unknown): string | undefined {
  if (typeof email !== "string") return undefined;
  const lower = email.toLowerCase();
  return `${lower.endsWith(".gserviceaccount.com") ? "serviceAccount" : "user"}:${lower}`;
}

/**
 * The front end's verdict, in its order: no credentials 403; a token that is not a valid Google
 * ID token for this service 401; a caller without roles/run.invoker 403; else the token's claims.
 */
function admit(ctx: RequestContext, url: string, service: Registered): 401 | 403 | JwtClaims {
  const token = presentedToken(ctx);
  if (token === undefined) return 403;
  const jwt = token ? verifiedIdToken(ctx.state, token) : undefined;
  const audiences = [url, `${url}/`, ...service.customAudiences, ...CLOUD_RUN_ANY_SERVICE_AUDIENCES];
  if (!jwt || typeof jwt.claims.aud !== "string" || !audiences.includes(jwt.claims.aud)) return 401;
  const member = memberOf(jwt.claims.email);
  const invoker = service.invokers.includes(ALL_AUTHENTICATED) || (!!member && service.invokers.includes(member));
  return invoker ? jwt.claims : 403;
}

/** Routes `/run/NAME[/...]`; false for other paths. */
export function handleRunService(ctx: RequestContext): boolean {
  const path = ctx.url.pathname;
  if (!path.startsWith(RUN_PREFIX)) return false;
  ctx.state.stats.runRequests += 1;
  const [name, ...rest] = path.slice(RUN_PREFIX.length).split("/");
  if (!SERVICE_NAME.test(name)) {
    sendJson(ctx.res, 404, { error: { code: 404, message: "Not found", status: "NOT_FOUND" } });
    return true;
  }
  const servicePath = `/${rest.join("/")}`;
  const service = runServicesOf(ctx.state).get(name) ?? DEFAULT_SERVICE;
  const verdict = admit(ctx, `${ctx.state.baseUrl}${RUN_PREFIX}${name}`, service);
  if (typeof verdict === "number") {
    ctx.state.stats.runRefusals += 1;
    sendHtml(ctx.res, verdict, refusalPage(verdict, servicePath));
    return true;
  }
  const { sub, email, aud } = verdict;
  sendJson(ctx.res, 200, { service: name, method: ctx.req.method, path: servicePath, caller: { sub, email, aud } });
  return true;
}
