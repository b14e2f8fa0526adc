/** The emulator's HTTP server: one loopback listener, routing, and the Emulator control object. */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DEMO_CLIENT, EMULATOR_PATHS } from "../shared/constants.js";
import { handleAdmin } from "./admin.js";
import { handleApi } from "./apis.js";
import type { RequestContext } from "./context.js";
import { MAX_FAULTS, normalizeFault } from "./faults.js";
import { HttpError, requestUrl, sendHtml, sendJson, sendText } from "./http.js";
import { awsControls } from "./aws-admin.js";
import { clientControls } from "./client-status.js";
import { handleAwsImds } from "./aws-imds.js";
import { awsOf } from "./aws-state.js";
import { handleIam } from "./iam.js";
import { iamControls, iamOf } from "./iam-state.js";
import { handleIdTokenRoutes, idTokenControls } from "./id-token-routes.js";
import { checkFlavor, handleMetadata } from "./metadata.js";
import { handleAuthGet, handleAuthPost, handleCodePage, handleRevoke, handleToken, handleTokenInfo } from "./oauth.js";
import { indexPage } from "./pages.js";
import { addRunService } from "./run-service.js";
import { checkMetadataPlatform, EmulatorState } from "./state.js";
import { handleSts, stsControls, stsOf } from "./sts.js";
import type { Emulator, EmulatorOptions, Fault, MetadataIdentity, MetadataPlatform } from "./types.js";

async function route(ctx: RequestContext, emulator: Emulator): Promise<void> {
  const { req, res, url } = ctx;
  const path = url.pathname;
  const method = req.method ?? "GET";
  if (path === EMULATOR_PATHS.auth) {
    if (method === "GET" || method === "HEAD") return handleAuthGet(ctx);
    if (method === "POST") return handleAuthPost(ctx);
    return sendText(res, 405, "Method Not Allowed\n", { Allow: "GET, POST" });
  }
  if (path === EMULATOR_PATHS.token) return handleToken(ctx);
  if (path === EMULATOR_PATHS.revoke || path === "/o/oauth2/revoke") return handleRevoke(ctx);
  if (path === EMULATOR_PATHS.tokenInfo || path === "/oauth2/v3/tokeninfo") return handleTokenInfo(ctx);
  if (path === EMULATOR_PATHS.codePage) return handleCodePage(ctx);
  if (path === EMULATOR_PATHS.metadata || path.startsWith(`${EMULATOR_PATHS.metadata}/`)) return handleMetadata(ctx);
  if (path === EMULATOR_PATHS.admin || path.startsWith(`${EMULATOR_PATHS.admin}/`)) return handleAdmin(ctx, emulator);
  if (path === "/" || path === "/computeMetadata" || path === "/computeMetadata/") return handleRoot(ctx);
  if (handleAwsImds(ctx)) return;
  if (await handleSts(ctx)) return;
  if (await handleIam(ctx)) return;
  if (await handleIdTokenRoutes(ctx)) return;
  if (await handleApi(ctx)) return;
  sendJson(res, 404, { error: { code: 404, message: `Not found: ${path.slice(0, 200)}`, status: "NOT_FOUND" } });
}

/** Root: a metadata-server probe (with Metadata-Flavor) or a person looking (an index page). */
function handleRoot(ctx: RequestContext): void {
  if (ctx.req.headers["metadata-flavor"] !== undefined || ctx.url.pathname !== "/") {
    if (!checkFlavor(ctx)) return;
    sendText(ctx.res, 200, ctx.url.pathname === "/" ? "computeMetadata/\n" : "v1/\n", {
      "Metadata-Flavor": "Google",
      "Content-Type": "application/text",
    });
    return;
  }
  ctx.res.setHeader("Metadata-Flavor", "Google");
  sendHtml(ctx.res, 200, indexPage(ctx.state.baseUrl, { ...EMULATOR_PATHS }));
}

function answerFailure(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (error instanceof HttpError) {
    sendJson(res, error.status, { error: "invalid_request", error_description: error.message });
  } else if (error instanceof URIError) {
    sendJson(res, 400, { error: "invalid_request", error_description: "Malformed percent-encoding in the request." });
  } else {
    sendJson(res, 500, { error: "internal_failure", error_description: "The emulator failed on this request." });
  }
}

/** Starts an emulator on 127.0.0.1 (a random free port unless `port` is given). */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const state = new EmulatorState(options);
  for (const grant of options.serviceAccounts ?? []) iamOf(state).add(grant);
  awsOf(state); // checks the aws option now, not at the first AWS request
  for (const service of options.runServices ?? []) addRunService(state, service);
  const closing = new AbortController();
  const log = options.log;
  let emulator: Emulator;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.on("error", () => req.socket.destroy());
    let url: URL;
    try {
      url = requestUrl(req);
    } catch {
      sendText(res, 400, "Bad Request\n");
      return;
    }
    if (log) {
      res.on("finish", () => {
        try {
          log(`${req.method ?? "?"} ${url.pathname.slice(0, 200)} ${res.statusCode}`);
        } catch {
          // A failing log callback must not take the emulator down.
        }
      });
    }
    route({ state, req, res, url, closing: closing.signal }, emulator).catch((error: unknown) =>
      answerFailure(res, error),
    );
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.on("clientError", (_error, socket) => {
    if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const message =
        error.code === "EADDRINUSE"
          ? `Port ${options.port} on 127.0.0.1 is already in use: stop what holds it or choose another port.`
          : `The emulator could not listen on 127.0.0.1:${options.port ?? 0}: ${error.message}`;
      reject(Object.assign(new Error(message, { cause: error }), { code: error.code }));
    };
    server.once("error", onError);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", onError);
      resolve();
    });
  });
  server.on("error", () => undefined);
  const port = (server.address() as AddressInfo).port;
  const host = `127.0.0.1:${port}`;
  state.baseUrl = `http://${host}`;

  let closed: Promise<void> | undefined;
  emulator = {
    url: state.baseUrl,
    host,
    stats: () => state.snapshotStats(),
    failNext(count: number, fault?: Fault) {
      if (!Number.isInteger(count) || count < 0)
        throw new RangeError("failNext(count): count must be a non-negative integer.");
      const normalized = normalizeFault(fault);
      const queue = state.faultQueues[normalized.target ?? "token"];
      const room = Math.max(0, MAX_FAULTS - queue.length);
      for (let i = 0; i < Math.min(count, room); i++) queue.push({ ...normalized });
    },
    setTokenDelay(ms: number) {
      if (!(ms >= 0) || !Number.isFinite(ms))
        throw new RangeError("setTokenDelay(ms): ms must be a non-negative number.");
      state.tokenDelayMs = ms;
    },
    revokeRefreshToken: (refreshToken: string) => void state.revokeRefreshToken(refreshToken),
    revokeAll: () => state.revokeAll(),
    requireReauth: (account?: string) => state.requireReauth(account),
    setMetadata(identity: MetadataIdentity | null) {
      state.metadata = identity ? { ...identity } : null;
    },
    setMetadataPlatform(platform: MetadataPlatform) {
      state.metadataPlatform = checkMetadataPlatform(platform);
    },
    issueRefreshToken(opts) {
      const clientId = opts.clientId ?? DEMO_CLIENT.clientId;
      if (!state.clients.has(clientId)) throw new RangeError(`issueRefreshToken: unknown client "${clientId}".`);
      if (!Array.isArray(opts.scopes) || opts.scopes.length === 0)
        throw new RangeError("issueRefreshToken: give at least one scope.");
      const invalid = state.scopes.invalid(opts.scopes);
      if (invalid.length > 0)
        throw new RangeError(`issueRefreshToken: Google would refuse the scopes ${invalid.join(", ")}.`);
      return state.issueRefreshToken({
        clientId,
        scopes: state.scopes.granted(opts.scopes),
        account: opts.account ?? state.accounts[0],
      });
    },
    createServiceAccountKey: (opts) => state.createServiceAccountKey(opts),
    checkAccessToken: (token: string) => state.checkAccessToken(token),
    ...stsControls(() => stsOf(state)),
    ...iamControls(() => iamOf(state)),
    ...awsControls(state),
    ...idTokenControls(state),
    ...clientControls(state),
    reset: () => state.resetCounters(),
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
  return emulator;
}
