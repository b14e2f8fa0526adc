// The one transport: every request cred-auth sends or causes leaves through transportFetch (node-fetch),
// google-auth-library's clients included. Redirects are followed here, within the judged origin, or
// elsewhere only without a body or secret headers; loopback never through a proxy; replies bounded.
import type { Agent } from "node:http";
import { isLoopbackHostname } from "./urls.js";

const importNodeFetch = () => import("node-fetch");
type NodeFetchModule = Awaited<ReturnType<typeof importNodeFetch>>;
type NodeFetchInit = Parameters<NodeFetchModule["default"]>[1];
type NodeFetchResponse = Awaited<ReturnType<NodeFetchModule["default"]>>;

/** What reaches node-fetch: fetch's init, gaxios's prepared options (their `agent`, `size`, `responseType`) among them. */
export interface TransportInit {
  method?: string;
  headers?: unknown;
  body?: unknown;
  signal?: AbortSignal | null;
  agent?: unknown;
  size?: number;
  responseType?: string;
  redirect?: string;
  follow?: number;
}

/** A reply read whole, without a stream, bigger than this is not read: no credential reply comes near it. */
export const MAX_REPLY_BYTES = 64 * 1024 * 1024;

/** Redirects followed in a row at most (node-fetch's default is 20; Google sends none to token requests). */
export const MAX_REDIRECTS = 5;

/** Headers that carry nothing secret: the only ones that follow a redirect to another origin. */
const HARMLESS_HEADERS = new Set(["accept", "accept-encoding", "accept-language", "user-agent", "x-goog-api-client"]);

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

let nodeFetch: Promise<NodeFetchModule> | undefined;

/** node-fetch, imported on the first request (importing cred-auth loads no package). */
function loadNodeFetch(): Promise<NodeFetchModule> {
  nodeFetch ??= importNodeFetch();
  return nodeFetch;
}

/** fetch with cred-auth's rules: gaxios's `fetchImplementation` too. The last reply, an unfollowed redirect included. */
export async function transportFetch(input: unknown, init: TransportInit = {}): Promise<Response> {
  const fetch = (await loadNodeFetch()).default;
  let url = new URL(urlOf(input));
  let request: TransportInit = { ...init };
  for (let hop = 0; ; hop++) {
    const response = await fetch(url, sent(url, request) as NodeFetchInit);
    // A caller that asked for the 3xx itself (`redirect: "manual"`) gets it: trust/http.ts follows none.
    const next = hop < MAX_REDIRECTS && init.redirect !== "manual" ? redirectTarget(response, url) : undefined;
    const followed = next === undefined ? undefined : redirected(request, response.status, url, next);
    if (next === undefined || followed === undefined) return response as unknown as Response;
    discard(response);
    url = next;
    request = followed;
  }
}

/** The URL of `fetch(input)`: a string, a URL, or a Request-like object with a `url`. */
function urlOf(input: unknown): string {
  if (typeof input === "string") return input;
  if (input instanceof URL) return input.href;
  const url = (input as { url?: unknown } | null)?.url;
  if (typeof url === "string" || url instanceof URL) return String(url);
  throw new TypeError("transportFetch: no URL to fetch");
}

/** What node-fetch is given for `url`: redirects left to us, the proxy rule, the size bound. */
function sent(url: URL, request: TransportInit): TransportInit {
  const out: TransportInit = { ...request, redirect: "manual", follow: 0 };
  const agent = agentFor(url, request.agent);
  if (agent === undefined) delete out.agent;
  else out.agent = agent;
  if (!(typeof request.size === "number" && request.size > 0) && request.responseType !== "stream")
    out.size = MAX_REPLY_BYTES;
  return out;
}

/** The agent for `url`: none that proxies loopback; the caller's (gaxios's proxy or mTLS agent); else the environment's proxy. */
export function agentFor(url: URL, given: unknown, env: NodeJS.ProcessEnv = process.env): unknown {
  if (isLoopbackHostname(url.hostname)) return given !== undefined && !isProxyAgent(given) ? given : undefined;
  if (given !== undefined) return given;
  const proxy = proxyFor(url, env);
  return proxy === undefined ? undefined : proxyAgent(proxy);
}

/** An agent that tunnels through a proxy (https-proxy-agent's and its kin carry a `proxy` URL). */
function isProxyAgent(agent: unknown): boolean {
  return typeof agent === "function" || (typeof agent === "object" && agent !== null && "proxy" in agent);
}

/** The environment's proxy for `url`, as gaxios reads HTTPS_PROXY/HTTP_PROXY, unless NO_PROXY names its host. */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const proxy = env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy;
  if (!proxy) return undefined;
  const rules = (env.NO_PROXY ?? env.no_proxy ?? "")
    .split(",")
    .map((rule) => rule.trim().toLowerCase())
    .filter((rule) => rule !== "");
  return rules.some((rule) => bypasses(rule, url)) ? undefined : proxy;
}

function bypasses(rule: string, url: URL): boolean {
  if (rule === "*") return true;
  const host = url.hostname.toLowerCase();
  if (rule.startsWith(".") || rule.startsWith("*.")) return host.endsWith(rule.replace(/^\*/, ""));
  return rule === host || rule === url.host.toLowerCase() || rule === url.origin || rule === url.href;
}

type AgentClass = new (proxy: string) => Agent;

let proxyAgentClass: AgentClass | undefined;

/** https-proxy-agent (gaxios's own), one agent per proxy URL. */
function proxyAgent(proxy: string): Agent {
  proxyAgentClass ??= (require("https-proxy-agent") as { HttpsProxyAgent: AgentClass }).HttpsProxyAgent;
  let agent = agents.get(proxy);
  if (agent === undefined) {
    agent = new proxyAgentClass(proxy);
    agents.set(proxy, agent);
  }
  return agent;
}

const agents = new Map<string, Agent>();

/** Where a redirect reply points (http or https only); undefined when it is no redirect. */
function redirectTarget(response: NodeFetchResponse, from: URL): URL | undefined {
  if (!REDIRECT_STATUSES.has(response.status)) return undefined;
  const location = response.headers.get("location");
  if (location === null || !URL.canParse(location, from)) return undefined;
  const target = new URL(location, from);
  return target.protocol === "https:" || target.protocol === "http:" ? target : undefined;
}

/**
 * The request a redirect would send (fetch's rules), or undefined when it would carry a secret to
 * another origin (a body, a header that is not harmless) or leave https for http.
 */
export function redirected(request: TransportInit, status: number, from: URL, to: URL): TransportInit | undefined {
  if (from.protocol === "https:" && to.protocol !== "https:") return undefined;
  const method = (request.method ?? "GET").toUpperCase();
  const toGet = status === 303 ? method !== "HEAD" : (status === 301 || status === 302) && method === "POST";
  const next: TransportInit = toGet ? { ...request, method: "GET", body: undefined } : { ...request };
  if (toGet) next.headers = withoutHeaders(request.headers, (name) => name.startsWith("content-"));
  // A stream is read once: it cannot be sent again.
  if (typeof (next.body as { pipe?: unknown } | null | undefined)?.pipe === "function") return undefined;
  if (to.origin === from.origin) return next;
  if (next.body !== undefined && next.body !== null) return undefined;
  next.headers = withoutHeaders(next.headers, (name) => !HARMLESS_HEADERS.has(name));
  return next;
}

/** `headers` as a plain object, less those `drop` names (lower case). */
function withoutHeaders(headers: unknown, drop: (name: string) => boolean): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of entriesOf(headers)) if (!drop(name.toLowerCase())) kept[name] = value;
  return kept;
}

function entriesOf(headers: unknown): [string, string][] {
  if (headers === undefined || headers === null) return [];
  if (typeof (headers as Headers).forEach === "function" && !Array.isArray(headers)) {
    const out: [string, string][] = [];
    (headers as Headers).forEach((value, name) => {
      out.push([name, value]);
    });
    return out;
  }
  if (Array.isArray(headers)) return headers.map(([name, value]) => [String(name), String(value)]);
  return Object.entries(headers as Record<string, unknown>).map(([name, value]) => [name, String(value)]);
}

/** What a request carries that its failure must not repeat: header values, the body and its form values, the URL's user info. */
export function requestSecrets(url: string, request: { headers?: Record<string, string>; body?: string }): string[] {
  const body = request.body === undefined ? [] : [request.body, ...new URLSearchParams(request.body).values()];
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  const userInfo = parsed === undefined ? [] : [parsed.username, parsed.password, decodeURIComponent(parsed.password)];
  return [...Object.values(request.headers ?? {}), ...body, ...userInfo];
}

/** A reply whose body is never read (a redirect): let its socket go. */
export function discard(response: NodeFetchResponse | Response): void {
  const body = response.body as { resume?: () => void } | null;
  body?.resume?.();
}
