import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { CredCancelledError, CredConnectionError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { ENV } from "../shared/constants.js";
import { authorizationError, describeAuthorizationError } from "./errors.js";
import { PAGE_HEADERS, page } from "./pages.js";
import type { LoopbackHost, PortRange } from "./plan.js";

export type { LoopbackHost, PortRange } from "./plan.js";
import { MESSAGES } from "../messages.js";

/** Default time the user has to finish the sign-in in the browser. */
export const DEFAULT_TIMEOUT_MS = 300_000;

/** How to start a loopback receiver. */
export interface LoopbackOptions {
  /** The `state` the callback must carry. */
  state: string;
  /** Ports tried in order (8080-8089 unless the user chose others: credentials/plan.ts). */
  ports: PortRange;
  host?: LoopbackHost;
  /** Path of the redirect URI. Default `/`. */
  path?: string;
  /** Gives up after this long (default 300 s): {@link CredCredentialsError}. */
  timeoutMs?: number;
  /** Aborting gives up: {@link CredCancelledError}. */
  signal?: AbortSignal;
}

/** A valid callback: the code, and the way to answer the browser once it was exchanged. */
export interface LoopbackCallback {
  code: string;
  /** Answers the waiting browser and closes the receiver. */
  finish(outcome: { ok: true } | { ok: false; message: string }): void;
}

/** A listening receiver. */
export interface LoopbackReceiver {
  port: number;
  redirectUri: string;
  /** Resolves with the first callback carrying the right state and a code. */
  readonly callback: Promise<LoopbackCallback>;
  /** Stops waiting ({@link CredCancelledError}) and closes the servers. Idempotent. */
  close(): void;
}

const MAX_URL_LENGTH = 8192;
const MAX_HEADER_BYTES = 16 * 1024;
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 15_000;
/** How often node enforces the two above (its default, 30 s, let a slow client stay up to 40 s). */
const LIMITS_CHECK_INTERVAL_MS = 1_000;
/** How long a browser may be kept waiting for the success page while the code is exchanged. */
const FINISH_TIMEOUT_MS = 60_000;

/**
 * Binds the first free port of the range on the loopback interface only, and waits for the
 * browser's redirect. Stray requests (favicon, other paths, scanners) get a 404 and the
 * receiver keeps waiting; a callback with a wrong or missing `state` gets a 400 and does not
 * consume the flow. A request whose `Host` is not a loopback name with the receiver's port (a
 * DNS-rebinding page) gets a 421 and is not looked at. Every outcome closes the servers.
 */
export async function startLoopbackReceiver(options: LoopbackOptions): Promise<LoopbackReceiver> {
  throwIfAborted(options.signal);
  const { ports } = options;
  const host = options.host ?? "localhost";
  const path = options.path ?? "/";
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  let settle!: { resolve(value: LoopbackCallback): void; reject(error: Error): void };
  const callback = new Promise<LoopbackCallback>((resolve, reject) => (settle = { resolve, reject }));
  callback.catch(() => {}); // a receiver nobody awaits must not crash the process
  let done = false;
  // Stryker disable next-line ArrayDeclaration: equivalent: nothing reads it before the bound servers replace it
  let servers: Server[] = [];

  const closeServers = (): void => {
    for (const server of servers) {
      server.close();
      server.closeAllConnections();
    }
  };
  const fail = (error: Error): void => {
    if (done) return;
    // Stryker disable next-line BooleanLiteral: equivalent: fail has closed every server and connection, so no request is judged again, and a second reject is a no-op
    done = true;
    cleanup();
    closeServers();
    settle.reject(error);
  };

  let listeningPort = 0;
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    if (!isLoopbackHost(req.headers.host, listeningPort)) {
      // A page of another site whose name was rebound to 127.0.0.1 (DNS rebinding) says its own name.
      return answer(
        res,
        421,
        "Wrong address",
        "This address only answers requests for the loopback address it listens on.",
      );
    }
    const verdict = judge(req, path, options.state, done);
    if (verdict.kind === "stray") return answer(res, 404, "Not found", "Nothing here.");
    if (verdict.kind === "stale") {
      return answer(res, 400, "This sign-in link is not for this session", verdict.message);
    }
    if (verdict.kind === "error") {
      answer(
        res,
        400,
        "Sign-in failed",
        `${describeAuthorizationError(verdict.error)}. You may close this window and run the sign-in again.`,
      );
      return fail(authorizationError(verdict.error));
    }
    done = true;
    cleanup();
    let finished = false;
    const finish: LoopbackCallback["finish"] = (outcome) => {
      // The guard and answer()'s headersSent check each stop a second answer: a mutant of one alone changes nothing visible.
      // Stryker disable next-line ConditionalExpression: equivalent: a second finish is refused by answer() and closes closed servers
      if (finished) return;
      // Stryker disable next-line BooleanLiteral: equivalent: as above
      finished = true;
      // Stryker disable next-line CallExpression: equivalent: the timer's later finish is refused by the guard
      clearTimeout(finishTimer);
      if (outcome.ok) answer(res, 200, "Signed in", "Signed in. You may close this window.");
      else answer(res, 500, "Sign-in failed", `${outcome.message} You may close this window.`);
      closeServers();
    };
    const finishTimer = setTimeout(
      () => finish({ ok: false, message: "The sign-in did not complete in time." }),
      FINISH_TIMEOUT_MS,
    );
    // Stryker disable next-line CallExpression: equivalent: until finish, the open servers keep the process alive anyway
    finishTimer.unref();
    settle.resolve({ code: verdict.code, finish });
  };

  const bound = await bindFirstFree(ports, host, handler);
  servers = bound.servers;
  listeningPort = bound.port;
  // A listening server emits "error" only when accepting a connection fails (no file descriptors
  // left): the sign-in cannot go on, but a kernel or script must not crash for it.
  for (const server of servers)
    server.on("error", (error: NodeJS.ErrnoException) =>
      fail(
        new CredConnectionError(
          `The sign-in redirect receiver stopped accepting connections (${error.code ?? "error"}); run the sign-in again.`,
          { cause: error, code: ERROR_CODES.CONNECTION },
        ),
      ),
    );
  const timer = setTimeout(() => {
    fail(
      new CredCredentialsError(
        `Timed out waiting for the browser sign-in after ${Math.round(timeoutMs / 1000)} s; run again.`,
        { code: ERROR_CODES.TIMEOUT },
      ),
    );
  }, timeoutMs);
  // Stryker disable next-line CallExpression: equivalent: the timer runs only while the open servers keep the process alive anyway
  timer.unref();
  const onAbort = (): void => fail(new CredCancelledError(MESSAGES.signInCancelled));
  // Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent: cleanup() removes the listener on every outcome, the abort included
  options.signal?.addEventListener("abort", onAbort, { once: true });
  function cleanup(): void {
    // Stryker disable next-line CallExpression: equivalent: the time-out then finds the flow done, and fail() ignores it
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }

  const urlHost = host === "::1" ? "[::1]" : host;
  return {
    port: bound.port,
    redirectUri: `http://${urlHost}:${bound.port}${path}`,
    callback,
    close: () => fail(new CredCancelledError(MESSAGES.signInCancelled)),
  };
}

type Verdict =
  | { kind: "stray" }
  | { kind: "stale"; message: string }
  | { kind: "error"; error: string }
  | { kind: "code"; code: string };

/** What a request to the receiver is. Only a GET to the redirect path with `code` or `error` counts. */
function judge(req: IncomingMessage, path: string, state: string, done: boolean): Verdict {
  // Stryker disable next-line StringLiteral: equivalent: a server's request always has a url
  const target = req.url ?? "";
  if (req.method !== "GET" || target.length > MAX_URL_LENGTH) return { kind: "stray" };
  let url: URL;
  try {
    url = new URL(target, "http://localhost");
  } catch {
    return { kind: "stray" };
  }
  const query = url.searchParams;
  if (url.pathname !== path || (!query.has("code") && !query.has("error"))) return { kind: "stray" };
  if (done) return { kind: "stale", message: "This sign-in is already complete. You may close this window." };
  // Stryker disable next-line StringLiteral: equivalent: the state is never empty (256 random bits), so a missing one mismatches whatever stands in for it
  if (!sameSecret(query.get("state") ?? "", state)) {
    return {
      kind: "stale",
      message:
        "The state of this redirect does not match the sign-in in progress. Use the newest link shown by your program.",
    };
  }
  const error = query.get("error");
  if (error !== null) return { kind: "error", error };
  // Stryker disable next-line StringLiteral: equivalent: without error, the query has a code (checked above)
  const code = query.get("code") ?? "";
  if (!code) return { kind: "stale", message: "The redirect carried no authorization code." };
  // Stryker disable next-line StringLiteral: equivalent: the handler takes every verdict that is not stray, stale or error as the code
  return { kind: "code", code };
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Whether a request's Host names a loopback address and the port the receiver listens on. */
function isLoopbackHost(hostHeader: string | undefined, port: number): boolean {
  // Stryker disable next-line MethodExpression,StringLiteral: equivalent: node's parser already strips the spaces around a header value; no Host never matches
  const match = /^(\[[^\]]*\]|[^:]+)(?::(\d{1,5}))?$/.exec(hostHeader?.trim().toLowerCase() ?? "");
  // Without a port, Host means port 80.
  // Stryker disable next-line StringLiteral: equivalent: a match always has its first group
  return match !== null && LOOPBACK_NAMES.has(match[1] ?? "") && Number(match[2] ?? 80) === port;
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function answer(res: ServerResponse, status: number, title: string, text: string): void {
  // Stryker disable next-line ConditionalExpression: equivalent: finish's own guard answers each response once
  if (res.headersSent) return;
  res.writeHead(status, PAGE_HEADERS);
  res.end(page(title, text));
}

/** Binds `host` on the first port of `ports` that is free on every address `host` stands for. */
async function bindFirstFree(
  ports: PortRange,
  host: LoopbackHost,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ port: number; servers: Server[] }> {
  for (let port = ports.first; port <= ports.last; port++) {
    const servers = await bindPort(port, host, handler);
    if (servers) return { port, servers };
  }
  throw new CredConnectionError(
    `Could not find open port in ${ports.first}-${ports.last} on localhost for the sign-in redirect; free one of these ports or set ${ENV.loopbackPorts} (e.g. 20000-20009), then run again.`,
    { code: ERROR_CODES.PORTS_BUSY },
  );
}

/**
 * `localhost` means 127.0.0.1 and, when this machine has IPv6, ::1 on the same port: a
 * browser may resolve localhost to either. The port is free only if every address binds.
 */
async function bindPort(
  port: number,
  host: LoopbackHost,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<Server[] | undefined> {
  const servers: Server[] = [];
  const addresses = host === "localhost" ? (["127.0.0.1", "::1"] as const) : [host];
  for (const address of addresses) {
    const server = newServer(handler);
    const outcome = await listen(server, port, address);
    if (outcome === "ok") {
      servers.push(server);
      continue;
    }
    if (outcome === "no-address" && address === "::1" && host === "localhost") continue; // no IPv6 here
    for (const s of servers) s.close();
    return undefined;
  }
  return servers;
}

function newServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Server {
  const server = createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES,
      requestTimeout: REQUEST_TIMEOUT_MS,
      headersTimeout: HEADERS_TIMEOUT_MS,
      connectionsCheckingInterval: LIMITS_CHECK_INTERVAL_MS,
    },
    handler,
  );
  server.keepAliveTimeout = 1;
  server.maxRequestsPerSocket = 1;
  server.timeout = REQUEST_TIMEOUT_MS;
  server.on("clientError", (_error, socket) => socket.destroy());
  return server;
}

function listen(server: Server, port: number, address: string): Promise<"ok" | "busy" | "no-address"> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      // Stryker disable next-line StringLiteral,CallExpression: equivalent: a server that failed to listen is dropped and never emits listening
      server.off("listening", onListening);
      if (error.code === "EADDRINUSE" || error.code === "EACCES")
        // Stryker disable next-line StringLiteral: equivalent: every outcome but ok and no-address gives the port up
        resolve("busy");
      else if (error.code === "EADDRNOTAVAIL" || error.code === "EAFNOSUPPORT" || error.code === "EINVAL")
        resolve("no-address");
      else
        reject(
          new CredConnectionError(
            `Could not listen on ${address}:${port} for the sign-in redirect (${error.code ?? "error"}).`,
            { cause: error, code: ERROR_CODES.CONNECTION },
          ),
        );
    };
    const onListening = (): void => {
      // Stryker disable next-line StringLiteral,CallExpression: not observable: a listening server emits error only when accept fails (no file descriptors left)
      server.off("error", onError);
      resolve("ok");
    };
    server.once("error", onError);
    server.once("listening", onListening);
    // ipv6Only and exclusive change nothing here: ipv6Only only matters for "::", exclusive only in cluster workers.
    // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral,BooleanLiteral: equivalent, as above
    server.listen({ port, host: address, ipv6Only: address === "::1", exclusive: true });
  });
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CredCancelledError(MESSAGES.signInCancelled);
}
