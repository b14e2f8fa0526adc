// The emulator's STS (token exchange, external-account refresh) and OIDC issuer, over real HTTP,
// also through google-auth-library's own external-account clients.
import assert from "node:assert/strict";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ExternalAccountAuthorizedUserClient, IdentityPoolClient } from "google-auth-library";
import { DEFAULT_WORKFORCE_AUDIENCE, DEFAULT_WORKLOAD_AUDIENCE, DEMO_CLIENT, startEmulator } from "cred-auth/emulator";
import type { Emulator } from "cred-auth/emulator";
import { postForm } from "./support.ts";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const EXCHANGE = {
  grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
  requested_token_type: "urn:ietf:params:oauth:token-type:access_token",
  subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
  audience: DEFAULT_WORKLOAD_AUDIENCE,
  scope: CLOUD,
};
const UNKNOWN_POOL =
  'The target service indicated by the "audience" parameters is invalid. This might either be because the pool or provider is disabled or deleted or because it doesn\'t exist.';

let emu: Emulator;
before(async () => {
  emu = await startEmulator();
});
after(() => emu.close());

const exchange = (params: Record<string, string>) => postForm(`${emu.url}/v1/token`, { ...EXCHANGE, ...params });

async function assertWorks(accessToken: string): Promise<void> {
  const info = emu.checkAccessToken(accessToken);
  assert.ok(info, "the emulator knows the federated access token");
  const tokeninfo = await fetch(`${emu.url}/tokeninfo?access_token=${encodeURIComponent(accessToken)}`);
  assert.equal(tokeninfo.status, 200);
  const api = await fetch(`${emu.url}/storage/v1/b/no-such-bucket/o`, {
    headers: { Authorization: `Bearer ${accessToken}` },
  });
  assert.equal(api.status, 404, "the API accepted the token and looked for the bucket");
}

test("token exchange: a subject token of the emulator's issuer gives a working access token", async () => {
  const subjectToken = emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, subject: "repo:octo/app" });
  const reply = await exchange({ subject_token: subjectToken });
  assert.equal(reply.status, 200, JSON.stringify(reply.json));
  assert.equal(reply.json.issued_token_type, "urn:ietf:params:oauth:token-type:access_token");
  assert.equal(reply.json.token_type, "Bearer");
  assert.ok(Number(reply.json.expires_in) > 0);
  const token = String(reply.json.access_token);
  assert.match(token, /^ya29\./);
  await assertWorks(token);
  assert.match(
    emu.checkAccessToken(token)?.account ?? "",
    /^principal:\/\/iam\.googleapis\.com\/projects\/123456789012\/locations\/global\/workloadIdentityPools\/emu-pool\/subject\/repo:octo\/app$/,
  );
  for (const type of ["urn:ietf:params:oauth:token-type:id_token"]) {
    const again = await exchange({ subject_token: subjectToken, subject_token_type: type });
    assert.equal(again.status, 200);
  }
});

test("token exchange refuses expired, wrong-audience, wrong-signature tokens and unknown pools, as Google does", async () => {
  const expired = await exchange({
    subject_token: emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, lifetimeSec: -10 }),
  });
  assert.deepEqual(expired, {
    status: 400,
    json: { error: "invalid_grant", error_description: "The ID Token has expired." },
  });

  const other = "//iam.googleapis.com/projects/42/locations/global/workloadIdentityPools/other/providers/p";
  emu.addIdentityProvider(other);
  const wrongAud = await exchange({ subject_token: emu.issueSubjectToken({ audience: other }) });
  assert.equal(wrongAud.status, 400);
  assert.equal(wrongAud.json.error, "invalid_grant");
  assert.equal(
    wrongAud.json.error_description,
    `The audience in ID Token [${other}] does not match the expected audience ${DEFAULT_WORKLOAD_AUDIENCE}.`,
  );

  const good = emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE });
  const [h, c] = good.split(".");
  const forged = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(c, "base64url").toString()), sub: "admin" })).toString("base64url")}.${good.split(".")[2]}`;
  const badSig = await exchange({ subject_token: forged });
  assert.deepEqual(badSig.json, { error: "invalid_grant", error_description: "Invalid ID Token signature." });

  const other2 = await startEmulator();
  try {
    const foreign = await exchange({
      subject_token: other2.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE }),
    });
    assert.equal(foreign.json.error, "invalid_grant", "another issuer's token is refused");
  } finally {
    await other2.close();
  }

  const unknown = "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/nope/providers/nope";
  const noPool = await exchange({ subject_token: emu.issueSubjectToken({ audience: unknown }), audience: unknown });
  assert.deepEqual(noPool, { status: 400, json: { error: "invalid_target", error_description: UNKNOWN_POOL } });

  const badGrant = await exchange({ grant_type: "refresh_token", subject_token: good });
  assert.equal(badGrant.json.error, "unsupported_grant_type");
  const badType = await exchange({ subject_token: good, subject_token_type: "urn:ietf:params:oauth:token-type:bogus" });
  assert.equal(badType.json.error, "invalid_request");
  const badRequested = await exchange({ subject_token: good, requested_token_type: "urn:x" });
  assert.equal(badRequested.json.error, "invalid_request");
  const badScope = await exchange({ subject_token: good, scope: "https://www.googleapis.com/auth/nope" });
  assert.equal(badScope.json.error, "invalid_scope");
  const saml = await exchange({
    subject_token: "PHNhbWxwOlJlc3BvbnNlPg==",
    subject_token_type: "urn:ietf:params:oauth:token-type:saml2",
  });
  assert.equal(saml.json.error, "invalid_grant");
  for (const reply of [expired, wrongAud, badSig, noPool, badGrant, badType, saml])
    assert.ok(!JSON.stringify(reply.json).includes(good.split(".")[2]), "no subject token in an error");
});

test("workforce pools need options.userProject, or an OAuth client authenticated with its id and secret", async () => {
  const subjectToken = emu.issueSubjectToken({ audience: DEFAULT_WORKFORCE_AUDIENCE, subject: "alice" });
  const without = await exchange({ subject_token: subjectToken, audience: DEFAULT_WORKFORCE_AUDIENCE });
  assert.equal(without.status, 400);
  assert.equal(without.json.error, "invalid_request");
  // google-auth-library-python#868: "The client ID is sufficient to determine the client project".
  const basic = (id: string, secret: string) => ({
    Authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`,
  });
  const asClient = (headers: Record<string, string>) =>
    postForm(
      `${emu.url}/v1/token`,
      { ...EXCHANGE, subject_token: subjectToken, audience: DEFAULT_WORKFORCE_AUDIENCE },
      headers,
    );
  const withClient = await asClient(basic(DEMO_CLIENT.clientId, DEMO_CLIENT.clientSecret));
  assert.equal(withClient.status, 200, JSON.stringify(withClient.json));
  await assertWorks(String(withClient.json.access_token));
  assert.deepEqual(await asClient(basic(DEMO_CLIENT.clientId, "wrong")), {
    status: 401,
    json: { error: "invalid_client", error_description: "The OAuth client was not found." },
  });
  emu.deleteClient(DEMO_CLIENT.clientId);
  try {
    const deleted = await asClient(basic(DEMO_CLIENT.clientId, DEMO_CLIENT.clientSecret));
    assert.deepEqual(deleted, {
      status: 401,
      json: { error: "deleted_client", error_description: "The OAuth client was deleted." },
    });
  } finally {
    emu.restoreClient(DEMO_CLIENT.clientId);
  }
  const withProject = await exchange({
    subject_token: subjectToken,
    audience: DEFAULT_WORKFORCE_AUDIENCE,
    options: JSON.stringify({ userProject: "my-project" }),
  });
  assert.equal(withProject.status, 200, JSON.stringify(withProject.json));
  await assertWorks(String(withProject.json.access_token));
});

test("served subject tokens: text or JSON, with an optional required header", async () => {
  const token = emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE });
  const text = emu.serveSubjectToken({ token });
  assert.equal(await (await fetch(text)).text(), token);
  const json = emu.serveSubjectToken({
    token,
    format: "json",
    field: "value",
    requiredHeader: { name: "Metadata", value: "True" },
  });
  assert.equal((await fetch(json)).status, 403);
  const reply = await fetch(json, { headers: { Metadata: "True" } });
  assert.deepEqual(await reply.json(), { value: token });
  assert.equal((await fetch(`${emu.url}/emulator-oidc/subject-token/unknown`)).status, 404);
});

test("/v1/oauthtoken: an external_account_authorized_user refresh token with HTTP Basic client auth", async () => {
  const file = emu.issueExternalAccountAuthorizedUser();
  assert.equal(file.type, "external_account_authorized_user");
  assert.match(file.client_secret, /[/+=]/);
  const basic = (id: string, secret: string) => ({
    Authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`,
  });
  const ok = await postForm(
    file.token_url,
    { grant_type: "refresh_token", refresh_token: file.refresh_token },
    basic(file.client_id, file.client_secret),
  );
  assert.equal(ok.status, 200, JSON.stringify(ok.json));
  await assertWorks(String(ok.json.access_token));
  const rotated = String(ok.json.refresh_token);
  const encoded = await postForm(
    file.token_url,
    { grant_type: "refresh_token", refresh_token: rotated },
    basic(encodeURIComponent(file.client_id), encodeURIComponent(file.client_secret)),
  );
  assert.equal(encoded.status, 200, "RFC 6749's form-encoded Basic credentials work too");
  const wrongSecret = await postForm(
    file.token_url,
    { grant_type: "refresh_token", refresh_token: String(encoded.json.refresh_token) },
    basic(file.client_id, "GOCSPX-wrong"),
  );
  assert.equal(wrongSecret.status, 401);
  assert.equal(wrongSecret.json.error, "invalid_client");
  const noAuth = await postForm(file.token_url, { grant_type: "refresh_token", refresh_token: file.refresh_token });
  assert.equal(noAuth.json.error, "invalid_client");
  const unknown = await postForm(
    file.token_url,
    { grant_type: "refresh_token", refresh_token: "1//0gUnknown" },
    basic(file.client_id, file.client_secret),
  );
  assert.equal(unknown.json.error, "invalid_grant");
  for (const reply of [wrongSecret, noAuth, unknown]) {
    assert.ok(!JSON.stringify(reply.json).includes(file.refresh_token));
    assert.ok(!JSON.stringify(reply.json).includes(file.client_secret));
  }
});

test("google-auth-library's IdentityPoolClient (file and URL sources) and ExternalAccountAuthorizedUserClient get working tokens", async () => {
  const dir = await mkdtemp(join(tmpdir(), "sts-"));
  const tokenFile = join(dir, "token.jwt");
  await writeFile(tokenFile, emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE }));
  const base = {
    type: "external_account" as const,
    audience: DEFAULT_WORKLOAD_AUDIENCE,
    subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
    token_url: `${emu.url}/v1/token`,
  };
  const fromFile = new IdentityPoolClient({ ...base, credential_source: { file: tokenFile } });
  const fileToken = await fromFile.getAccessToken();
  await assertWorks(String(fileToken.token));

  const url = emu.serveSubjectToken({
    token: emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE }),
    format: "json",
    field: "id_token",
    requiredHeader: { name: "Metadata-Flavor", value: "Emulator" },
  });
  const fromUrl = new IdentityPoolClient({
    ...base,
    credential_source: {
      url,
      headers: { "Metadata-Flavor": "Emulator" },
      format: { type: "json", subject_token_field_name: "id_token" },
    },
  });
  await assertWorks(String((await fromUrl.getAccessToken()).token));

  const authorizedUser = new ExternalAccountAuthorizedUserClient(
    emu.issueExternalAccountAuthorizedUser() as unknown as ConstructorParameters<
      typeof ExternalAccountAuthorizedUserClient
    >[0],
  );
  await assertWorks(String((await authorizedUser.getAccessToken()).token));

  await writeFile(tokenFile, emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, lifetimeSec: -5 }));
  const refused = new IdentityPoolClient({ ...base, credential_source: { file: tokenFile } });
  await assert.rejects(refused.getAccessToken(), /invalid_grant.*The ID Token has expired/);
});

test("google-auth-library's workforce client with a client id and secret omits userProject, and gets a working token", async () => {
  const dir = await mkdtemp(join(tmpdir(), "sts-"));
  const tokenFile = join(dir, "token.jwt");
  await writeFile(tokenFile, emu.issueSubjectToken({ audience: DEFAULT_WORKFORCE_AUDIENCE, subject: "alice" }));
  const file = {
    type: "external_account" as const,
    audience: DEFAULT_WORKFORCE_AUDIENCE,
    subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
    token_url: `${emu.url}/v1/token`,
    credential_source: { file: tokenFile },
    client_id: DEMO_CLIENT.clientId,
    client_secret: DEMO_CLIENT.clientSecret,
  };
  // With the client, baseexternalclient.ts sends no userProject even when the file names one.
  for (const extra of [{}, { workforce_pool_user_project: "my-project" }]) {
    const client = new IdentityPoolClient({ ...file, ...extra });
    const token = String((await client.getAccessToken()).token);
    await assertWorks(token);
    assert.match(emu.checkAccessToken(token)?.account ?? "", /workforcePools\/emu-workforce\/subject\/alice$/);
  }
});

test("admin routes issue subject tokens, register providers and write external_account_authorized_user files", async () => {
  const admin = (path: string, body: unknown) =>
    fetch(`${emu.url}/__emulator${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  const audience = "//iam.googleapis.com/projects/77/locations/global/workloadIdentityPools/ci/providers/gh";
  assert.equal((await admin("/identity-provider", { audience: "//nope" })).status, 400);
  assert.equal((await admin("/identity-provider", { audience })).status, 200);
  const issued = (await (await admin("/subject-token", { audience, subject: "ci" })).json()) as { token: string };
  const reply = await exchange({ subject_token: issued.token, audience });
  assert.equal(reply.status, 200, JSON.stringify(reply.json));
  assert.equal((await admin("/subject-token", {})).status, 400);
  const file = (await (await admin("/external-account-authorized-user", {})).json()) as Record<string, string>;
  assert.equal(file.type, "external_account_authorized_user");
  assert.equal(file.token_url, `${emu.url}/v1/oauthtoken`);
});
