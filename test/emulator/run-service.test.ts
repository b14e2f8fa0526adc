// Protected services (`/run/NAME`): private Cloud Run services that let a request through only with
// a valid Google ID token for their URL from an invoker, reached by google-auth-library's IdTokenClient.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GoogleAuth, type JWT } from "google-auth-library";
import { startEmulator } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { decodeJwtParts, pointJwtAt, refreshGrant } from "../support/id-tokens.ts";
import { postForm, serviceAccountAccessToken, signAssertion } from "./support.ts";

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const GCLOUD_CLIENT = {
  clientId: "32555940559.apps.googleusercontent.com",
  clientSecret: "gcloud-secret",
  type: "installed" as const,
  project: "cloudsdktool",
};
const emu = await withEmulator({
  clients: [GCLOUD_CLIENT],
  runServices: [{ name: "custom", customAudiences: ["https://api.example.com"] }],
});
const home = mkdtempSync(join(tmpdir(), "cred-auth-run-"));
const key = emu.createServiceAccountKey({ projectId: "run-project" });
const other = emu.createServiceAccountKey({ projectId: "run-project" });

/** A service account key's ID token for `audience`, straight from the JWT-bearer grant. */
async function idTokenFor(audience: string, account = key): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    iss: account.client_email,
    aud: account.token_uri,
    iat: now,
    exp: now + 3600,
    target_audience: audience,
  };
  const reply = await postForm(`${emu.url}/token`, {
    grant_type: JWT_BEARER,
    assertion: signAssertion(account.private_key, claims),
  });
  return String(reply.json.id_token);
}

function call(path: string, headers: Record<string, string> = {}, method = "GET") {
  return fetch(`${emu.url}${path}`, { method, headers });
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

async function assertRefused(res: Response, status: 401 | 403, path: string): Promise<void> {
  assert.equal(res.status, status, path);
  assert.match(String(res.headers.get("content-type")), /^text\/html/);
  const body = await res.text();
  if (status === 401) {
    assert.match(body, /<title>401 Unauthorized<\/title>/);
    assert.match(body, /<h1>Error: Unauthorized<\/h1>/);
    assert.ok(body.includes(`Your client does not have permission to the requested URL <code>${path}</code>.`), body);
  } else {
    assert.match(body, /<title>403 Forbidden<\/title>/);
    assert.ok(
      body.includes(`Your client does not have permission to get URL <code>${path}</code> from this server.`),
      body,
    );
  }
}

test("google-auth-library's IdTokenClient (GoogleAuth with a key file) reaches a protected service", async (t) => {
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const keyFile = join(home, "key.json");
  writeFileSync(keyFile, JSON.stringify(key), { mode: 0o600 });
  const auth = new GoogleAuth({ keyFile });
  const jwt = (await auth.getClient()) as JWT;
  pointJwtAt(jwt, key.token_uri);
  const url = `${emu.url}/run/hello`;
  const before = emu.stats();
  const client = await auth.getIdTokenClient(url);
  const res = await client.request<Record<string, unknown>>({ url: `${url}/greet?name=x`, method: "POST" });
  assert.equal(res.status, 200);
  assert.deepEqual(res.data, {
    service: "hello",
    method: "POST",
    path: "/greet",
    caller: { sub: key.client_id, email: key.client_email, aud: url },
  });
  const after = emu.stats();
  assert.equal(after.runRequests, before.runRequests + 1);
  assert.equal(after.runRefusals, before.runRefusals);
  assert.equal(after.idTokensBySource["jwt-bearer"], (before.idTokensBySource["jwt-bearer"] ?? 0) + 1);
});

test("the audience must be the service's URL (a trailing slash allowed), not another service's, not a longer path", async () => {
  const url = `${emu.url}/run/hello`;
  assert.equal(
    (await call("/run/hello", bearer(await idTokenFor(`${url}/`)))).status,
    200,
    "Google's Go sample's form",
  );
  assert.equal((await call("/run/hello/", bearer(await idTokenFor(url)))).status, 200);
  for (const audience of [
    `${emu.url}/run/other`,
    `${url}/greet`,
    `${url}//`,
    emu.url,
    "https://hello-abc-uc.a.run.app",
  ])
    await assertRefused(await call("/run/hello/greet", bearer(await idTokenFor(audience))), 401, "/greet");
});

test("no credentials: 403; anything but a valid Google ID token: 401", async () => {
  const before = emu.stats().runRefusals;
  await assertRefused(await call("/run/hello"), 403, "/");
  const good = await idTokenFor(`${emu.url}/run/hello`);
  const [header, payload, signature] = good.split(".");
  const forged = `${header}.${Buffer.from(JSON.stringify({ ...decodeJwtParts(good).claims, email: "x@y.z" })).toString("base64url")}.${signature}`;
  const accessToken = await serviceAccountAccessToken(key, ["https://www.googleapis.com/auth/cloud-platform"]);
  for (const authorization of [
    `Bearer ${accessToken}`,
    `Bearer ${forged}`,
    `Bearer ${header}.${payload}.`,
    `Basic ${Buffer.from("a:b").toString("base64")}`,
    "Bearer",
    `Bearer ${good} extra`,
  ])
    await assertRefused(await call("/run/hello/x", { Authorization: authorization }), 401, "/x");
  assert.equal(emu.stats().runRefusals, before + 7);
});

test("an expired ID token, and one whose key was withdrawn, are refused", async (t) => {
  const url = `${emu.url}/run/hello`;
  const aged = await idTokenFor(url);
  const { exp } = decodeJwtParts(aged).claims as { exp: number };
  t.mock.timers.enable({ apis: ["Date"], now: exp * 1000 + 1 });
  try {
    await assertRefused(await call("/run/hello", bearer(aged)), 401, "/");
  } finally {
    t.mock.timers.reset();
  }
  const old = await idTokenFor(url);
  emu.rotateIdTokenKeys();
  assert.equal((await call("/run/hello", bearer(old))).status, 200, "one rotation on, its key is still published");
  emu.rotateIdTokenKeys();
  await assertRefused(await call("/run/hello", bearer(old)), 401, "/");
});

test("custom audiences, invokers (403 for others), X-Serverless-Authorization", async () => {
  const url = emu.addRunService({
    name: "private",
    customAudiences: ["https://private.example.com"],
    invokers: [`serviceAccount:${key.client_email.toUpperCase()}`],
  });
  assert.equal(url, `${emu.url}/run/private`);
  assert.equal((await call("/run/private", bearer(await idTokenFor("https://private.example.com")))).status, 200);
  assert.equal((await call("/run/private", bearer(await idTokenFor(url)))).status, 200, "the URL stays an audience");
  await assertRefused(await call("/run/private", bearer(await idTokenFor(url, other))), 403, "/");
  await assertRefused(await call("/run/private", bearer(await idTokenFor("https://api.example.com"))), 401, "/");
  assert.equal(
    (await call("/run/custom", bearer(await idTokenFor("https://api.example.com")))).status,
    200,
    "startEmulator's runServices",
  );

  // Cloud Run reads X-Serverless-Authorization first, leaving Authorization to the service.
  const serverless = {
    "X-Serverless-Authorization": `Bearer ${await idTokenFor(url)}`,
    Authorization: "Bearer app-token",
  };
  assert.equal((await call("/run/private", serverless)).status, 200);
  const wrong = { "X-Serverless-Authorization": "Bearer nope", Authorization: `Bearer ${await idTokenFor(url)}` };
  await assertRefused(await call("/run/private", wrong), 401, "/");
});

test("a user's ID token from gcloud's own client passes for any service; from another client it does not", async () => {
  const gcloud = await refreshGrant(emu, { client: GCLOUD_CLIENT, scopes: ["openid", "email"] });
  const res = await call("/run/hello", bearer(String(gcloud.json.id_token)));
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as { caller: { email: string } }).caller.email, "alice@example.com");
  const own = await refreshGrant(emu, { scopes: ["openid", "email"] });
  await assertRefused(await call("/run/hello", bearer(String(own.json.id_token))), 401, "/");
});

test("service names follow Cloud Run's rule; the admin API registers services; bad settings are refused", async () => {
  assert.equal((await call("/run/Not_A_Name", bearer(await idTokenFor(`${emu.url}/run/hello`)))).status, 404);
  const admin = (body: unknown) =>
    fetch(`${emu.url}/__emulator/run-service`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  const added = await admin({
    name: "from-admin",
    customAudiences: ["aud-1"],
    invokers: [`serviceAccount:${other.client_email}`],
  });
  assert.deepEqual(await added.json(), { url: `${emu.url}/run/from-admin` });
  assert.equal((await call("/run/from-admin", bearer(await idTokenFor("aud-1", other)))).status, 200);
  await assertRefused(await call("/run/from-admin", bearer(await idTokenFor("aud-1"))), 403, "/");
  for (const body of [
    { name: "Bad_Name" },
    { name: "ok", invokers: ["alice@example.com"] },
    { name: "ok", customAudiences: [""] },
    [],
  ])
    assert.equal((await admin(body)).status, 400, JSON.stringify(body));
  assert.throws(() => emu.addRunService({ name: "9starts-with-a-digit" }), RangeError);
  await assert.rejects(startEmulator({ runServices: [{ name: "ok", invokers: ["group:x@example.com"] }] }), RangeError);
});
