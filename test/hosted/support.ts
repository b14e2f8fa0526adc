// Local servers speaking the hosted platforms' documented protocols, for test/hosted/*.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTcpServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";

/** Points HOME and the XDG / gcloud dirs at a fresh temp dir for this test file. */
export function isolateHome(): string {
  const home = mkdtempSync(join(tmpdir(), "cred-auth-hosted-"));
  const saved = { ...process.env };
  Object.assign(process.env, {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_DATA_HOME: join(home, ".local/share"),
    CLOUDSDK_CONFIG: join(home, ".config/gcloud"),
  });
  after(() => {
    process.env = saved;
    rmSync(home, { recursive: true, force: true });
  });
  return home;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

function closeHttp(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req) body += chunk;
  return body;
}

/** Issued bearer tokens and a fake API that accepts only live ones (like a Google API would). */
class TokenBook {
  private readonly live = new Map<string, number>();
  private count = 0;

  issue(prefix: string, lifetimeSeconds: number): string {
    const token = `${prefix}-${++this.count}-${Math.random().toString(36).slice(2)}`;
    this.live.set(token, Date.now() + lifetimeSeconds * 1000);
    return token;
  }

  accepts(token: string): boolean {
    const expiry = this.live.get(token);
    return expiry !== undefined && expiry > Date.now();
  }

  /** `GET /api` answers 200 for `Authorization: Bearer <live token>`, else 401. */
  serveApi(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.url !== "/api") return false;
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
    const ok = this.accepts(token);
    res.writeHead(ok ? 200 : 401, { "content-type": "application/json" });
    res.end(
      JSON.stringify(
        ok ? { ok: true } : { error: { code: 401, message: "Request had invalid authentication credentials." } },
      ),
    );
    return true;
  }
}

export type MetadataMode =
  | "ok"
  | "propagation"
  | "forbidden"
  | "error"
  | "no-flavor"
  | "malformed"
  | "no-token"
  | "slow";

/**
 * A GCE-style metadata server (`Metadata-Flavor: Google` both ways) with the misbehaviours the
 * emulator's does not have. Success paths use the emulator.
 */
export interface FakeMetadata {
  host: string;
  mode: MetadataMode;
  projectId: string | null;
  tokenRequests: number;
  close(): Promise<void>;
}

export async function startFakeMetadata(): Promise<FakeMetadata> {
  const state = { mode: "ok" as MetadataMode, projectId: "fake-project" as string | null, tokenRequests: 0 };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://metadata");
    if (req.headers["metadata-flavor"] !== "Google") {
      res.writeHead(403, { "Metadata-Flavor": "Google", "content-type": "text/html" });
      return res.end("Missing Metadata-Flavor:Google header.");
    }
    if (state.mode === "slow") return; // never answers
    const flavor: Record<string, string> = state.mode === "no-flavor" ? {} : { "Metadata-Flavor": "Google" };
    if (url.pathname === "/computeMetadata/v1/project/project-id") {
      if (state.projectId === null) res.writeHead(404, flavor).end("Not Found");
      else res.writeHead(200, { ...flavor, "content-type": "application/text" }).end(state.projectId);
      return;
    }
    if (url.pathname !== "/computeMetadata/v1/instance/service-accounts/default/token") {
      return res.writeHead(404, flavor).end("Not Found");
    }
    state.tokenRequests++;
    const json = (text: string) => res.writeHead(200, { ...flavor, "content-type": "application/json" }).end(text);
    switch (state.mode) {
      case "propagation":
        return res.writeHead(500, flavor).end("Error: credential propagation was unsuccessful");
      case "forbidden":
        return res.writeHead(403, flavor).end("Forbidden");
      case "error":
        return res.writeHead(503, flavor).end("Service Unavailable");
      case "malformed":
        return json("{not json");
      case "no-token":
        return json(JSON.stringify({ expires_in: 3599 }));
      default:
        return json(
          JSON.stringify({
            access_token: `fake-metadata-token-${state.tokenRequests}`,
            expires_in: 3599,
            token_type: "Bearer",
          }),
        );
    }
  });
  const port = await listen(server);
  return Object.assign(state, { host: `127.0.0.1:${port}`, close: () => closeHttp(server) });
}

export type KaggleMode =
  | "ok"
  | "unauthorized"
  | "forbidden"
  | "unsuccessful"
  | "malformed"
  | "no-secret"
  | "error"
  | "slow";

export interface KaggleRequestSeen {
  method: string;
  path: string;
  contentType: string | undefined;
  kaggleAuthorization: string | undefined;
  authorization: string | undefined;
  body: unknown;
}

/** Kaggle's user-secrets service: `POST /requests/GetUserSecretRequest`. */
export interface FakeKaggle {
  urlBase: string;
  mode: KaggleMode;
  expiresInSeconds: number;
  requests: KaggleRequestSeen[];
  accepts(token: string): boolean;
  apiUrl: string;
  close(): Promise<void>;
}

/** `secretsToken` / `iapToken`: what the server requires in the headers. */
export async function startFakeKaggle(secretsToken: string, iapToken?: string): Promise<FakeKaggle> {
  const book = new TokenBook();
  const state = {
    mode: "ok" as KaggleMode,
    expiresInSeconds: 3600,
    requests: [] as KaggleRequestSeen[],
    accepts: (token: string) => book.accepts(token),
  };
  const server = createServer(async (req, res) => {
    if (book.serveApi(req, res)) return;
    const text = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    state.requests.push({
      method: req.method ?? "",
      path: req.url ?? "",
      contentType: req.headers["content-type"],
      kaggleAuthorization: req.headers["x-kaggle-authorization"] as string | undefined,
      authorization: req.headers.authorization,
      body,
    });
    const json = (status: number, value: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
    if (req.method !== "POST" || req.url !== "/requests/GetUserSecretRequest")
      return json(404, { wasSuccessful: false, errors: ["Not found"] });
    if (state.mode === "slow") return;
    const target = (body as { Target?: unknown } | null)?.Target;
    const headersOk =
      req.headers["content-type"] === "application/json" &&
      req.headers["x-kaggle-authorization"] === `Bearer ${secretsToken}` &&
      (iapToken === undefined || req.headers.authorization === `Bearer ${iapToken}`);
    if (!headersOk || state.mode === "unauthorized")
      return json(401, { wasSuccessful: false, errors: ["Unauthorized"] });
    if (state.mode === "forbidden") return json(403, { wasSuccessful: false, errors: ["Forbidden"] });
    if (state.mode === "error") return json(502, { wasSuccessful: false });
    if (state.mode === "malformed") return res.writeHead(200, { "content-type": "application/json" }).end("<html>oops");
    if (![1, 2, 3].includes(target as number) || state.mode === "unsuccessful") {
      return json(200, { wasSuccessful: false, errors: ["No integration of this kind is attached to the kernel."] });
    }
    if (state.mode === "no-secret") return json(200, { wasSuccessful: true, result: { expiresInSeconds: 3600 } });
    const secret = book.issue(`kaggle-target${String(target)}`, state.expiresInSeconds);
    return json(200, { wasSuccessful: true, result: { secret, expiresInSeconds: state.expiresInSeconds } });
  });
  const port = await listen(server);
  return Object.assign(state, {
    urlBase: `http://127.0.0.1:${port}`,
    apiUrl: `http://127.0.0.1:${port}/api`,
    close: () => closeHttp(server),
  });
}

export type DevshellMode = "ok" | "no-token" | "malformed" | "close-early" | "slow";

/** Cloud Shell's legacy devshell port: `2\n[]` in, `LEN\n[email, project, token, expires_in]` out. */
export interface FakeDevshell {
  port: number;
  mode: DevshellMode;
  requests: string[];
  expiresIn: number;
  accepts(token: string): boolean;
  close(): Promise<void>;
}

export async function startFakeDevshell(email = "user@example.com", project = "shell-project"): Promise<FakeDevshell> {
  const book = new TokenBook();
  const sockets = new Set<Socket>();
  const state = {
    mode: "ok" as DevshellMode,
    requests: [] as string[],
    expiresIn: 3600,
    accepts: (t: string) => book.accepts(t),
  };
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString("utf8");
      const newline = received.indexOf("\n");
      if (newline === -1 || received.length - newline - 1 < Number(received.slice(0, newline))) return;
      state.requests.push(received);
      const send = (json: string) => socket.end(`${Buffer.byteLength(json)}\n${json}`);
      switch (state.mode) {
        case "slow":
          return;
        case "close-early":
          return socket.end('120\n["user@exa');
        case "malformed":
          return send("{oops");
        case "no-token":
          return send(JSON.stringify([email, project]));
        default:
          return send(JSON.stringify([email, project, book.issue("devshell-token", state.expiresIn), state.expiresIn]));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  return Object.assign(state, {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  });
}

/** A loopback port nothing listens on (bound, then released). */
export async function deadPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Runs `body` while collecting what is written to stderr. */
export async function stderrOf<T>(body: () => Promise<T>): Promise<{ value: T; text: string }> {
  const write = process.stderr.write;
  let text = "";
  process.stderr.write = ((chunk: string | Uint8Array) => {
    text += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    return { value: await body(), text };
  } finally {
    process.stderr.write = write;
  }
}
