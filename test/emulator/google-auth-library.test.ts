// google-auth-library itself (unmodified) as a client of the emulator: user refresh, metadata (Compute), JWT.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Compute, GoogleAuth, IdTokenClient, JWT, UserRefreshClient } from "google-auth-library";
import { DEMO_CLIENT } from "cred-auth/emulator";
import { testCredentialsFile, withEmulator } from "../support/emulator.ts";
import { emulatorUserClient, verifyIdToken } from "../support/id-tokens.ts";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
const home = mkdtempSync(join(tmpdir(), "cred-auth-gal-"));
const identity = { projectId: "gal-project", email: "gce-sa@gal-project.iam.gserviceaccount.com" };
const emu = await withEmulator({ metadata: identity });

before(() => {
  // Keep google-auth-library away from the real machine: no gcloud files, no real metadata server.
  process.env.HOME = home;
  process.env.CLOUDSDK_CONFIG = join(home, "gcloud");
  process.env.GCE_METADATA_HOST = emu.host;
  // No METADATA_SERVER_DETECTION needed: with GCE_METADATA_HOST set, gcp-metadata probes only that host.
  delete process.env.METADATA_SERVER_DETECTION;
  delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
  delete process.env.GOOGLE_CLOUD_PROJECT;
  // getProjectId() runs `gcloud config config-helper` first (about 1.5 s when the Cloud SDK is installed).
  process.env.PATH = dirname(process.execPath);
});
after(() => rmSync(home, { recursive: true, force: true }));

test("UserRefreshClient refreshes against the emulator's token endpoint", async () => {
  const refreshToken = emu.issueRefreshToken({ scopes: [CLOUD, "email"], account: "alice@example.com" });
  const client = new UserRefreshClient({
    clientId: DEMO_CLIENT.clientId,
    clientSecret: DEMO_CLIENT.clientSecret,
    refreshToken,
    endpoints: {
      oauth2TokenUrl: `${emu.url}/token`,
      tokenInfoUrl: `${emu.url}/tokeninfo`,
      oauth2RevokeUrl: `${emu.url}/revoke`,
    },
  });
  const { token } = await client.getAccessToken();
  assert.ok(token);
  assert.equal(emu.checkAccessToken(token)?.account, "alice@example.com");
  const info = await client.getTokenInfo(token);
  assert.equal(info.email, "alice@example.com");
  // Google's spelling and order: the e-mail scope spelled out, openid added.
  assert.deepEqual(info.scopes, ["https://www.googleapis.com/auth/userinfo.email", "openid", CLOUD]);
  const res = await client.request<{ items: { name: string }[] }>({ url: `${emu.url}/storage/v1/b/demo-bucket/o` });
  assert.deepEqual(
    res.data.items.map((i) => i.name),
    ["hello.txt"],
  );

  await client.revokeToken(token);
  const revoked = new UserRefreshClient({
    clientId: DEMO_CLIENT.clientId,
    clientSecret: DEMO_CLIENT.clientSecret,
    refreshToken,
    endpoints: { oauth2TokenUrl: `${emu.url}/token` },
  });
  await assert.rejects(revoked.getAccessToken(), (error: Error & { response?: { data?: { error?: string } } }) => {
    assert.equal(error.response?.data?.error, "invalid_grant");
    return true;
  });
});

test("GoogleAuth: testCredentialsFile's file as GOOGLE_APPLICATION_CREDENTIALS, with clientOptions.endpoints", async () => {
  const file = await testCredentialsFile(emu, join(home, "creds"), { scopes: [CLOUD], account: "bob@example.com" });
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(JSON.parse(readFileSync(file, "utf8")).token_uri, `${emu.url}/token`);
  process.env.GOOGLE_APPLICATION_CREDENTIALS = file;
  try {
    const auth = new GoogleAuth({
      scopes: [CLOUD],
      clientOptions: { endpoints: { oauth2TokenUrl: `${emu.url}/token` } },
    });
    assert.ok((await auth.getClient()) instanceof UserRefreshClient);
    const token = await auth.getAccessToken();
    assert.equal(emu.checkAccessToken(String(token))?.account, "bob@example.com");
  } finally {
    delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
  }
});

test("GoogleAuth retries the token endpoint through injected 503s", async () => {
  const refreshToken = emu.issueRefreshToken({ scopes: [CLOUD] });
  const client = new UserRefreshClient({
    clientId: DEMO_CLIENT.clientId,
    clientSecret: DEMO_CLIENT.clientSecret,
    refreshToken,
    endpoints: { oauth2TokenUrl: `${emu.url}/token` },
  });
  const beforeCount = emu.stats().byGrant.refresh_token ?? 0;
  emu.failNext(1, { status: 503 });
  const { token } = await client.getAccessToken();
  assert.ok(emu.checkAccessToken(String(token)));
  assert.equal(emu.stats().byGrant.refresh_token, beforeCount + 2);
});

test("Compute gets a metadata token with GCE_METADATA_HOST pointing at the emulator", async () => {
  const compute = new Compute({ scopes: ["https://www.googleapis.com/auth/devstorage.read_only"] });
  const { token } = await compute.getAccessToken();
  const info = emu.checkAccessToken(String(token));
  assert.equal(info?.account, identity.email);
  assert.deepEqual(
    info?.scopes,
    ["https://www.googleapis.com/auth/cloud-platform"],
    "on Compute Engine the VM's scopes, not the asked ones",
  );
  emu.setMetadataPlatform("cloud-run");
  try {
    const cloudRun = new Compute({ scopes: ["https://www.googleapis.com/auth/devstorage.read_only"] });
    const scoped = emu.checkAccessToken(String((await cloudRun.getAccessToken()).token));
    assert.deepEqual(
      scoped?.scopes,
      ["https://www.googleapis.com/auth/devstorage.read_only"],
      "Cloud Run honours them",
    );
  } finally {
    emu.setMetadataPlatform("compute-engine");
  }
  const res = await compute.request<string>({
    url: `${emu.url}/storage/v1/b/demo-bucket/o/hello.txt?alt=media`,
    responseType: "text",
  });
  assert.equal(res.data, "Hello from the cred-auth emulator!\n");
});

test("GoogleAuth's ADC finds the metadata server and its project id", async () => {
  const auth = new GoogleAuth({ scopes: [CLOUD] });
  const client = await auth.getClient();
  assert.ok(client instanceof Compute);
  const token = await auth.getAccessToken();
  assert.equal(emu.checkAccessToken(String(token))?.account, identity.email);
  assert.equal(await auth.getProjectId(), identity.projectId);
  const credentials = await auth.getCredentials();
  assert.equal(credentials.client_email, identity.email);
});

/**
 * The recipe for JWT: rewrite Google's token URL to the emulator's. Interceptors run after gaxios
 * picked an agent for Google's https URL (a proxy agent when HTTPS_PROXY is set), so drop it too.
 */
function pointAtTokenUrl(client: JWT, tokenUrl: string): void {
  client.transporter.interceptors.request.add({
    resolved: async (options) => {
      if (options.url?.toString() === GOOGLE_TOKEN_URL) {
        options.url = new URL(tokenUrl);
        delete options.agent;
      }
      return options;
    },
  });
}

test("JWT: Google's token URL is hard-coded; a request interceptor on its transporter points it at the emulator", async () => {
  const key = emu.createServiceAccountKey({ projectId: "jwt-project" });
  const keyFile = join(home, "sa.json");
  writeFileSync(keyFile, JSON.stringify(key), { mode: 0o600 });
  const jwt = new JWT({ keyFile, scopes: [CLOUD] });
  pointAtTokenUrl(jwt, key.token_uri);
  const { token } = await jwt.getAccessToken();
  const info = emu.checkAccessToken(String(token));
  assert.equal(info?.account, key.client_email);
  assert.deepEqual(info?.scopes, [CLOUD]);

  const fromKey = new JWT({ email: key.client_email, key: key.private_key, scopes: [CLOUD] });
  pointAtTokenUrl(fromKey, key.token_uri);
  const credentials = await fromKey.authorize();
  assert.ok(emu.checkAccessToken(String(credentials.access_token)));
});

test("JWT recipe still reaches the emulator when HTTPS_PROXY points at a dead proxy", async () => {
  const key = emu.createServiceAccountKey();
  process.env.HTTPS_PROXY = "http://127.0.0.1:9";
  try {
    const jwt = new JWT({ email: key.client_email, key: key.private_key, scopes: [CLOUD] });
    pointAtTokenUrl(jwt, key.token_uri);
    const { token } = await jwt.getAccessToken();
    assert.equal(emu.checkAccessToken(String(token))?.account, key.client_email);
  } finally {
    delete process.env.HTTPS_PROXY;
  }
});

test("@google-cloud/storage lists and downloads from the fake storage API with a user credential", async () => {
  const { Storage } = await import("@google-cloud/storage");
  const refreshToken = emu.issueRefreshToken({ scopes: [CLOUD] });
  const authClient = new UserRefreshClient({
    clientId: DEMO_CLIENT.clientId,
    clientSecret: DEMO_CLIENT.clientSecret,
    refreshToken,
    endpoints: { oauth2TokenUrl: `${emu.url}/token` },
  });
  const storage = new Storage({ authClient, apiEndpoint: emu.url, useAuthWithCustomEndpoint: true, projectId: "demo" });
  const [files] = await storage.bucket("demo-bucket").getFiles();
  assert.deepEqual(
    files.map((f) => f.name),
    ["hello.txt"],
  );
  const [contents] = await storage.bucket("demo-bucket").file("hello.txt").download();
  assert.equal(contents.toString(), "Hello from the cred-auth emulator!\n");
});

test("UserRefreshClient.fetchIdToken and getIdTokenClient: its target_audience gives the IAP client's token, and the service lets it in", async () => {
  const iapClient = "gal-iap.apps.emulator.invalid";
  emu.addClient({ clientId: iapClient, clientSecret: "GOCSPX-gal/iap+x=", type: "web", project: "emulator-project" });
  const iapUrl = emu.addRunService({ name: "gal-iap", customAudiences: [iapClient] });
  const client = emulatorUserClient(emu, "alice@example.com", ["openid", "email", CLOUD]);
  const token = await client.fetchIdToken(iapClient);
  const claims = await verifyIdToken(emu, token, iapClient);
  assert.equal(claims.aud, iapClient, "google-auth-library 11 sends target_audience; the emulator reads it");
  assert.equal(claims.azp, DEMO_CLIENT.clientId);
  const idClient = new IdTokenClient({ targetAudience: iapClient, idTokenProvider: client });
  const reply = await idClient.request<{ caller: { email: string } }>({ url: iapUrl });
  assert.equal(reply.data.caller.email, "alice@example.com");
});
