// Shared by the OAuth tests: free port ranges and raw HTTP requests to loopback receivers.
import { request, type Server as HttpServer } from "node:http";
import { createRequire } from "node:module";
import { createServer, type ListenOptions, type Server } from "node:net";
import type { LoopbackReceiver } from "../../dist/oauth/loopback.js";
import { planSignIn } from "../../dist/credentials/sign-in/plan.js";
import { signIn, startSignIn, type PendingSignIn, type SignInResult } from "../../dist/oauth/flow.js";
import type { CompleteSignIn } from "../../dist/oauth/pending.js";
import type { FlowPlan, PortRange } from "../../dist/oauth/plan.js";
import type { Presenter, SaveUserCredentialsOptions } from "cred-auth";

/** One sign-in as a test asks for it: the library's options, the environment, and test-only overrides. */
export interface SignInCall extends Omit<SaveUserCredentialsOptions, "presenter"> {
  scopes: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Loopback ports to try (as CRED_AUTH_LOOPBACK_PORTS would say). */
  ports?: PortRange;
  /** The plan's paste-back verdict instead of none. */
  pasteBack?: boolean;
  /** Ask the token server about the client first (default false here: client-check.test.ts tests it). */
  checkClient?: boolean;
}

/**
 * The flow of `call`, planned by the library's own planner (credentials/sign-in/plan.ts) with no settings
 * file. The flow is the caller's (loopback unless `useLocalWebserver: false`), so the plan has no
 * paste-back verdict of its own, and the scopes are the given ones (no account scopes added).
 */
export function flowPlan({ scopes, env, ports, pasteBack, checkClient = false, ...options }: SignInCall): FlowPlan {
  const sources = {
    env: ports ? { ...env, CRED_AUTH_LOOPBACK_PORTS: rangeEnv(ports) } : env,
    settings: () => ({}),
  };
  const request = { scopes, options: { includeAccountScopes: false, useLocalWebserver: true, ...options } };
  const { flow } = planSignIn(request, sources);
  return { ...flow, checkClient, ...(pasteBack === undefined ? {} : { pasteBack }) };
}

/** startSignIn of the planned `call`. */
export function startSignInWith(call: SignInCall): Promise<PendingSignIn> {
  return startSignIn(flowPlan(call), call.signal);
}

/** signIn of the planned `call`, shown by `presenter`. */
export function signInWith(
  call: SignInCall & { presenter: Presenter; complete?: CompleteSignIn },
): Promise<SignInResult> {
  const { presenter, complete, signal } = call;
  return signIn(flowPlan(call), { presenter, signal, complete });
}

/**
 * A random range of `count` ports, each free right now on 127.0.0.1 and (where there is IPv6) ::1,
 * as the receiver binds `localhost` (bounded tries). Drawn below Linux's ephemeral range
 * (32768-60999), where the machine's own outgoing connections take their ports.
 */
export async function freePortRange(count = 3): Promise<{ first: number; last: number }> {
  const addresses = (await hasIpv6Loopback()) ? ["127.0.0.1", "::1"] : ["127.0.0.1"];
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = 20000 + Math.floor(Math.random() * (32768 - 20000 - count));
    const servers: Server[] = [];
    let ok = true;
    for (let port = first; port < first + count && ok; port++) {
      for (const host of addresses) {
        if (!ok) break;
        const server = createServer();
        ok = await new Promise<boolean>((resolve) => {
          server.once("error", () => resolve(false));
          server.listen({ port, host, ipv6Only: host === "::1" }, () => resolve(true));
        });
        if (ok) servers.push(server);
      }
    }
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    if (ok) return { first, last: first + count - 1 };
  }
  throw new Error("no free port range found");
}

/** The env value for a range. */
export function rangeEnv(range: { first: number; last: number }): string {
  return `${range.first}-${range.last}`;
}

export interface RawResponse {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** One HTTP request to `host:port` with a raw path (so malformed or odd targets can be sent). */
export function rawRequest(
  port: number,
  path: string,
  options: { host?: string; method?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: options.host ?? "127.0.0.1", port, path, method: options.method ?? "GET", agent: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** Plays the browser's redirect to `target` and finishes the sign-in: the code received, the page shown. */
export async function completeSignIn(
  receiver: LoopbackReceiver,
  target: string,
): Promise<{ code: string; page: RawResponse }> {
  const page = rawRequest(receiver.port, target);
  const callback = await receiver.callback;
  callback.finish({ ok: true });
  return { code: callback.code, page: await page };
}

/** Whether ::1 can be bound here (IPv6 loopback present). */
export async function hasIpv6Loopback(): Promise<boolean> {
  const server = createServer();
  const ok = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(0, "::1", () => resolve(true));
  });
  if (ok) await new Promise((resolve) => server.close(resolve));
  return ok;
}

/** Occupies every port of the range on 127.0.0.1; returns a function that frees them. */
export async function occupy(range: { first: number; last: number }): Promise<() => Promise<void>> {
  const servers: Server[] = [];
  for (let port = range.first; port <= range.last; port++) {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    servers.push(server);
  }
  return async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  };
}

/**
 * Runs `fn` while every server `http.createServer` makes passes through `touch` first: the
 * receiver's servers are reachable no other way (dist/ calls createServer on the module object).
 */
export async function withCreatedServers<T>(touch: (server: HttpServer) => void, fn: () => Promise<T>): Promise<T> {
  const http = createRequire(import.meta.url)("node:http") as typeof import("node:http");
  const original = http.createServer;
  http.createServer = ((...args: Parameters<typeof original>) => {
    const server = original(...args);
    touch(server);
    return server;
  }) as typeof original;
  try {
    return await fn();
  } finally {
    http.createServer = original;
  }
}

/**
 * Stands for the OS refusing to listen (no IPv6, a privileged port, no file descriptors left),
 * which a test cannot arrange: where `refuse` returns an error, `listen` emits it instead of binding.
 */
export function refuseListen(
  server: HttpServer,
  refuse: (options: ListenOptions) => NodeJS.ErrnoException | undefined,
): void {
  const listen = server.listen.bind(server);
  server.listen = ((options: ListenOptions) => {
    const error = refuse(options);
    if (!error) return listen(options);
    process.nextTick(() => server.emit("error", error));
    return server;
  }) as typeof server.listen;
}

/** An error as the OS reports it from listen, with `code` (none when undefined). */
export function listenError(code: string | undefined): NodeJS.ErrnoException {
  return Object.assign(new Error(`listen ${code ?? "failed"}`), code === undefined ? {} : { code });
}
