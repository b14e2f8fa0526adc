// The one transport (src/trust/transport.ts), played by the attacker on loopback: every request
// cred-auth makes or causes, google-auth-library's own included, goes through it.
// - A trusted first hop answers 307 to another host: nothing of the request follows it (print-token
//   for a user file, print-identity-token, a key file's JWT assertion, login's client check,
//   default() with an external_account file).
// - HTTPS_PROXY is set: nothing bound for the emulator crosses the proxy (the impersonation Bearer
//   token, the federation subject token), while Google's hosts, and a subject-token URL elsewhere, do.
// - HTTP_PROXY and HTTPS_PROXY set: every client kind default() returns, every method a user can call
//   on it, and cred-auth's ID tokens for clients the caller built: nothing for loopback crosses it.
// - An echoing STS behind default()'s federation clients: a later refresh's error holds no client
//   secret, Basic header, subject token or refresh token, anywhere reachable from it.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { DEFAULT_WORKFORCE_AUDIENCE, DEFAULT_WORKLOAD_AUDIENCE, DEMO_CLIENT } from "cred-auth/emulator";
import { withEmulator, workloadFileJson, workloadPrincipal } from "../support/emulator.ts";
import { tempDir, testPrivateKey } from "../support/files.ts";
import { type GoogleProxy, startGoogleProxy } from "../support/google-proxy.ts";
import { recordingProxy } from "../support/net.ts";
import { findPeerTools } from "../support/peers.ts";
import { CLI, ROOT, echoes, isolatedEnv, runNode } from "./support.ts";

const emu = await withEmulator();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const hasOpenssl = Boolean(findPeerTools().openssl);

/** Google-shaped secrets, with the `/`, `+` and `=` that make each encoding differ. */
const CLIENT_ID = "764086051850-victim.apps.googleusercontent.com";
const CLIENT_SECRET = "GOCSPX-Client/Secret+Val=ue";
const REFRESH = "1//0gVictimRefresh/Token+Only=Hers";
const SUBJECT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjaSJ9+/=.c2lnbmF0dXJl/+=";

interface Seen {
  method: string;
  path: string;
  body: string;
  headers: IncomingMessage["headers"];
}

/** A loopback HTTP server on `host` recording every request; `answer` replies. */
async function listen(
  t: TestContext,
  host: string,
  answer: (req: IncomingMessage, body: string, res: ServerResponse, seen: Seen[]) => void,
): Promise<{ origin: string; host: string; requests: Seen[] }> {
  const requests: Seen[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      requests.push({ method: req.method ?? "", path: req.url ?? "", body, headers: req.headers });
      answer(req, body, res, requests);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as { port: number };
  return { origin: `http://${host}:${port}`, host: `${host}:${port}`, requests };
}

/** Another host (127.0.0.2: loopback, but not the origin anyone judged) that takes whatever it is sent. */
function thief(t: TestContext) {
  return listen(t, "127.0.0.2", (_req, _body, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ access_token: "ya29.stolen-and-accepted", expires_in: 3600, token_type: "Bearer" }));
  });
}

/** A first hop that sends every request on to `to` with a 307 (method and body kept, as fetch would follow). */
function redirector(t: TestContext, to: string) {
  return listen(t, "127.0.0.1", (req, _body, res) => {
    res.writeHead(307, { location: `${to}/stolen${req.url ?? ""}` });
    res.end();
  });
}

function userFile(dir: string, tokenUri: string): string {
  const path = join(dir, "user.json");
  writeFileSync(
    path,
    JSON.stringify({
      type: "authorized_user",
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      refresh_token: REFRESH,
      token_uri: tokenUri,
    }),
    { mode: 0o600 },
  );
  return path;
}

function assertNothingFollowed(stolen: Seen[], what: string): void {
  assert.deepEqual(
    stolen.map((r) => `${r.method} ${r.path} ${r.body.slice(0, 40)}`),
    [],
    `${what}: the redirect to another host was followed`,
  );
}

test("a token server redirecting to another host: print-token and print-identity-token for a user file send it nothing", async (t) => {
  const home = tempDir(t);
  const stolen = await thief(t);
  const first = await redirector(t, stolen.origin);
  const path = userFile(home, `${first.origin}/token`);
  const env = isolatedEnv(home, { CRED_AUTH_TOKEN_CACHE: join(home, "tokens") });
  const token = await runNode([CLI, "print-token", path], { env });
  assert.notEqual(token.code, 0, token.stdout);
  assert.ok(!token.stdout.includes("stolen"), token.stdout);
  const id = await runNode([CLI, "print-identity-token", path], { env });
  assert.notEqual(id.code, 0, id.stdout);
  assert.ok(first.requests.length >= 2, "both asked the file's token server");
  assertNothingFollowed(stolen.requests, "print-token / print-identity-token");
});

test("a token server redirecting to another host: a key file's JWT assertion stays with it", async (t) => {
  const home = tempDir(t);
  const stolen = await thief(t);
  const first = await redirector(t, stolen.origin);
  const path = join(home, "key.json");
  writeFileSync(
    path,
    JSON.stringify({
      type: "service_account",
      project_id: "p",
      private_key_id: "kid-1",
      private_key: testPrivateKey(),
      client_email: "robot@p.iam.gserviceaccount.com",
      client_id: "1234567890",
      token_uri: `${first.origin}/token`,
    }),
    { mode: 0o600 },
  );
  const r = await runNode([CLI, "print-token", path], {
    env: isolatedEnv(home, { CRED_AUTH_TOKEN_CACHE: join(home, "tokens") }),
  });
  assert.notEqual(r.code, 0, r.stdout);
  assert.ok(
    first.requests.some((q) => q.body.includes("assertion=")),
    "the assertion went to the file's server",
  );
  assertNothingFollowed(stolen.requests, "key file");
});

test("a token server redirecting to another host: login's client check does not carry the client secret there", async (t) => {
  const home = tempDir(t);
  const stolen = await thief(t);
  const first = await redirector(t, stolen.origin);
  const script = `
    const { planSignIn } = require("./dist/credentials/sign-in/plan.js");
    const { checkClient } = require("./dist/oauth/client-check.js");
    const plan = planSignIn(
      { scopes: ["${CLOUD}"], options: { clientId: ${JSON.stringify(CLIENT_ID)}, clientSecret: ${JSON.stringify(CLIENT_SECRET)}, useLocalWebserver: true } },
      { env: process.env, settings: () => ({}) },
    ).flow;
    checkClient(plan, "http://localhost:8080/").then(() => console.log("went on"), (e) => console.log("refused " + e.code));`;
  const r = await runNode(["-e", script], {
    env: isolatedEnv(home, { CRED_AUTH_EMULATOR_HOST: first.host }),
  });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(
    first.requests.some((q) => q.body.includes("client_secret=")),
    r.stdout + r.stderr,
  );
  assertNothingFollowed(stolen.requests, "client check");
});

/** default() in a child with GOOGLE_APPLICATION_CREDENTIALS=path: a token, then (`again`) a later refresh's error, inspected whole. */
function defaultChild(path: string, env: NodeJS.ProcessEnv, again = false) {
  const script = `
    const { inspect } = require("node:util");
    const credAuth = require(${JSON.stringify(join(ROOT, "dist", "index.js"))});
    (async () => {
      try {
        const [credentials] = await credAuth.default([${JSON.stringify(CLOUD)}], { hosted: false });
        const { token } = await credentials.getAccessToken();
        console.log("TOKEN " + token.slice(0, 12));
        if (${again}) {
          credentials.credentials = { ...credentials.credentials, expiry_date: Date.now() - 1000 };
          if (credentials.cachedAccessToken) credentials.cachedAccessToken.expiry_date = Date.now() - 1000;
          await credentials.getAccessToken();
          console.log("SECOND REFRESH WORKED");
        }
      } catch (e) {
        console.log("ERROR " + e.name + " " + e.code);
        console.log(inspect(e, { depth: 30, showHidden: true, getters: true }));
        const seen = new Set();
        const walk = (v, depth) => {
          if (!v || typeof v !== "object" || seen.has(v) || depth > 12) return;
          seen.add(v);
          for (const key of [...Object.getOwnPropertyNames(v), "cause", "config", "response", "error", "data", "body", "headers"]) {
            let value;
            try { value = v[key]; } catch { continue; }
            if (typeof value === "string") console.log("FIELD " + key + " " + value);
            else if (value instanceof Headers) value.forEach((h, n) => console.log("HEADER " + n + " " + h));
            else if (value instanceof URLSearchParams) console.log("PARAMS " + value.toString());
            else walk(value, depth + 1);
          }
        };
        walk(e, 0);
      }
    })();`;
  return runNode(["-e", script], { env: { ...env, GOOGLE_APPLICATION_CREDENTIALS: path }, killAfterMs: 40_000 });
}

test("an STS redirecting to another host: default() with an external_account file keeps the subject token", async (t) => {
  const home = tempDir(t);
  const stolen = await thief(t);
  const first = await redirector(t, stolen.origin);
  const subject = join(home, "subject.jwt");
  writeFileSync(subject, SUBJECT);
  const path = join(home, "wif.json");
  writeFileSync(path, JSON.stringify(workloadFileJson(subject)));
  const r = await defaultChild(
    path,
    isolatedEnv(home, { CRED_AUTH_EMULATOR_HOST: first.host, CRED_AUTH_TOKEN_CACHE: join(home, "tokens") }),
  );
  assert.match(r.stdout, /^ERROR /, r.stdout);
  assert.ok(
    first.requests.some((q) => q.body.includes("subject_token=")),
    "STS (the emulator's address) was asked",
  );
  assertNothingFollowed(stolen.requests, "external_account");
});

test("HTTPS_PROXY set: nothing bound for the emulator crosses it (STS's subject token, IAM's Bearer token)", async (t) => {
  const home = tempDir(t);
  const proxy = await recordingProxy(t);
  const target = "proxy-runner@p.iam.gserviceaccount.com";
  emu.addServiceAccount({ email: target, tokenCreators: [workloadPrincipal("proxy-job")] });
  const subject = join(home, "subject.jwt");
  writeFileSync(subject, emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, subject: "proxy-job" }));
  const path = join(home, "wif.json");
  writeFileSync(
    path,
    JSON.stringify(
      workloadFileJson(subject, {
        service_account_impersonation_url: `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${target}:generateAccessToken`,
      }),
    ),
  );
  for (const variable of ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY"]) {
    const env = isolatedEnv(home, {
      CRED_AUTH_EMULATOR_HOST: emu.host,
      CRED_AUTH_TOKEN_CACHE: join(home, `tokens-${variable}`),
      [variable]: proxy.url,
    });
    const r = await defaultChild(path, env);
    assert.match(r.stdout, /^TOKEN /, `${variable}: ${r.stdout}${r.stderr}`);
    const cli = await runNode([CLI, "print-token", path], { env: { ...env, CRED_AUTH_TOKEN_CACHE: join(home, "t2") } });
    assert.equal(cli.code, 0, cli.stderr);
  }
  assert.deepEqual(proxy.crossed, [], "no request for loopback went through the proxy");
});

test("HTTPS_PROXY set: a subject-token URL on another host goes through it (and NO_PROXY keeps it away)", async (t) => {
  const home = tempDir(t);
  const proxy = await recordingProxy(t);
  const path = join(home, "wif-url.json");
  writeFileSync(
    path,
    JSON.stringify({
      ...workloadFileJson("unused"),
      credential_source: { url: "https://subject-token.example/token", headers: { "x-secret-header": SUBJECT } },
    }),
  );
  const env = isolatedEnv(home, { CRED_AUTH_EMULATOR_HOST: emu.host, HTTPS_PROXY: proxy.url });
  const through = await runNode([CLI, "print-token", path], { env });
  assert.notEqual(through.code, 0);
  assert.deepEqual(proxy.crossed, ["CONNECT subject-token.example:443"], through.stderr);
  const bypassed = await runNode([CLI, "print-token", path], {
    env: { ...env, NO_PROXY: ".example" },
  });
  assert.notEqual(bypassed.code, 0);
  assert.deepEqual(proxy.crossed, ["CONNECT subject-token.example:443"], "NO_PROXY names it: not through the proxy");
  assert.ok(!(through.stderr + bypassed.stderr).includes(SUBJECT));
});

test("HTTPS_PROXY set: Google's token endpoint is reached through it", {
  skip: hasOpenssl ? false : "openssl is missing",
}, async (t) => {
  const home = tempDir(t);
  const google: GoogleProxy = await startGoogleProxy(emu);
  t.after(() => google.close());
  const refreshToken = emu.issueRefreshToken({ clientId: DEMO_CLIENT.clientId, scopes: [CLOUD] });
  const path = join(home, "user.json");
  writeFileSync(
    path,
    JSON.stringify({
      type: "authorized_user",
      client_id: DEMO_CLIENT.clientId,
      client_secret: DEMO_CLIENT.clientSecret,
      refresh_token: refreshToken,
    }),
  );
  const r = await runNode([CLI, "print-token", path], {
    env: isolatedEnv(home, {
      HTTPS_PROXY: google.url,
      NODE_EXTRA_CA_CERTS: google.caFile,
      CRED_AUTH_TOKEN_CACHE: join(home, "tokens"),
    }),
  });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    google.forwarded.map((f) => `${f.host}${f.path}`),
    ["oauth2.googleapis.com/token"],
  );
});

/**
 * STS standing in as the emulator: the first exchange or refresh is answered with a short-lived
 * token, every later one with a 400 that echoes the whole request (body and headers, raw and encoded).
 */
function echoingSts(t: TestContext) {
  return listen(t, "127.0.0.1", (req, body, res, seen) => {
    if (seen.length === 1) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          access_token: "ya29.first-token-from-sts",
          issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
          token_type: "Bearer",
          expires_in: 3600,
        }),
      );
      return;
    }
    const echo = `${body} ${JSON.stringify(req.headers)} ${encodeURIComponent(body)} ${Buffer.from(body).toString("base64")}`;
    res.writeHead(400, { "content-type": "application/json", "x-echo": encodeURIComponent(body).slice(0, 2000) });
    res.end(
      JSON.stringify({ error: "invalid_request", error_description: echo, request: { body, headers: req.headers } }),
    );
  });
}

test("an echoing STS behind default()'s federation clients: a later refresh's error holds none of the request's secrets", async (t) => {
  const home = tempDir(t);
  const basic = Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString("base64");
  const formBasic = Buffer.from(`${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(CLIENT_SECRET)}`).toString(
    "base64",
  );
  const secrets = [CLIENT_SECRET, SUBJECT, REFRESH, basic, formBasic];
  const subject = join(home, "subject.jwt");
  writeFileSync(subject, SUBJECT);
  const files = {
    workload: workloadFileJson(subject, { client_id: CLIENT_ID, client_secret: CLIENT_SECRET }),
    workforce: {
      type: "external_account_authorized_user",
      audience: DEFAULT_WORKFORCE_AUDIENCE,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      refresh_token: REFRESH,
      token_url: "https://sts.googleapis.com/v1/oauthtoken",
      token_info_url: "https://sts.googleapis.com/v1/introspect",
    },
  };
  for (const [name, json] of Object.entries(files)) {
    const sts = await echoingSts(t);
    const path = join(home, `${name}.json`);
    writeFileSync(path, JSON.stringify(json), { mode: 0o600 });
    const r = await defaultChild(
      path,
      isolatedEnv(home, { CRED_AUTH_EMULATOR_HOST: sts.host, CRED_AUTH_TOKEN_CACHE: join(home, `tokens-${name}`) }),
      true,
    );
    assert.match(r.stdout, /^TOKEN ya29\.first-t\nERROR /, `${name}: ${r.stdout}${r.stderr}`);
    assert.equal(sts.requests.length, 2, `${name}: the later refresh asked the echoing STS`);
    const sent = sts.requests[1]!;
    assert.ok(
      name === "workload" ? sent.body.includes("subject_token=") : sent.body.includes("refresh_token="),
      sent.body,
    );
    assert.match(String(sent.headers.authorization), /^Basic /, `${name}: the client authenticated with Basic`);
    const out = r.stdout + r.stderr;
    for (const secret of secrets)
      for (const form of echoes(secret))
        assert.ok(
          !out.includes(form),
          `${name}: a form of a secret is reachable from the error (${form.slice(0, 14)}...)`,
        );
  }
});

/**
 * In a child: the client `KIND` names (default()'s, or one the caller built), then every method a
 * user may call on it that makes a request (on a caller's own client, only cred-auth's: its own
 * methods are its gaxios's); prints `NAME ok` or `NAME failed CODE` for each.
 */
const everyMethod = `
  const credAuth = require(${JSON.stringify(join(ROOT, "dist", "index.js"))});
  const gal = require("google-auth-library");
  const { KIND, EMU, AUD, CLIENT_ID, CLIENT_SECRET, REFRESH, KEY } = process.env;
  const API = EMU + "/storage/v1/b/every-bucket/o";
  (async () => {
    const client =
      KIND === "user-built"
        ? new gal.UserRefreshClient({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, refreshToken: REFRESH, endpoints: { oauth2TokenUrl: EMU + "/token" } })
        : KIND === "key-built"
          ? new gal.JWT({ ...JSON.parse(KEY), scopes: ["${CLOUD}"] })
          : (await credAuth.default(["${CLOUD}"], { hosted: false, credentialsCache: credAuth.cache.NOOP }))[0];
    const audience = KIND === "user-built" ? CLIENT_ID : AUD;
    const token = async () => (await client.getAccessToken()).token;
    const ours = {
      fetchIdToken: () => credAuth.fetchIdToken(audience, { credentials: client }),
      idTokenClient: async () => (await credAuth.getIdTokenClient(audience, { credentials: client })).request({ url: AUD }),
    };
    const calls = KIND ? ours : {
      getAccessToken: token,
      getRequestHeaders: () => client.getRequestHeaders(),
      request: () => client.request({ url: API }),
      fetch: () => client.fetch(API),
      refreshAccessToken: () => client.refreshAccessToken?.(),
      getTokenInfo: async () => client.getTokenInfo?.(await token()),
      getProjectId: () => client.getProjectId?.(),
      sign: () => client.sign?.("blob"),
      authorize: () => client.authorize?.(),
      ownFetchIdToken: () => client.fetchIdToken?.(AUD),
      ...ours,
      revokeCredentials: () => client.revokeCredentials?.(),
    };
    for (const [name, call] of Object.entries(calls))
      console.log(name + " " + (await Promise.resolve().then(call).then(() => "ok", (e) => "failed " + String(e && (e.code || e.status || e.message)).slice(0, 80))));
  })();`;

test("HTTP_PROXY and HTTPS_PROXY set: every client kind, and every method a user can call on it, reaches loopback without the proxy", async (t) => {
  const home = tempDir(t);
  const proxy = await recordingProxy(t);
  const target = "every-method@p.iam.gserviceaccount.com";
  emu.addServiceAccount({ email: target, tokenCreators: ["user:alice@example.com"] });
  emu.setMetadata({ projectId: "vm-project", email: "vm@vm-project.iam.gserviceaccount.com" });
  t.after(() => emu.setMetadata(null));
  const audience = emu.addRunService({ name: "every-method" });
  const scopes = ["openid", "https://www.googleapis.com/auth/userinfo.email", CLOUD];
  // One account each: revokeCredentials() ends a whole grant.
  const user = (account: string) => ({
    type: "authorized_user",
    ...DEMO_CLIENT_FIELDS,
    refresh_token: emu.issueRefreshToken({ clientId: DEMO_CLIENT.clientId, scopes, account }),
  });
  const subject = join(home, "subject.jwt");
  writeFileSync(subject, emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, subject: "every-job" }));
  const key = emu.createServiceAccountKey({ projectId: "key-project" });
  const files: Record<string, object> = {
    user: user("bob@example.com"),
    key,
    impersonated: {
      type: "impersonated_service_account",
      service_account_impersonation_url: `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${target}:generateAccessToken`,
      source_credentials: user("alice@example.com"),
      delegates: [],
    },
    workload: workloadFileJson(subject),
    workforce: { ...emu.issueExternalAccountAuthorizedUser(), token_url: "https://sts.googleapis.com/v1/oauthtoken" },
  };
  const kinds: [string, NodeJS.ProcessEnv][] = [
    ...Object.entries(files).map(([name, json]): [string, NodeJS.ProcessEnv] => {
      const path = join(home, `${name}.json`);
      writeFileSync(path, JSON.stringify(json), { mode: 0o600 });
      return [name, { GOOGLE_APPLICATION_CREDENTIALS: path }];
    }),
    ["metadata", { GCE_METADATA_HOST: emu.host }],
    ["user-built", { KIND: "user-built", ...callerSecrets(user("carol@example.com")) }],
    ["key-built", { KIND: "key-built", KEY: JSON.stringify({ email: key.client_email, key: key.private_key }) }],
  ];
  const results: Record<string, string[]> = {};
  for (const [name, extra] of kinds) {
    const env = isolatedEnv(home, {
      CRED_AUTH_EMULATOR_HOST: emu.host,
      CRED_AUTH_TOKEN_CACHE: join(home, `tokens-${name}`),
      HTTP_PROXY: proxy.url,
      HTTPS_PROXY: proxy.url,
      EMU: emu.url,
      AUD: audience,
      ...extra,
    });
    const r = await runNode(["-e", everyMethod], { env, killAfterMs: 60_000 });
    results[name] = r.stdout.trim().split("\n");
    assert.equal(results[name].length, extra.KIND ? 2 : 13, `${name}: ${r.stdout}${r.stderr}`);
  }
  const loopback = proxy.crossed.filter((c) => /127\.0\.0\.1|localhost|\[::1\]/.test(c));
  assert.deepEqual(loopback, [], "a request for loopback crossed the proxy");
  // Every call was made and answered (a refusal is an answer); those that escaped before worked.
  assert.ok(results.metadata?.includes("ownFetchIdToken ok"), results.metadata?.join("\n"));
  // (A user's own token is no Cloud Run token: the service's 401 is its answer.)
  assert.deepEqual(results["user-built"], ["fetchIdToken ok", "idTokenClient failed 401"]);
  assert.deepEqual(results["key-built"], ["fetchIdToken ok", "idTokenClient ok"]);
  for (const [name, lines] of Object.entries(results))
    if (!name.endsWith("-built")) assert.ok(lines.includes("getAccessToken ok"), `${name}: ${lines.join("\n")}`);
});

const DEMO_CLIENT_FIELDS = { client_id: DEMO_CLIENT.clientId, client_secret: DEMO_CLIENT.clientSecret };

function callerSecrets(file: { refresh_token: string }): NodeJS.ProcessEnv {
  return { CLIENT_ID: DEMO_CLIENT.clientId, CLIENT_SECRET: DEMO_CLIENT.clientSecret, REFRESH: file.refresh_token };
}
