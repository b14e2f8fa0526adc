import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { CredCancelledError, CredConnectionError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { ENV } from "../shared/constants.js";
import { authorizationError, describeAuthorizationError } from "./errors.js";
import { PAGE_HEADERS, page } from "./pages.js";
import { DEFAULT_TIMEOUT_MS, type LoopbackHost, type PortRange } from "./plan.js";

export type { LoopbackHost, PortRange } from "./plan.js";
import { MESSAGES } from "../messages.js";

/** Default time the user has to finish the sign-in in the browser. */
export { DEFAULT_TIMEOUT_MS };

/** How to start a loopback receiver. */
export interface LoopbackOptions {
  /** The `state` the callback must carry. */
  state: string;
  /** Ports tried in order (8080-8089 unless the user chose others: credentials/sign-in/plan.ts). */
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

/** Where a receiver is: waiting for the browser, holding its page while the code is exchanged, or done. */
export type ReceiverState = "listening" | "answering" | "closed";

/** A listening receiver. */
export interface LoopbackReceiver {
  port: number;
  redirectUri: string;
  /** `listening` until the browser comes back with a code (`answering`), or it fails or closes (`closed`). */
  readonly state: ReceiverState;
  /** Resolves with the first callback carrying the right state and a code. */
  readonly callback: Promise<LoopbackCallback>;
  /** Stops waiting ({@link CredCancelledError}) and closes the servers; once a code came, only `finish` ends it. */
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
 * Binds the first free port of the range on loopback only and waits for the browser's redirect. Strays
 * get a 404, a wrong `state` a 400 (the flow goes on), a non-loopback `Host` (DNS rebinding) a 421.
 */
export async function startLoopbackReceiver(options: LoopbackOptions): Promise<LoopbackReceiver> {
  throwIfAborted(options.signal);
  const host = options.host ?? "localhost";
  let receiver!: Receiver;
  const bound = await bindFirstFree(options.ports, host, (req, res) => receiver.handle(req, res));
  receiver = new Receiver(bound, host, options);
  return receiver;
}

/** The receiver's state: the browser's page is held while `answering`. */
type State = { name: "listening" } | { name: "answering"; response: ServerResponse } | { name: "closed" };

/**
 * `listening` until this sign-in's code arrives, `answering` (the browser's page held up to 60 s until
 * the exchange is done), `closed`. Each transition leaves one state and ends that state's timer.
 */
class Receiver implements LoopbackReceiver {
  readonly port: number;
  readonly redirectUri: string;
  readonly callback: Promise<LoopbackCallback>;
  #state: State = { name: "listening" };
  /** The current state's timer: the sign-in's time-out, then the browser's 60 s. */
  #timer: NodeJS.Timeout | undefined;
  #settle!: { resolve(value: LoopbackCallback): void; reject(error: Error): void };
  readonly #servers: Server[];
  readonly #path: string;
  readonly #expected: string;
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort = (): void => this.#fail(new CredCancelledError(MESSAGES.signInCancelled));

  constructor(bound: { port: number; servers: Server[] }, host: LoopbackHost, options: LoopbackOptions) {
    this.port = bound.port;
    this.#servers = bound.servers;
    this.#path = options.path ?? "/";
    this.#expected = options.state;
    this.#signal = options.signal;
    this.redirectUri = `http://${host === "::1" ? "[::1]" : host}:${bound.port}${this.#path}`;
    this.callback = new Promise<LoopbackCallback>((resolve, reject) => (this.#settle = { resolve, reject }));
    this.callback.catch(() => {}); // a receiver nobody awaits must not crash the process
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#timer = setTimeout(() => this.#fail(timedOut(timeoutMs)), timeoutMs);
    // A listening server emits "error" only when accepting a connection fails (no file descriptors
    // left): the sign-in cannot go on, but a kernel or script must not crash for it.
    for (const server of this.#servers) server.on("error", (error) => this.#fail(acceptFailed(error)));
    this.#signal?.addEventListener("abort", this.#onAbort);
    if (this.#signal?.aborted) this.#onAbort(); // aborted while the port was being bound
  }

  get state(): ReceiverState {
    return this.#state.name;
  }

  close(): void {
    this.#fail(new CredCancelledError(MESSAGES.signInCancelled));
  }

  /** Answers one request to the redirect address. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    if (!isLoopbackHost(req.headers.host, this.port)) {
      // A page of another site whose name was rebound to 127.0.0.1 (DNS rebinding) says its own name.
      answer(res, 421, "Wrong address", "This address only answers requests for the loopback address it listens on.");
      return;
    }
    const verdict = judge(req, this.#path, this.#expected, this.#state.name !== "listening");
    switch (verdict.kind) {
      case "stray":
        answer(res, 404, "Not found", "Nothing here.");
        return;
      case "stale":
        answer(res, 400, "This sign-in link is not for this session", verdict.message);
        return;
      case "error":
        answer(
          res,
          400,
          "Sign-in failed",
          `${describeAuthorizationError(verdict.error)}. You may close this window and run the sign-in again.`,
        );
        this.#fail(authorizationError(verdict.error));
        return;
      case "code":
        this.#answer(verdict.code, res);
    }
  }

  /** listening -> answering (judge saw to the state): the code goes to the flow, the browser waits for its page. */
  #answer(code: string, response: ServerResponse): void {
    const late = { ok: false, message: "The sign-in did not complete in time." } as const;
    this.#enter(
      { name: "answering", response },
      setTimeout(() => this.#finish(late), FINISH_TIMEOUT_MS),
    );
    this.#settle.resolve({ code, finish: (outcome) => this.#finish(outcome) });
  }

  /** answering -> closed: the browser's page says how the exchange went. */
  #finish(outcome: { ok: true } | { ok: false; message: string }): void {
    const state = this.#state;
    if (state.name !== "answering") return; // the flow's answer after the 60 s one: the page is gone
    if (outcome.ok) answer(state.response, 200, "Signed in", "Signed in. You may close this window.");
    else answer(state.response, 500, "Sign-in failed", `${outcome.message} You may close this window.`);
    this.#close();
  }

  /** listening -> closed: the sign-in fails (error=, time-out, abort, a failing server) or is closed. */
  #fail(error: Error): void {
    if (this.#state.name !== "listening") return; // a code came: only #finish ends it now
    this.#close();
    this.#settle.reject(error);
  }

  #close(): void {
    this.#enter({ name: "closed" }, undefined);
    for (const server of this.#servers) {
      server.close();
      server.closeAllConnections();
    }
  }

  /** Leaves the current state (its timer ends; no abort matters once listening is over) for `state`. */
  #enter(state: State, timer: NodeJS.Timeout | undefined): void {
    clearTimeout(this.#timer);
    this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#state = state;
    this.#timer = timer;
  }
}

function timedOut(timeoutMs: number): CredCredentialsError {
  return new CredCredentialsError(
    `Timed out waiting for the browser sign-in after ${Math.round(timeoutMs / 1000)} s; run again.`,
    { code: ERROR_CODES.TIMEOUT },
  );
}

function acceptFailed(error: NodeJS.ErrnoException): CredConnectionError {
  return new CredConnectionError(
    `The sign-in redirect receiver stopped accepting connections (${error.code ?? "error"}); run the sign-in again.`,
    { cause: error, code: ERROR_CODES.CONNECTION },
  );
}

type Verdict =
  | { kind: "stray" }
  | { kind: "stale"; message: string }
  | { kind: "error"; error: string }
  | { kind: "code"; code: string };

/** What a request to the receiver is. Only a GET to the redirect path with `code` or `error` counts. */
function judge(req: IncomingMessage, path: string, state: string, answered: boolean): Verdict {
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
  if (answered) return { kind: "stale", message: "This sign-in is already complete. You may close this window." };
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
