// The one transport (src/trust/transport.ts) on its own, against real servers on loopback: which
// redirects it follows and with what, which proxy each host is reached through (NO_PROXY's forms,
// loopback never), the size bound, and what a failure must not repeat.
import assert from "node:assert/strict";
import { Agent } from "node:http";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { test, type TestContext } from "node:test";
import {
  MAX_REDIRECTS,
  MAX_REPLY_BYTES,
  agentFor,
  discard,
  proxyFor,
  redirected,
  requestSecrets,
  transportFetch,
} from "../../dist/trust/transport.js";
import { closedPort, recordingProxy } from "../support/net.ts";

interface Seen {
  method: string;
  path: string;
  body: string;
  headers: IncomingMessage["headers"];
}

async function listen(
  t: TestContext,
  host: string,
  answer: (req: IncomingMessage, res: ServerResponse, seen: Seen[]) => void,
): Promise<{ origin: string; requests: Seen[] }> {
  const requests: Seen[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      requests.push({ method: req.method ?? "", path: req.url ?? "", body, headers: req.headers });
      answer(req, res, requests);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { origin: `http://${host}:${(server.address() as { port: number }).port}`, requests };
}

const ok = (res: ServerResponse, text = "done") => res.writeHead(200, { "content-type": "text/plain" }).end(text);
const redirect = (res: ServerResponse, status: number, location: string) => res.writeHead(status, { location }).end();

test("proxyFor: HTTPS_PROXY, https_proxy, HTTP_PROXY, http_proxy in that order; none set, none used", () => {
  const url = new URL("https://oauth2.googleapis.com/token");
  assert.equal(proxyFor(url, {}), undefined);
  assert.equal(proxyFor(url, { http_proxy: "http://d" }), "http://d");
  assert.equal(proxyFor(url, { HTTP_PROXY: "http://c", http_proxy: "http://d" }), "http://c");
  assert.equal(proxyFor(url, { https_proxy: "http://b", HTTP_PROXY: "http://c" }), "http://b");
  assert.equal(proxyFor(url, { HTTPS_PROXY: "http://a", https_proxy: "http://b" }), "http://a");
  assert.equal(proxyFor(url, { HTTPS_PROXY: "", https_proxy: "http://b" }), "http://b");
});

test("proxyFor: NO_PROXY's forms keep a host away from the proxy, and only that host", () => {
  const proxy = { HTTPS_PROXY: "http://proxy:3128" };
  const url = new URL("https://sts.googleapis.com:8443/v1/token");
  const bypassed = [
    "*",
    "sts.googleapis.com",
    "STS.googleapis.com",
    ".googleapis.com",
    "*.googleapis.com",
    "sts.googleapis.com:8443",
    "https://sts.googleapis.com:8443",
    "https://sts.googleapis.com:8443/v1/token",
    " other.example , sts.googleapis.com ",
  ];
  for (const rule of bypassed) assert.equal(proxyFor(url, { ...proxy, NO_PROXY: rule }), undefined, rule);
  assert.equal(proxyFor(url, { ...proxy, no_proxy: "sts.googleapis.com" }), undefined, "no_proxy too");
  assert.equal(
    proxyFor(url, { ...proxy, NO_PROXY: "other.example", no_proxy: "sts.googleapis.com" }),
    "http://proxy:3128",
    "NO_PROXY first",
  );
  const kept = [
    "",
    ",",
    "googleapis.com.evil",
    "oauth2.googleapis.com",
    ".evil.com",
    "*.sts.googleapis.com",
    "sts.googleapis.com:443",
    "http://sts.googleapis.com:8443",
    "https://sts.googleapis.com:8443/other",
  ];
  for (const rule of kept) assert.equal(proxyFor(url, { ...proxy, NO_PROXY: rule }), "http://proxy:3128", rule);
});

test("agentFor: loopback never through a proxy agent; other hosts keep the caller's, else the environment's proxy", () => {
  const proxyAgent = Object.assign(new Agent(), { proxy: new URL("http://proxy:3128") });
  const plain = new Agent();
  const choose = () => proxyAgent;
  const env = { HTTPS_PROXY: "http://127.0.0.1:3128" };
  for (const host of ["127.0.0.1", "127.9.8.7", "localhost", "[::1]"]) {
    const url = new URL(`http://${host}:9099/token`);
    assert.equal(agentFor(url, proxyAgent, env), undefined, host);
    assert.equal(agentFor(url, choose, env), undefined, `${host}: an agent chooser may pick a proxy`);
    assert.equal(agentFor(url, plain, env), plain, `${host}: an agent that is no proxy is kept`);
    assert.equal(agentFor(url, undefined, env), undefined, `${host}: the environment's proxy is not used`);
    assert.equal(agentFor(url, null, env), null, `${host}: whatever else the caller gave, kept (no proxy in it)`);
    assert.equal(agentFor(url, 5, env), 5, host);
  }
  const google = new URL("https://oauth2.googleapis.com/token");
  assert.equal(agentFor(google, proxyAgent, env), proxyAgent, "gaxios's choice kept");
  assert.equal(agentFor(google, plain, {}), plain);
  assert.equal(agentFor(google, undefined, {}), undefined, "no proxy set: none");
  assert.equal(agentFor(google, undefined, { ...env, NO_PROXY: ".googleapis.com" }), undefined);
  const fromEnv = agentFor(google, undefined, env) as { proxy?: URL };
  assert.equal(fromEnv.proxy?.href, "http://127.0.0.1:3128/");
  assert.equal(agentFor(new URL("https://sts.googleapis.com/"), undefined, env), fromEnv, "one agent per proxy");
  const other = agentFor(google, undefined, { HTTPS_PROXY: "http://127.0.0.1:3129" }) as { proxy?: URL };
  assert.equal(other.proxy?.href, "http://127.0.0.1:3129/");
});

test("redirected: fetch's method rules; another origin gets no body and only harmless headers; https never to http", () => {
  const from = new URL("https://a.example/token");
  const same = new URL("https://a.example/other");
  const elsewhere = new URL("https://b.example/x");
  const post = {
    method: "POST",
    body: "refresh_token=secret",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: "Basic abc", Accept: "x" },
  };
  assert.equal(redirected(post, 307, from, new URL("http://a.example/token")), undefined, "https to http");
  const bare = { method: "GET", headers: { accept: "x" } };
  assert.equal(
    redirected(bare, 302, from, new URL("http://a.example/token")),
    undefined,
    "https to http, nothing secret",
  );
  assert.deepEqual(redirected(bare, 302, from, new URL("https://b.example/")), bare, "https to https elsewhere");
  assert.deepEqual(redirected({ method: "POST" }, 303, from, same), { method: "GET", body: undefined, headers: {} });
  assert.deepEqual(redirected({ method: "POST", headers: new Headers({ Accept: "a" }) }, 303, from, same)?.headers, {
    accept: "a",
  });
  assert.deepEqual(redirected(post, 307, from, same), post, "same origin: as sent");
  assert.deepEqual(redirected(post, 308, from, same), post);
  assert.equal(redirected(post, 307, from, elsewhere), undefined, "a body to another origin");
  assert.equal(redirected(post, 308, from, elsewhere), undefined);
  for (const status of [301, 302, 303]) {
    const asGet = { method: "GET", body: undefined, headers: { Authorization: "Basic abc", Accept: "x" } };
    assert.deepEqual(redirected(post, status, from, same), asGet, `${status} after a POST: a GET without a body`);
    assert.deepEqual(redirected(post, status, from, elsewhere), { ...asGet, headers: { Accept: "x" } }, `${status}`);
  }
  const get = { method: "GET", headers: { authorization: "Bearer t", "x-goog-api-client": "gl", "x-secret": "s" } };
  assert.deepEqual(redirected(get, 301, from, same), get);
  assert.deepEqual(redirected(get, 307, from, elsewhere), { method: "GET", headers: { "x-goog-api-client": "gl" } });
  assert.deepEqual(redirected({}, 302, from, elsewhere), { headers: {} }, "no method: a GET, kept as it was");
  const head = { method: "HEAD", headers: { "content-type": "a" } };
  assert.deepEqual(redirected(head, 303, from, same), head, "a HEAD stays a HEAD");
  const put = { method: "put", body: "x", headers: { "content-type": "a" } };
  assert.deepEqual(redirected(put, 303, from, same), { method: "GET", body: undefined, headers: {} });
  assert.deepEqual(redirected(put, 302, from, same), put, "302 changes only a POST");
  const stream = { method: "POST", body: Readable.from(["x"]) };
  assert.equal(redirected(stream, 307, from, same), undefined, "a stream cannot be sent twice");
  const headers = new Headers({ Accept: "a", Cookie: "c", "User-Agent": "u", "Accept-Language": "l" });
  assert.deepEqual(redirected({ headers }, 302, from, elsewhere)?.headers, {
    accept: "a",
    "accept-language": "l",
    "user-agent": "u",
  });
  assert.deepEqual(
    redirected(
      {
        headers: [
          ["Accept-Encoding", "gzip"],
          ["Cookie", "c"],
        ],
      },
      302,
      from,
      elsewhere,
    )?.headers,
    { "Accept-Encoding": "gzip" },
  );
  assert.deepEqual(redirected({ method: "POST", body: null }, 307, from, elsewhere), {
    method: "POST",
    body: null,
    headers: {},
  });
  assert.deepEqual(
    redirected({ method: "GET", headers: null }, 302, new URL("http://a.example/"), new URL("https://b.example/")),
    {
      method: "GET",
      headers: {},
    },
  );
});

test("transportFetch follows a redirect within the origin, with the body; to another origin, only what carries no secret", async (t) => {
  const other = await listen(t, "127.0.0.2", (_req, res) => ok(res, "other"));
  const closed = await closedPort();
  const first = await listen(t, "127.0.0.1", (req, res) => {
    if (req.url === "/token") return redirect(res, 307, "/token2");
    if (req.url === "/token2") return ok(res, "second");
    if (req.url === "/away") return redirect(res, 307, `${other.origin}/stolen`);
    if (req.url === "/see") return redirect(res, 303, `${other.origin}/seen`);
    if (req.url === "/nowhere") return res.writeHead(302).end();
    if (req.url === "/ftp") return redirect(res, 302, "ftp://127.0.0.1/x");
    if (req.url === "/bad") return redirect(res, 302, "http://[::1");
    if (req.url === "/loop") return redirect(res, 302, "/loop");
    if (req.url === "/created") return redirect(res, 201, "/token2");
    if (req.url === "/tls") return redirect(res, 302, `https://127.0.0.1:${closed}/x`);
    return ok(res);
  });
  const post = { method: "POST", headers: { authorization: "Basic c2VjcmV0", accept: "text/plain" }, body: "code=abc" };
  const followed = await transportFetch(`${first.origin}/token`, post);
  assert.equal(followed.status, 200);
  assert.equal(await followed.text(), "second");
  const second = first.requests.find((r) => r.path === "/token2");
  assert.equal(second?.body, "code=abc", "same origin: the body went along");
  assert.equal(second?.headers.authorization, "Basic c2VjcmV0");

  const refused = await transportFetch(new URL(`${first.origin}/away`), post);
  assert.equal(refused.status, 307, "the redirect is the answer");
  const seen = await transportFetch({ url: `${first.origin}/see` }, post);
  assert.equal(seen.status, 200, "303: a GET without a body, and nothing secret");
  assert.deepEqual(
    other.requests.map((r) => [r.method, r.path, r.body, r.headers.authorization, r.headers.accept]),
    [["GET", "/seen", "", undefined, "text/plain"]],
  );
  for (const path of ["/nowhere", "/ftp", "/bad"]) {
    const answer = await transportFetch(`${first.origin}${path}`);
    assert.equal(answer.status, 302, path);
  }
  assert.equal((await transportFetch(`${first.origin}/created`)).status, 201, "a Location beside a 201 is no redirect");
  await assert.rejects(transportFetch(`${first.origin}/tls`), /ECONNREFUSED/, "http to https is followed");
  const before = first.requests.length;
  const looped = await transportFetch(`${first.origin}/loop`);
  assert.equal(looped.status, 302);
  assert.equal(first.requests.length - before, MAX_REDIRECTS + 1, "a loop is given up after the last redirect");
  const manual = await transportFetch(`${first.origin}/token`, { ...post, redirect: "manual" });
  assert.equal(manual.status, 307, "redirect: manual: the caller's to judge");
  discard(manual);
  await assert.rejects(transportFetch(42), /no URL/);
  await assert.rejects(transportFetch({ url: 42 }), /no URL/);
  await assert.rejects(transportFetch(null), /no URL/);
});

test("transportFetch bounds a reply read whole: the caller's size, else MAX_REPLY_BYTES; a stream is the caller's to bound", async (t) => {
  const big = Buffer.alloc(MAX_REPLY_BYTES + 1, 0x61);
  const server = await listen(t, "127.0.0.1", (req, res) => {
    if (req.url === "/small") return ok(res, "x".repeat(100));
    res.writeHead(200, { "content-type": "text/plain" }).end(big);
  });
  await assert.rejects((await transportFetch(`${server.origin}/small`, { size: 50 })).text(), { type: "max-size" });
  assert.equal((await (await transportFetch(`${server.origin}/small`, { size: 100 })).text()).length, 100);
  assert.equal((await (await transportFetch(`${server.origin}/small`, { size: 0 })).text()).length, 100);
  await assert.rejects((await transportFetch(`${server.origin}/big`)).text(), { type: "max-size" });
  const unbounded = await transportFetch(`${server.origin}/big`, { size: 0 });
  await assert.rejects(unbounded.text(), { type: "max-size" }, "size 0 (node-fetch's none): MAX_REPLY_BYTES");
  const streamed = await transportFetch(`${server.origin}/big`, { responseType: "stream" });
  assert.equal((await streamed.arrayBuffer()).byteLength, big.length);
});

test("transportFetch: another host through HTTPS_PROXY, loopback straight, whatever agent gaxios chose", async (t) => {
  const proxy = await recordingProxy(t);
  const local = await listen(t, "127.0.0.1", (_req, res) => ok(res));
  const saved = process.env.HTTPS_PROXY;
  process.env.HTTPS_PROXY = proxy.url;
  t.after(() => {
    if (saved === undefined) delete process.env.HTTPS_PROXY;
    else process.env.HTTPS_PROXY = saved;
  });
  // The proxy refuses the tunnel: an error or its 502, either way the request went to it.
  await transportFetch("http://transport-test.invalid/x").catch(() => undefined);
  assert.deepEqual(proxy.crossed, ["CONNECT transport-test.invalid:80"]);
  const gaxiosAgent = agentFor(new URL("https://oauth2.googleapis.com/"), undefined);
  const answer = await transportFetch(`${local.origin}/token`, { agent: gaxiosAgent });
  assert.equal(answer.status, 200);
  assert.deepEqual(proxy.crossed, ["CONNECT transport-test.invalid:80"], "loopback did not cross the proxy");
});

test("requestSecrets: header values, the body and its form values, the URL's user name and password", () => {
  assert.deepEqual(requestSecrets("https://u:p%2Fw@a.example/", { headers: { A: "h1" }, body: "x=1&y=two" }), [
    "h1",
    "x=1&y=two",
    "1",
    "two",
    "u",
    "p%2Fw",
    "p/w",
  ]);
  assert.deepEqual(requestSecrets("not a url", {}), []);
});
