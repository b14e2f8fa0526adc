// The fake Google APIs (storage, userinfo) and service-account jwt-bearer grants, over real HTTP.
import { test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { withEmulator } from "../support/emulator.ts";
import { verifyIdToken } from "../support/id-tokens.ts";
import { postForm, signAssertion, tokenRequest } from "./support.ts";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const emu = await withEmulator();

async function accessToken(scopes: string[], account?: string): Promise<string> {
  const refreshToken = emu.issueRefreshToken({ scopes, ...(account ? { account } : {}) });
  const reply = await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: refreshToken });
  return String(reply.json.access_token);
}

const get = (path: string, token?: string) =>
  fetch(`${emu.url}${path}`, token ? { headers: { Authorization: `Bearer ${token}` } } : {});

test("storage: list and download demo-bucket with a cloud-platform or devstorage token", async () => {
  const before = emu.stats().apiRequests;
  const token = await accessToken([CLOUD]);
  const list = await get("/storage/v1/b/demo-bucket/o", token);
  assert.equal(list.status, 200);
  const body = (await list.json()) as { kind: string; items: { name: string; size: string; bucket: string }[] };
  assert.equal(body.kind, "storage#objects");
  assert.deepEqual(
    body.items.map((i) => i.name),
    ["hello.txt"],
  );
  assert.equal(body.items[0].size, String("Hello from the cred-auth emulator!\n".length));
  const download = await get("/storage/v1/b/demo-bucket/o/hello.txt?alt=media", token);
  assert.equal(download.status, 200);
  assert.equal(await download.text(), "Hello from the cred-auth emulator!\n");
  assert.match(download.headers.get("x-goog-hash") ?? "", /crc32c=.+,md5=.+/);
  const meta = (await (await get("/storage/v1/b/demo-bucket/o/hello.txt", token)).json()) as {
    name: string;
    contentType: string;
  };
  assert.equal(meta.contentType, "text/plain");
  const readOnly = await accessToken(["https://www.googleapis.com/auth/devstorage.read_only"]);
  assert.equal((await get("/storage/v1/b/demo-bucket/o/hello.txt?alt=media", readOnly)).status, 200);
  assert.equal(emu.stats().apiRequests, before + 4);
});

test("storage: missing, unknown and revoked tokens are 401 UNAUTHENTICATED; a token without a storage scope is 403", async () => {
  for (const token of [undefined, "ya29.unknown"]) {
    const res = await get("/storage/v1/b/demo-bucket/o", token);
    assert.equal(res.status, 401);
    const body = (await res.json()) as { error: { code: number; status: string; message: string } };
    assert.equal(body.error.code, 401);
    assert.equal(body.error.status, "UNAUTHENTICATED");
    assert.ok(body.error.message.length > 0);
  }
  const revoked = await accessToken([CLOUD]);
  await postForm(`${emu.url}/revoke`, { token: revoked });
  assert.equal((await get("/storage/v1/b/demo-bucket/o", revoked)).status, 401);
  const wrongScope = await accessToken(["email"]);
  const res = await get("/storage/v1/b/demo-bucket/o", wrongScope);
  assert.equal(res.status, 403);
  assert.equal(((await res.json()) as { error: { status: string } }).error.status, "PERMISSION_DENIED");
});

test("storage: unknown bucket and object are 404, malformed escapes 400, other methods 405", async () => {
  const token = await accessToken([CLOUD]);
  assert.equal((await get("/storage/v1/b/nope/o", token)).status, 404);
  assert.equal((await get("/storage/v1/b/demo-bucket/o/missing.txt?alt=media", token)).status, 404);
  assert.equal((await get("/storage/v1/b/demo-bucket/o/%E0%A4%A", token)).status, 400);
  const del = await fetch(`${emu.url}/storage/v1/b/demo-bucket/o/hello.txt`, {
    method: "DELETE",
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(del.status, 405);
  assert.equal((await get("/no/such/api", token)).status, 404);
});

test("userinfo: e-mail and subject of the token's account", async () => {
  const token = await accessToken(["email"], "bob@example.com");
  const info = (await (await get("/oauth2/v3/userinfo", token)).json()) as { email: string; sub: string };
  assert.equal(info.email, "bob@example.com");
  assert.match(info.sub, /^\d{21}$/);
  assert.equal((await get("/oauth2/v3/userinfo")).status, 401);
});

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

test("service accounts: a key from createServiceAccountKey signs a jwt-bearer assertion for an access token", async () => {
  const key = emu.createServiceAccountKey({ projectId: "sa-project" });
  assert.equal(key.type, "service_account");
  assert.equal(key.project_id, "sa-project");
  assert.match(key.client_email, /@sa-project\.iam\.gserviceaccount\.com$/);
  assert.equal(key.token_uri, `${emu.url}/token`);
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: key.client_email, scope: CLOUD, aud: key.token_uri, iat: now, exp: now + 3600 };
  const before = emu.stats().byGrant[JWT_BEARER] ?? 0;
  const reply = await postForm(`${emu.url}/token`, {
    grant_type: JWT_BEARER,
    assertion: signAssertion(key.private_key, claims, { alg: "RS256", typ: "JWT", kid: key.private_key_id }),
  });
  assert.equal(reply.status, 200, JSON.stringify(reply.json));
  assert.equal(reply.json.token_type, "Bearer");
  const info = emu.checkAccessToken(String(reply.json.access_token));
  assert.equal(info?.account, key.client_email);
  assert.deepEqual(info?.scopes, [CLOUD]);
  assert.equal(emu.stats().byGrant[JWT_BEARER], before + 1);
  assert.equal((await get("/storage/v1/b/demo-bucket/o", String(reply.json.access_token))).status, 200);

  // Google's audience (what google-auth-library's JWT client always sends) is accepted too.
  const googleAud = await postForm(`${emu.url}/token`, {
    grant_type: JWT_BEARER,
    assertion: signAssertion(key.private_key, { ...claims, aud: "https://oauth2.googleapis.com/token" }),
  });
  assert.equal(googleAud.status, 200);
  const idToken = await postForm(`${emu.url}/token`, {
    grant_type: JWT_BEARER,
    assertion: signAssertion(key.private_key, { ...claims, scope: undefined, target_audience: "https://svc.example" }),
  });
  assert.deepEqual(Object.keys(idToken.json), ["id_token"]);
  const verified = await verifyIdToken(emu, String(idToken.json.id_token), "https://svc.example");
  assert.equal(verified.email, key.client_email);
});

test("service accounts: bad signature, unknown account, wrong audience, expired or long-lived assertions are refused", async () => {
  const key = emu.createServiceAccountKey();
  const other = emu.createServiceAccountKey();
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: key.client_email, scope: CLOUD, aud: key.token_uri, iat: now, exp: now + 3600 };
  const attempt = async (assertion: string) => postForm(`${emu.url}/token`, { grant_type: JWT_BEARER, assertion });
  const cases: [string, string][] = [
    [signAssertion(other.private_key, claims), "invalid_grant"],
    [signAssertion(key.private_key, { ...claims, iss: "ghost@x.iam.gserviceaccount.com" }), "invalid_grant"],
    [signAssertion(key.private_key, { ...claims, aud: "https://elsewhere.example/token" }), "invalid_grant"],
    [signAssertion(key.private_key, { ...claims, iat: now - 7200, exp: now - 3600 }), "invalid_grant"],
    [signAssertion(key.private_key, { ...claims, exp: now + 86400 }), "invalid_grant"],
    [signAssertion(key.private_key, claims, { alg: "none" }), "invalid_grant"],
    [signAssertion(key.private_key, { ...claims, scope: undefined }), "invalid_scope"],
    ["not-a-jwt", "invalid_grant"],
  ];
  for (const [assertion, error] of cases) {
    const reply = await attempt(assertion);
    assert.equal(reply.status, 400);
    assert.equal(reply.json.error, error);
  }
  assert.equal((await postForm(`${emu.url}/token`, { grant_type: JWT_BEARER })).json.error, "invalid_request");
});

test("robustness: oversized bodies, bad JSON, raw garbage and odd paths never crash the emulator", async () => {
  const big = await fetch(`${emu.url}/token`, {
    method: "POST",
    body: "a=".padEnd(200_000, "x"),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
  assert.equal(big.status, 413);
  const badJson = await fetch(`${emu.url}/token`, {
    method: "POST",
    body: "{",
    headers: { "Content-Type": "application/json" },
  });
  assert.equal(badJson.status, 400);
  const json = await fetch(`${emu.url}/token`, {
    method: "POST",
    body: JSON.stringify({ grant_type: "refresh_token", refresh_token: 5 }),
    headers: { "Content-Type": "application/json" },
  });
  assert.equal(json.status, 400);
  const raw = await new Promise<string>((resolve) => {
    const req = request(
      { host: "127.0.0.1", port: Number(new URL(emu.url).port), method: "GET", path: "//..%2f..?x=%zz" },
      (res) => {
        res.resume();
        resolve(String(res.statusCode));
      },
    );
    req.on("error", (e) => resolve(e.message));
    req.end();
  });
  assert.match(raw, /^[45]\d\d$/);
  const net = await import("node:net");
  const status = await new Promise<string>((resolve) => {
    const socket: import("node:net").Socket = net.connect(Number(new URL(emu.url).port), "127.0.0.1", () =>
      socket.write("NOT HTTP AT ALL\r\n\r\n"),
    );
    let data = "";
    socket.on("data", (d: Buffer) => {
      data += d.toString();
    });
    socket.on("close", () => resolve(data));
    socket.on("error", () => resolve(data));
  });
  assert.match(status, /^HTTP\/1\.1 400/);
  assert.equal(
    (await fetch(`${emu.url}/computeMetadata/v1/project/project-id`, { headers: { "Metadata-Flavor": "Google" } }))
      .status,
    404,
  );
});
