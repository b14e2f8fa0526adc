// `cred-auth print-identity-token [FILE] [--audiences AUD] [--include-email]` as real processes
// against the emulator: every token it prints is accepted by google-auth-library's verifyIdToken for
// AUD against the emulator's published keys, and by the protected services at /run/NAME; tokens are
// cached 0600 like print-token's; without FILE it looks where default() looks; refusals are one
// coded line with no secret.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_WORKLOAD_AUDIENCE, DEMO_CLIENT } from "cred-auth/emulator";
import { testCredentialsFile, withEmulator, workloadFileJson, workloadPrincipal } from "../support/emulator.ts";
import { verifyIdToken } from "../support/id-tokens.ts";
import { runCli, sandbox, secretsIn, serviceAccountFile, type Sandbox } from "./support.ts";

const emu = await withEmulator();
const ID_SCOPES = [
  "openid",
  "https://www.googleapis.com/auth/userinfo.email",
  "https://www.googleapis.com/auth/cloud-platform",
];
const IAP_CLIENT = "iap-app.apps.emulator.invalid";
const TARGET = "caller@cli-project.iam.gserviceaccount.com";
emu.addClient({ clientId: IAP_CLIENT, clientSecret: "GOCSPX-iap/app+x=", type: "web", project: "emulator-project" });
emu.addServiceAccount({ email: TARGET, tokenCreators: ["user:alice@example.com"] });
const HELLO = emu.addRunService({ name: "hello" });
const outputs: string[] = [];
const secrets: string[] = [DEMO_CLIENT.clientSecret];
const iamUrl = (email: string) =>
  `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${email}:generateAccessToken`;

/** A sandbox that looks nowhere else: no metadata server unless a test says so. */
const box = (extra: NodeJS.ProcessEnv = {}) => sandbox(emu, { METADATA_SERVER_DETECTION: "none", ...extra });

async function cli(args: string[], env: NodeJS.ProcessEnv) {
  const r = await runCli(args, env);
  outputs.push(r.stdout, r.stderr);
  return r;
}

async function printed(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const r = await cli(["print-identity-token", ...args], env);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  assert.match(r.stdout, /^[\w-]+\.[\w-]+\.[\w-]+\n$/, "the token and a newline, nothing else");
  return r.stdout.trim();
}

async function aliceFile(b: Sandbox, name: string): Promise<string> {
  const path = await testCredentialsFile(emu, b.dir, {
    scopes: ID_SCOPES,
    account: "alice@example.com",
    filename: name,
  });
  secrets.push(JSON.parse((await import("node:fs")).readFileSync(path, "utf8")).refresh_token);
  return path;
}

const idEntries = (b: Sandbox) => readdirSync(b.tokenCache).filter((n) => /^[0-9a-f]{64}-[0-9a-f]{32}\.json$/.test(n));

test("a user file: its own client's ID token without --audiences, an IAP client's with it; cached 0600, --fresh asks again", async () => {
  const b = box();
  const path = await aliceFile(b, "user.json");
  const own = await printed([path], b.env);
  const claims = await verifyIdToken(emu, own, DEMO_CLIENT.clientId);
  assert.equal(claims.email, "alice@example.com");
  const iap = await printed([path, "--audiences", IAP_CLIENT], b.env);
  assert.equal((await verifyIdToken(emu, iap, IAP_CLIENT)).azp, DEMO_CLIENT.clientId);

  const requests = emu.stats().tokenRequests;
  assert.equal(await printed([path, "--audiences", IAP_CLIENT], b.env), iap, "from the cache");
  assert.equal(emu.stats().tokenRequests, requests, "no token request on the cached path");
  assert.equal(idEntries(b).length, 2);
  for (const name of idEntries(b)) assert.equal(statSync(join(b.tokenCache, name)).mode & 0o777, 0o600);
  await printed([path, "--audiences", IAP_CLIENT, "--fresh"], b.env);
  assert.equal(emu.stats().tokenRequests, requests + 1, "--fresh asks again");
});

test("a user file and a Cloud Run URL: the token server refuses, one coded line, no secret", async () => {
  const b = box();
  const path = await aliceFile(b, "user.json");
  const r = await cli(["print-identity-token", path, "--audiences", HELLO], b.env);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^cred-auth: Getting an ID token with the user credentials in ".*" failed: invalid_audience: .*\n$/,
  );
  assert.equal(r.stdout, "");
});

test("a service-account key: the token verifies for the URL, and the protected service lets it in", async () => {
  const b = box();
  const { path, json } = serviceAccountFile(emu, b);
  secrets.push(json.private_key!);
  const token = await printed([path, "--audiences", HELLO], b.env);
  assert.equal((await verifyIdToken(emu, token, HELLO)).email, json.client_email);
  const reply = await fetch(`${HELLO}/hi`, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(reply.status, 200);
  assert.equal(((await reply.json()) as { caller: { email: string } }).caller.email, json.client_email);
  // The same audience's token of another credentials file is another entry.
  const other = serviceAccountFile(emu, b, "other.json");
  assert.notEqual(await printed([other.path, "--audiences", HELLO], b.env), token);
});

test("an impersonated_service_account file: generateIdToken, with the e-mail only when --include-email", async () => {
  const b = box();
  const source = JSON.parse((await import("node:fs")).readFileSync(await aliceFile(b, "source.json"), "utf8"));
  const path = join(b.dir, "imp.json");
  writeFileSync(
    path,
    JSON.stringify({
      type: "impersonated_service_account",
      delegates: [],
      service_account_impersonation_url: iamUrl(TARGET),
      source_credentials: source,
    }),
    { mode: 0o600 },
  );
  const plain = await verifyIdToken(emu, await printed([path, "--audiences", HELLO], b.env), HELLO);
  assert.equal(plain.email, undefined, "as gcloud: no e-mail unless asked");
  const withEmail = await printed([path, "--audiences", HELLO, "--include-email"], b.env);
  assert.equal((await verifyIdToken(emu, withEmail, HELLO)).email, TARGET);
});

test("without FILE and with GCE_METADATA_HOST: the metadata server's identity, format=full", async () => {
  emu.setMetadata({ projectId: "vm-project", email: "vm@vm-project.iam.gserviceaccount.com" });
  try {
    const b = sandbox(emu, { GCE_METADATA_HOST: emu.host });
    const token = await printed(["--audiences", HELLO], b.env);
    const claims = await verifyIdToken(emu, token, HELLO);
    assert.equal(claims.email, "vm@vm-project.iam.gserviceaccount.com");
    assert.ok((claims as { google?: { compute_engine?: unknown } }).google?.compute_engine);
    const r = await cli(["print-identity-token"], b.env);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /metadata-server credentials needs an audience/);
  } finally {
    emu.setMetadata(null);
  }
});

test("a federation file: through its service-account impersonation; without one, ERR_ID_TOKEN_UNSUPPORTED's words", async () => {
  const b = box();
  const tokenFile = join(b.dir, "subject.jwt");
  writeFileSync(tokenFile, emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, subject: "ci-job" }));
  const federated = "federated@cli-project.iam.gserviceaccount.com";
  emu.addServiceAccount({
    email: federated,
    tokenCreators: [workloadPrincipal("ci-job")],
  });
  const impersonating = join(b.dir, "wif-imp.json");
  writeFileSync(
    impersonating,
    JSON.stringify(workloadFileJson(tokenFile, { service_account_impersonation_url: iamUrl(federated) })),
  );
  const token = await printed([impersonating, "--audiences", HELLO, "--include-email"], b.env);
  assert.equal((await verifyIdToken(emu, token, HELLO)).email, federated);
  const plain = join(b.dir, "wif.json");
  writeFileSync(plain, JSON.stringify(workloadFileJson(tokenFile)));
  const r = await cli(["print-identity-token", plain, "--audiences", HELLO], b.env);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /without service-account impersonation, and identity federation alone cannot mint ID tokens/);
});

test("without FILE: GOOGLE_APPLICATION_CREDENTIALS, then gcloud's ADC file; nothing at all says what to run", async () => {
  const b = box();
  const { path, json } = serviceAccountFile(emu, b);
  const named = await printed(["--audiences", HELLO], { ...b.env, GOOGLE_APPLICATION_CREDENTIALS: path });
  assert.equal((await verifyIdToken(emu, named, HELLO)).email, json.client_email);

  const gcloud = join(b.dir, "gcloud");
  mkdirSync(gcloud, { mode: 0o700 });
  await testCredentialsFile(emu, gcloud, { scopes: ID_SCOPES, filename: "application_default_credentials.json" });
  const fromGcloud = await printed([], { ...b.env, CLOUDSDK_CONFIG: gcloud });
  assert.equal((await verifyIdToken(emu, fromGcloud, DEMO_CLIENT.clientId)).aud, DEMO_CLIENT.clientId);

  const r = await cli(["print-identity-token", "--audiences", HELLO], b.env);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^cred-auth: No credentials found \(no GOOGLE_APPLICATION_CREDENTIALS, .*cred-auth login FILE/,
  );
});

test("usage and audience mistakes: one line, the right exit code, nothing echoed", async () => {
  const b = box();
  const { path } = serviceAccountFile(emu, b);
  const missing = await cli(["print-identity-token", path], b.env);
  assert.equal(missing.code, 1);
  assert.match(
    missing.stderr,
    /^cred-auth: An ID token of service_account credentials needs an audience: .*--audiences/,
  );
  const two = await cli(["print-identity-token", path, "--audiences", "https://a.example,https://b.example"], b.env);
  assert.equal(two.code, 2);
  assert.match(two.stderr, /--audiences takes one audience/);
  const extra = await cli(["print-identity-token", path, "1//0gSECRET-typed-here"], b.env);
  assert.equal(extra.code, 2);
  assert.doesNotMatch(extra.stderr, /1\/\/0gSECRET/);
  const help = await cli(["help", "print-identity-token"], b.env);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: cred-auth print-identity-token \[FILE\] \[OPTIONS\]/);
  assert.match(help.stdout, /--audiences AUD/);
  assert.match(help.stdout, /--include-email/);
});

test("no secret in any output of this file's runs", () => {
  assert.ok(outputs.length > 10);
  assert.deepEqual(secretsIn(outputs.join("\n"), secrets), []);
});
