// ID tokens in the library, against the emulator: fetchIdToken() and getIdTokenClient() for every
// credential type default() finds (a user file, a key, an impersonated file, the metadata server, a
// federation file), and for clients the caller built. Every token is checked by google-auth-library's
// own verifyIdToken against the emulator's published keys, and the protected services at /run/NAME
// check them as Cloud Run's front end does.
import assert from "node:assert/strict";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { JWT } from "google-auth-library";
import * as credAuth from "cred-auth";
import { ERROR_CODES, cache } from "cred-auth";
import { DEFAULT_WORKLOAD_AUDIENCE, DEMO_CLIENT } from "cred-auth/emulator";
import { testCredentialsFile, workloadFileJson, workloadPrincipal } from "../support/emulator.ts";
import { emulatorUserClient, pointJwtAt, verifyIdToken } from "../support/id-tokens.ts";
import { isolatedWorld, withEnv } from "./support.ts";

const { emulator, home } = await isolatedWorld();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const ID_SCOPES = ["openid", "https://www.googleapis.com/auth/userinfo.email", CLOUD];
const TARGET = "runner@id-project.iam.gserviceaccount.com";
/** An IAP resource's OAuth client, in the demo client's project: a user's token may be asked for it. */
const IAP_CLIENT = { clientId: "iap-resource.apps.emulator.invalid", clientSecret: "GOCSPX-iap/resource+secret=" };
emulator.addClient({ ...IAP_CLIENT, type: "web", project: "emulator-project" });
emulator.addServiceAccount({ email: TARGET, tokenCreators: ["user:alice@example.com"] });
const helloUrl = emulator.addRunService({ name: "hello" });
const iapUrl = emulator.addRunService({ name: "iap-app", customAudiences: [IAP_CLIENT.clientId] });
const noSignIn = { credentialsCache: cache.NOOP, hosted: false } as const;
const iamUrl = `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${TARGET}:generateAccessToken`;

function write(name: string, json: unknown): string {
  const path = join(home, name);
  writeFileSync(path, JSON.stringify(json), { mode: 0o600 });
  return path;
}

async function userFile(name: string, scopes = ID_SCOPES): Promise<string> {
  return testCredentialsFile(emulator, join(home, name), { scopes, account: "alice@example.com" });
}

const keyFile = write("key.json", emulator.createServiceAccountKey({ projectId: "key-project" }));
const idTokensMinted = () => emulator.stats().idTokens;

test("a user file: the refresh grant's ID token for an IAP client of the same project, verified, then cached", async () => {
  const path = await userFile("user-iap");
  await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, async () => {
    const token = await credAuth.fetchIdToken(IAP_CLIENT.clientId, noSignIn);
    const claims = await verifyIdToken(emulator, token, IAP_CLIENT.clientId);
    assert.equal(claims.email, "alice@example.com");
    assert.equal(claims.azp, DEMO_CLIENT.clientId, "asked by the client that signed in");
    const minted = idTokensMinted();
    assert.equal(await credAuth.fetchIdToken(IAP_CLIENT.clientId, noSignIn), token, "reused while it has time left");
    assert.equal(idTokensMinted(), minted, "no second request");
    // Its own client's audience needs no `audience`: the refresh grant's own id_token.
    const own = await credAuth.fetchIdToken(DEMO_CLIENT.clientId, noSignIn);
    assert.equal((await verifyIdToken(emulator, own, DEMO_CLIENT.clientId)).aud, DEMO_CLIENT.clientId);
  });
});

test("a user file: a Cloud Run URL as audience is refused by the token server, one coded line, no secret", async () => {
  const path = await userFile("user-run");
  const refreshToken = (JSON.parse(readFileSync(path, "utf8")) as { refresh_token: string }).refresh_token;
  await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () =>
    assert.rejects(credAuth.fetchIdToken(helloUrl, noSignIn), (error: credAuth.CredAuthError) => {
      assert.equal(error.code, ERROR_CODES.INVALID_AUDIENCE);
      assert.equal(error.error, "invalid_audience");
      assert.ok(error instanceof credAuth.CredCredentialsError);
      assert.doesNotMatch(error.message, /\n/);
      for (const secret of [refreshToken, DEMO_CLIENT.clientSecret]) assert.ok(!error.message.includes(secret));
      return true;
    }),
  );
});

test("a user signed in without openid: ERR_NO_ID_TOKEN says to sign in again", async () => {
  const path = await userFile("user-no-openid", [CLOUD]);
  await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () =>
    assert.rejects(credAuth.fetchIdToken(IAP_CLIENT.clientId, noSignIn), { code: ERROR_CODES.NO_ID_TOKEN }),
  );
});

test("a service-account key: the JWT-bearer grant's ID token, and getIdTokenClient reaches the protected service", async () => {
  await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: keyFile }, async () => {
    const token = await credAuth.fetchIdToken(helloUrl, noSignIn);
    const claims = await verifyIdToken(emulator, token, helloUrl);
    assert.match(String(claims.email), /@key-project\.iam\.gserviceaccount\.com$/);
    const client = await credAuth.getIdTokenClient(helloUrl, noSignIn);
    const reply = await client.request<{ service: string; path: string; caller: { email: string; aud: string } }>({
      url: `${helloUrl}/greet`,
    });
    assert.equal(reply.status, 200);
    assert.deepEqual([reply.data.service, reply.data.path, reply.data.caller.aud], ["hello", "/greet", helloUrl]);
    assert.equal(reply.data.caller.email, claims.email);
  });
});

test("an impersonated_service_account file: generateIdToken without the e-mail (default, as gcloud), or with it", async () => {
  const source = JSON.parse(readFileSync(await userFile("imp-source"), "utf8")) as Record<string, unknown>;
  const path = write("imp.json", {
    type: "impersonated_service_account",
    delegates: [],
    service_account_impersonation_url: iamUrl,
    source_credentials: source,
  });
  await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, async () => {
    const plain = await verifyIdToken(emulator, await credAuth.fetchIdToken(helloUrl, noSignIn), helloUrl);
    assert.equal(plain.email, undefined);
    const emailed = { ...noSignIn, includeEmail: true };
    const token = await credAuth.fetchIdToken(helloUrl, emailed);
    assert.equal((await verifyIdToken(emulator, token, helloUrl)).email, TARGET);
    const reply = await (await credAuth.getIdTokenClient(helloUrl, emailed)).request<{ caller: { email: string } }>({
      url: helloUrl,
    });
    assert.equal(reply.data.caller.email, TARGET);
  });
});

test("the impersonateServiceAccount option: the user's credentials ask IAM for the account's ID token", async () => {
  const path = await userFile("imp-option");
  await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, async () => {
    const asked = { ...noSignIn, impersonateServiceAccount: TARGET, includeEmail: true };
    const token = await credAuth.fetchIdToken(helloUrl, asked);
    const claims = await verifyIdToken(emulator, token, helloUrl);
    assert.equal(claims.email, TARGET, "the account's token, not the source user's");
    await assert.rejects(
      credAuth.fetchIdToken(helloUrl, {
        ...noSignIn,
        impersonateServiceAccount: "ghost@id-project.iam.gserviceaccount.com",
      }),
      { code: ERROR_CODES.SERVICE_ACCOUNT_NOT_FOUND },
    );
  });
});

test("the metadata server: identity with format=full, and the protected service accepts it", async () => {
  emulator.setMetadata({ projectId: "vm-project", email: "vm@vm-project.iam.gserviceaccount.com" });
  try {
    await withEnv({ GCE_METADATA_HOST: emulator.host }, async () => {
      const token = await credAuth.fetchIdToken(helloUrl, noSignIn);
      const claims = await verifyIdToken(emulator, token, helloUrl);
      assert.equal(claims.email, "vm@vm-project.iam.gserviceaccount.com");
      assert.ok((claims as { google?: { compute_engine?: unknown } }).google?.compute_engine, "format=full");
      const reply = await (await credAuth.getIdTokenClient(helloUrl, noSignIn)).request({ url: helloUrl });
      assert.equal(reply.status, 200);
    });
  } finally {
    emulator.setMetadata(null);
  }
});

test("identity federation: through its service-account impersonation, or a coded refusal without one", async () => {
  const tokenFile = join(home, "subject.jwt");
  writeFileSync(tokenFile, emulator.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, subject: "job-7" }));
  const federated = "federated@id-project.iam.gserviceaccount.com";
  emulator.addServiceAccount({
    email: federated,
    tokenCreators: [workloadPrincipal("job-7")],
  });
  const impersonating = write(
    "wif-imp.json",
    workloadFileJson(tokenFile, {
      service_account_impersonation_url: iamUrl.replace(TARGET, federated),
    }),
  );
  await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: impersonating }, async () => {
    const token = await credAuth.fetchIdToken(helloUrl, { ...noSignIn, includeEmail: true });
    assert.equal((await verifyIdToken(emulator, token, helloUrl)).email, federated);
  });
  const plain = write("wif.json", workloadFileJson(tokenFile));
  await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: plain }, () =>
    assert.rejects(credAuth.fetchIdToken(helloUrl, noSignIn), (error: credAuth.CredAuthError) => {
      assert.equal(error.code, ERROR_CODES.ID_TOKEN_UNSUPPORTED);
      assert.match(error.message, /cannot mint ID tokens/);
      return true;
    }),
  );
});

test("credentials the caller built: a UserRefreshClient for an IAP client, a JWT for Cloud Run", async () => {
  const user = emulatorUserClient(emulator, "bob@example.com", ID_SCOPES);
  const iapToken = await credAuth.fetchIdToken(IAP_CLIENT.clientId, { credentials: user });
  assert.equal((await verifyIdToken(emulator, iapToken, IAP_CLIENT.clientId)).email, "bob@example.com");
  const reply = await (await credAuth.getIdTokenClient(IAP_CLIENT.clientId, { credentials: user })).request<{
    caller: { email: string };
  }>({ url: iapUrl });
  assert.equal(reply.data.caller.email, "bob@example.com", "a service whose custom audience is the IAP client");

  const key = JSON.parse(readFileSync(keyFile, "utf8")) as { client_email: string; private_key: string };
  const jwt = new JWT({ email: key.client_email, key: key.private_key, scopes: [CLOUD] });
  pointJwtAt(jwt, `${emulator.url}/token`);
  const jwtToken = await credAuth.fetchIdToken(helloUrl, { credentials: jwt });
  assert.equal((await verifyIdToken(emulator, jwtToken, helloUrl)).email, key.client_email);
});

test("an empty or missing audience is refused before any credentials are looked for", async () => {
  const before = emulator.stats().tokenRequests;
  for (const audience of ["", "   ", "two words", "a\u001b]0;x"])
    await assert.rejects(credAuth.fetchIdToken(audience, noSignIn), { code: ERROR_CODES.INVALID_OPTION });
  await assert.rejects(credAuth.getIdTokenClient("", noSignIn), { code: ERROR_CODES.INVALID_OPTION });
  assert.equal(emulator.stats().tokenRequests, before);
});

test("a token with 5 minutes or less left is replaced, so an IdTokenClient asks for a new one before expiry", async () => {
  await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: keyFile }, async () => {
    const audience = `${helloUrl}/expiring`;
    const dir = join(home, ".cache", "cred-auth", "tokens");
    const idEntries = () => readdirSync(dir).filter((name) => /^[0-9a-f]{64}-[0-9a-f]{32}\.json$/.test(name));
    const before = idEntries();
    const client = await credAuth.getIdTokenClient(audience, noSignIn);
    const first = await client.getRequestHeaders(audience);
    // The token cache holds it (0600 under an ID-token key): make it look 4 minutes from expiry.
    const entries = idEntries().filter((name) => !before.includes(name));
    assert.equal(entries.length, 1);
    for (const name of entries) {
      const entry = JSON.parse(readFileSync(join(dir, name), "utf8")) as { expiry_date: number; token_type: string };
      assert.equal(entry.token_type, "id_token");
      writeFileSync(join(dir, name), JSON.stringify({ ...entry, expiry_date: Date.now() + 240_000 }), { mode: 0o600 });
    }
    client.credentials = { ...client.credentials, expiry_date: Date.now() + 240_000 };
    const minted = idTokensMinted();
    const second = await client.getRequestHeaders(audience);
    assert.equal(
      idTokensMinted(),
      minted + 1,
      "one new token (the emulator signs the same claims alike within a second)",
    );
    assert.match(String(second.get("authorization")), /^Bearer ey/);
    assert.match(String(first.get("authorization")), /^Bearer ey/);
    for (const name of entries) {
      const entry = JSON.parse(readFileSync(join(dir, name), "utf8")) as { expiry_date: number };
      assert.ok(entry.expiry_date - Date.now() > 3_000_000, "the cache holds the new one, an hour long");
    }
  });
});
