// A loopback HTTPS proxy that plays Google's host names for peers (gcloud, Python google-auth) that
// send some requests to Google whatever a credentials file says: it answers CONNECT only for Google's
// names, ends TLS with a leaf certificate of a throwaway CA made for this run (openssl), and forwards
// each request to the emulator. Every other CONNECT, and every plain-HTTP proxy request, is refused
// and recorded, so a test can fail when a peer tried to leave loopback.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, request as httpRequest, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSecureContext, type SecureContext, TLSSocket } from "node:tls";
import { promisify } from "node:util";
import type { Emulator } from "cred-auth/emulator";

const run = promisify(execFile);

/** Google's host names the peers may reach: the services the emulator plays, and the rest of googleapis.com (answered 404). */
const GOOGLE_HOST = /^(?:[a-z0-9-]+\.googleapis\.com|accounts\.google\.com)$/;
const LEAF_NAMES = [
  "oauth2.googleapis.com",
  "sts.googleapis.com",
  "iamcredentials.googleapis.com",
  "www.googleapis.com",
  "cloudresourcemanager.googleapis.com",
  "accounts.google.com",
  "*.googleapis.com",
];
/** Older paths of Google's token and tokeninfo endpoints, as older clients still call them. */
const PATH_ALIASES: Record<string, string> = {
  "/o/oauth2/token": "/token",
  "/oauth2/v4/token": "/token",
  "/oauth2/v1/tokeninfo": "/tokeninfo",
};

export interface ProxyConnect {
  host: string;
  port: number;
  allowed: boolean;
}

export interface ForwardedRequest {
  host: string;
  method: string;
  path: string;
  status: number;
  /** The request body as text (up to 64 KiB), for assertions on what a peer sent. */
  body: string;
}

export interface GoogleProxy {
  /** `http://127.0.0.1:PORT`: the value for HTTPS_PROXY. */
  readonly url: string;
  /** The throwaway CA's certificate (PEM): for REQUESTS_CA_BUNDLE and CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE. */
  readonly caFile: string;
  /** Every CONNECT (and plain proxy request, as port 80) seen, in order. */
  readonly connects: ProxyConnect[];
  /** Every request forwarded to the emulator (path without its query). */
  readonly forwarded: ForwardedRequest[];
  /** The hosts a peer tried to reach that are not Google's: must stay empty. */
  foreignHosts(): string[];
  close(): Promise<void>;
}

/** A throwaway CA and a leaf certificate for Google's names, made with openssl in `dir`. */
async function makeCertificates(dir: string): Promise<{ caFile: string; key: string; cert: string }> {
  const file = (name: string) => join(dir, name);
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  await run("openssl", [
    "req",
    "-x509",
    ...ec,
    "-keyout",
    file("ca.key"),
    "-out",
    file("ca.pem"),
    "-days",
    "1",
    "-subj",
    `/CN=cred-auth throwaway test CA ${randomBytes(4).toString("hex")}`,
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  await run("openssl", [
    "req",
    ...ec,
    "-keyout",
    file("leaf.key"),
    "-out",
    file("leaf.csr"),
    "-subj",
    "/CN=googleapis.com",
  ]);
  await writeFile(
    file("leaf.ext"),
    [
      "basicConstraints=critical,CA:FALSE",
      "keyUsage=critical,digitalSignature",
      "extendedKeyUsage=serverAuth",
      `subjectAltName=${LEAF_NAMES.map((name) => `DNS:${name}`).join(",")}`,
      "subjectKeyIdentifier=hash",
      "authorityKeyIdentifier=keyid,issuer",
      "",
    ].join("\n"),
  );
  await run("openssl", [
    "x509",
    "-req",
    "-in",
    file("leaf.csr"),
    "-CA",
    file("ca.pem"),
    "-CAkey",
    file("ca.key"),
    "-set_serial",
    `0x${randomBytes(8).toString("hex")}`,
    "-days",
    "1",
    "-extfile",
    file("leaf.ext"),
    "-out",
    file("leaf.pem"),
  ]);
  // The CA's key signs nothing more: gone before any peer runs.
  await rm(file("ca.key"));
  return {
    caFile: file("ca.pem"),
    key: await readFile(file("leaf.key"), "utf8"),
    cert: await readFile(file("leaf.pem"), "utf8"),
  };
}

/** Starts the proxy in front of `emulator`; its certificates live in a fresh temporary directory, removed on close. */
export async function startGoogleProxy(emulator: Emulator): Promise<GoogleProxy> {
  const dir = await mkdtemp(join(tmpdir(), "google-proxy-"));
  const { caFile, key, cert } = await makeCertificates(dir);
  const secureContext = createSecureContext({ key, cert });
  const connects: ProxyConnect[] = [];
  const forwarded: ForwardedRequest[] = [];
  const sockets = new Set<Socket>();
  const target = new URL(emulator.url);

  // Requests that arrive inside a CONNECT tunnel, already decrypted.
  const inner = createServer((req, res) => forward(req, res, target, forwarded));
  const proxy = createServer((req, res) => {
    // A plain-HTTP proxy request (GET http://host/...): nothing the peers need goes this way.
    connects.push({ host: safeHost(req.url), port: Number(safePort(req.url)), allowed: false });
    res
      .writeHead(403, { "Content-Type": "text/plain" })
      .end("The test proxy forwards only HTTPS to Google's host names.\n");
  });
  proxy.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  proxy.on("connect", (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const [host = "", portText = ""] = (req.url ?? "").split(/:(?=\d+$)/);
    const port = Number(portText);
    const allowed = port === 443 && GOOGLE_HOST.test(host);
    connects.push({ host, port, allowed });
    if (!allowed) {
      socket.end("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) socket.unshift(head);
    tunnel(socket, secureContext, inner);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  return {
    url,
    caFile,
    connects,
    forwarded,
    foreignHosts: () => connects.filter((c) => !c.allowed).map((c) => `${c.host}:${c.port}`),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      inner.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function tunnel(socket: Socket, secureContext: SecureContext, inner: ReturnType<typeof createServer>): void {
  const tls = new TLSSocket(socket, { isServer: true, secureContext, ALPNProtocols: ["http/1.1"] });
  tls.on("error", () => socket.destroy());
  inner.emit("connection", tls);
}

function parsed(url: string | undefined): URL | undefined {
  try {
    return new URL(url ?? "");
  } catch {
    return undefined;
  }
}

function safeHost(url: string | undefined): string {
  return parsed(url)?.hostname || "(not absolute)";
}

function safePort(url: string | undefined): string {
  const target = parsed(url);
  return target?.port || (target?.protocol === "https:" ? "443" : "80");
}

/** Forwards one request to the emulator, keeping method, path, headers and body. */
function forward(req: IncomingMessage, res: ServerResponse, target: URL, log: ForwardedRequest[]): void {
  const host = (req.headers.host ?? "").replace(/:443$/, "");
  const [pathname = "/", query] = (req.url ?? "/").split(/\?(.*)/s, 2);
  const record: ForwardedRequest = { host, method: req.method ?? "GET", path: pathname, status: 0, body: "" };
  req.on("data", (chunk: Buffer) => {
    if (record.body.length < 65_536) record.body += chunk.toString("utf8");
  });
  log.push(record);
  if (pathname.startsWith("/__emulator")) {
    // The emulator's admin API is for the test, never for a peer.
    record.status = 403;
    res.writeHead(403).end();
    return;
  }
  const path = `${PATH_ALIASES[pathname] ?? pathname}${query !== undefined ? `?${query}` : ""}`;
  const headers = { ...req.headers, host: target.host };
  const upstream = httpRequest(
    { host: target.hostname, port: target.port, method: req.method, path, headers },
    (reply) => {
      record.status = reply.statusCode ?? 0;
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    },
  );
  upstream.on("error", () => {
    record.status = 502;
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  req.pipe(upstream);
}
