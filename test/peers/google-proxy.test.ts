// The loopback Google proxy the peer tests stand on: CONNECT only for Google's host names, TLS with a
// certificate of a CA made for this run, each request forwarded to the emulator; every other host
// refused and recorded.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import type { Socket } from "node:net";
import { after, before, test } from "node:test";
import { connect } from "node:tls";
import { DEMO_CLIENT, type Emulator, startEmulator } from "cred-auth/emulator";
import { type GoogleProxy, startGoogleProxy } from "../support/google-proxy.ts";
import { findPeerTools } from "../support/peers.ts";

const hasOpenssl = Boolean(findPeerTools().openssl);
if (!hasOpenssl && process.env.CI) throw new Error("openssl is missing, and CI must run the proxy tests (see .ci/run)");
if (!hasOpenssl) process.stderr.write("\n!!! google-proxy tests not run: openssl not found\n\n");

let emu: Emulator;
let proxy: GoogleProxy;
before(async () => {
  emu = await startEmulator();
  if (hasOpenssl) proxy = await startGoogleProxy(emu);
});
after(async () => {
  await proxy?.close();
  await emu.close();
});

/** Opens a CONNECT tunnel through the proxy; resolves with its status and, on 200, the socket. */
function tunnel(authority: string): Promise<{ status: number; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${proxy.url}`, { method: "CONNECT", path: authority, headers: { host: authority } });
    req.on("connect", (res, socket) => resolve({ status: res.statusCode ?? 0, socket }));
    req.on("error", reject);
    req.end();
  });
}

/** An HTTPS request inside a tunnel, trusting `ca` (or nothing). */
async function viaTunnel(
  host: string,
  path: string,
  ca: string | undefined,
  body?: string,
): Promise<{ status: number; text: string }> {
  const { status, socket } = await tunnel(`${host}:443`);
  assert.equal(status, 200);
  const tls = connect({ socket, servername: host, ...(ca ? { ca } : {}) });
  await new Promise<void>((resolve, reject) => {
    tls.once("secureConnect", resolve);
    tls.once("error", reject);
  });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        createConnection: () => tls,
        host,
        path,
        method: body ? "POST" : "GET",
        headers: { host, "content-type": "application/x-www-form-urlencoded" },
      },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

test("a Google host is tunnelled, its TLS ends at the proxy with the run's CA, the request reaches the emulator", {
  skip: !hasOpenssl,
}, async () => {
  const ca = await readFile(proxy.caFile, "utf8");
  const refreshToken = emu.issueRefreshToken({ scopes: ["https://www.googleapis.com/auth/cloud-platform"] });
  const body = new URLSearchParams({
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: DEMO_CLIENT.clientId,
    client_secret: DEMO_CLIENT.clientSecret,
  }).toString();
  const reply = await viaTunnel("oauth2.googleapis.com", "/token", ca, body);
  assert.equal(reply.status, 200, reply.text);
  assert.ok(emu.checkAccessToken(JSON.parse(reply.text).access_token));
  assert.deepEqual(proxy.forwarded.at(-1), {
    host: "oauth2.googleapis.com",
    method: "POST",
    path: "/token",
    status: 200,
    body,
  });
  const legacy = await viaTunnel("www.googleapis.com", "/oauth2/v4/token", ca, "grant_type=nope");
  assert.equal(legacy.status, 400, "older token paths reach the token endpoint too");
  assert.deepEqual(proxy.foreignHosts(), []);
});

test("a client that does not trust the run's CA cannot talk to the proxy's Google", { skip: !hasOpenssl }, async () => {
  await assert.rejects(
    viaTunnel("sts.googleapis.com", "/v1/token", undefined),
    /self[- ]signed|unable to (get|verify)/i,
  );
});

test("any other host, port or plain-HTTP proxy request is refused (403) and recorded", {
  skip: !hasOpenssl,
}, async () => {
  const before = proxy.connects.length;
  assert.equal((await tunnel("example.com:443")).status, 403);
  assert.equal((await tunnel("oauth2.googleapis.com:80")).status, 403);
  assert.equal((await tunnel("googleapis.com.evil.example:443")).status, 403);
  assert.equal((await tunnel("169.254.169.254:443")).status, 403);
  // A plain-HTTP proxy request names its target in absolute form: GET http://metadata.google.internal/...
  const plain = await new Promise<number>((resolve, reject) => {
    const req = httpRequest(proxy.url, { path: "http://metadata.google.internal/computeMetadata/v1/" }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
  assert.equal(plain, 403);
  assert.deepEqual(
    proxy.connects.slice(before).map((c) => `${c.host}:${c.port}`),
    [
      "example.com:443",
      "oauth2.googleapis.com:80",
      "googleapis.com.evil.example:443",
      "169.254.169.254:443",
      "metadata.google.internal:80",
    ],
  );
  assert.deepEqual(proxy.foreignHosts().slice(-5), [
    "example.com:443",
    "oauth2.googleapis.com:80",
    "googleapis.com.evil.example:443",
    "169.254.169.254:443",
    "metadata.google.internal:80",
  ]);
});

test("the emulator's admin API is not reachable through the proxy", { skip: !hasOpenssl }, async () => {
  const ca = await readFile(proxy.caFile, "utf8");
  assert.equal((await viaTunnel("oauth2.googleapis.com", "/__emulator/stats", ca)).status, 403);
});
