// Scopes per API method, as Google's discovery documents declare them (src/emulator/api-scopes.ts):
// BigQuery and Storage with each scope, Google's 403 body for a scope too narrow; userinfo's sign-in
// scopes; tokeninfo's fields per kind of token; the refresh-token limit per client and account.
import { test } from "node:test";
import assert from "node:assert/strict";
import { withEmulator } from "../support/emulator.ts";
import { postForm, serviceAccountAccessToken, tokenRequest } from "./support.ts";

const AUTH = "https://www.googleapis.com/auth/";
const emu = await withEmulator();

async function accessToken(scopes: string[]): Promise<string> {
  const refreshToken = emu.issueRefreshToken({ scopes });
  const reply = await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: refreshToken });
  assert.equal(reply.status, 200, JSON.stringify(reply.json));
  return String(reply.json.access_token);
}

const call = async (method: string, path: string, token: string, body?: unknown) => {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
};

/** Google's 403 for a scope too narrow for the method, as the discovery document's method names it. */
const tooNarrow = (service: string, method: string) => ({
  status: 403,
  json: {
    error: {
      code: 403,
      message: "Request had insufficient authentication scopes.",
      errors: [{ message: "Insufficient Permission", domain: "global", reason: "insufficientPermissions" }],
      status: "PERMISSION_DENIED",
      details: [
        {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "ACCESS_TOKEN_SCOPE_INSUFFICIENT",
          domain: "googleapis.com",
          metadata: { service, method },
        },
      ],
    },
  },
});

const PROJECT = "/bigquery/v2/projects/my-project";
const QUERY = "SELECT 1 AS one";
/** Which BigQuery methods each scope opens (bigquery-v2.json): queries need more than read-only for jobs.insert. */
const BIGQUERY: [scope: string, insert: boolean, read: boolean][] = [
  ["bigquery", true, true],
  ["cloud-platform", true, true],
  ["cloud-platform.read-only", false, true],
  ["bigquery.readonly", false, false],
  ["devstorage.read_only", true, false],
  ["devstorage.read_write", true, false],
  ["devstorage.full_control", true, false],
  ["drive", false, false],
];

test("BigQuery with each scope: jobs.insert, jobs.query, jobs.get and getQueryResults as the discovery document allows", async () => {
  const owner = await accessToken([`${AUTH}bigquery`]);
  const job = await call("POST", `${PROJECT}/jobs`, owner, { configuration: { query: { query: QUERY } } });
  assert.equal(job.status, 200, JSON.stringify(job.json));
  const jobId = (job.json.jobReference as { jobId: string }).jobId;
  const rpc = (name: string) => `google.cloud.bigquery.v2.JobService.${name}`;
  for (const [scope, insert, read] of BIGQUERY) {
    const token = await accessToken([`${AUTH}${scope}`]);
    const expect = (allowed: boolean, name: string) => (reply: { status: number; json: unknown }) => {
      if (allowed) assert.equal(reply.status, 200, `${scope} ${name}: ${JSON.stringify(reply.json)}`);
      else assert.deepEqual(reply, tooNarrow("bigquery.googleapis.com", rpc(name)), `${scope} ${name}`);
    };
    expect(
      insert,
      "InsertJob",
    )(await call("POST", `${PROJECT}/jobs`, token, { configuration: { query: { query: QUERY } } }));
    expect(read, "Query")(await call("POST", `${PROJECT}/queries`, token, { query: QUERY }));
    expect(read, "GetJob")(await call("GET", `${PROJECT}/jobs/${jobId}`, token));
    expect(read, "GetQueryResults")(await call("GET", `${PROJECT}/queries/${jobId}`, token));
  }
});

test("Storage with each scope: objects.list and objects.get take every read scope, not BigQuery's or Drive's", async () => {
  const cases: [string, boolean][] = [
    ["cloud-platform", true],
    ["cloud-platform.read-only", true],
    ["devstorage.read_only", true],
    ["devstorage.read_write", true],
    ["devstorage.full_control", true],
    ["bigquery", false],
    ["drive", false],
  ];
  for (const [scope, allowed] of cases) {
    const token = await accessToken([`${AUTH}${scope}`]);
    for (const [path, method] of [
      ["/storage/v1/b/demo-bucket/o", "storage.objects.list"],
      ["/storage/v1/b/demo-bucket/o/hello.txt", "storage.objects.get"],
    ] as const) {
      const reply = await call("GET", path, token);
      if (allowed) assert.equal(reply.status, 200, `${scope} ${method}`);
      else assert.deepEqual(reply, tooNarrow("storage.googleapis.com", method), `${scope} ${method}`);
    }
  }
});

test("userinfo: 401 without a sign-in scope; the e-mail only under the e-mail scope", async () => {
  const userinfo = async (scopes: string[]) => call("GET", "/oauth2/v3/userinfo", await accessToken(scopes));
  const platformOnly = await userinfo([`${AUTH}cloud-platform`]);
  assert.equal(platformOnly.status, 401);
  assert.deepEqual(platformOnly.json.error, {
    code: 401,
    message:
      "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
    errors: [
      {
        message:
          "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
        domain: "global",
        reason: "required",
      },
    ],
    status: "UNAUTHENTICATED",
  });
  for (const scopes of [["openid"], ["profile"], ["openid", `${AUTH}cloud-platform`]]) {
    const reply = await userinfo(scopes);
    assert.equal(reply.status, 200, scopes.join(" "));
    assert.deepEqual(Object.keys(reply.json), ["sub"], `${scopes.join(" ")}: no e-mail without the e-mail scope`);
  }
  const withEmail = await userinfo(["email"]);
  assert.deepEqual(Object.keys(withEmail.json).sort(), ["email", "email_verified", "sub"]);
  assert.equal(withEmail.json.email, "alice@example.com");
});

test("tokeninfo: a user's token names its subject; a service account's token only with a sign-in scope", async () => {
  const info = async (token: string) =>
    (await postForm(`${emu.url}/tokeninfo`, { access_token: token })).json as Record<string, string>;
  const user = await info(await accessToken([`${AUTH}cloud-platform`]));
  assert.match(user.sub ?? "", /^\d{21}$/);
  const key = emu.createServiceAccountKey();
  const sa = await info(await serviceAccountAccessToken(key, [`${AUTH}cloud-platform`]));
  assert.equal(sa.azp, key.client_id);
  assert.equal(sa.sub, undefined, "Google's reply for a service account's token has no sub");
  assert.equal(sa.scope, `${AUTH}cloud-platform`);
  const withEmail = await info(
    await serviceAccountAccessToken(key, [`${AUTH}cloud-platform`, `${AUTH}userinfo.email`]),
  );
  assert.match(withEmail.sub ?? "", /^\d{21}$/);
  assert.equal(withEmail.email, key.client_email);
});

test("refresh tokens: 100 per client and account; the 101st silently ends the first", async () => {
  const first = emu.issueRefreshToken({ scopes: [`${AUTH}cloud-platform`], account: "carol@example.com" });
  const second = emu.issueRefreshToken({ scopes: [`${AUTH}cloud-platform`], account: "carol@example.com" });
  const refresh = (token: string) => tokenRequest(emu, { grant_type: "refresh_token", refresh_token: token });
  for (let i = 2; i < 100; i++)
    emu.issueRefreshToken({ scopes: [`${AUTH}cloud-platform`], account: "carol@example.com" });
  assert.equal((await refresh(first)).status, 200, "the 100th token leaves the first alone");
  emu.issueRefreshToken({ scopes: [`${AUTH}cloud-platform`], account: "carol@example.com" });
  assert.deepEqual((await refresh(first)).json, {
    error: "invalid_grant",
    error_description: "Token has been expired or revoked.",
  });
  assert.equal((await refresh(second)).status, 200);
});
