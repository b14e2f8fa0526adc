// What each kind promises that a user would notice broken (issue 47's mutation survivors): a client's ID
// tokens kept per audience and never past their time, the option's Impersonated acting as the account (not
// the user whose file it stands on), an impersonated token keyed by the scopes asked, revoke forgetting an
// impersonated file's tokens, and a user file's client sharing the token cache with print-token.
import assert from "node:assert/strict";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as credAuth from "cred-auth";
import { cache } from "cred-auth";
import { DEFAULT_WORKLOAD_AUDIENCE } from "cred-auth/emulator";
import { revokeCredentials } from "../../dist/credentials/status/revoke.js";
import { idTokenForFile } from "../../dist/credentials/tokens/id-token-file.js";
import { accessTokenForFile } from "../../dist/credentials/tokens/file-token.js";
import { testCredentialsFile, workloadFileJson, workloadPrincipal } from "../support/emulator.ts";
import { decodeJwtParts, verifyIdToken } from "../support/id-tokens.ts";
import { isolatedWorld, withEnv } from "./support.ts";

const { emulator, home } = await isolatedWorld();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const BIGQUERY = "https://www.googleapis.com/auth/bigquery";
const ID_SCOPES = ["openid", "https://www.googleapis.com/auth/userinfo.email", CLOUD];
const TARGET = "kinds@kinds-project.iam.gserviceaccount.com";
emulator.addServiceAccount({ email: TARGET, tokenCreators: ["user:alice@example.com", workloadPrincipal("job-9")] });
const first = emulator.addRunService({ name: "first" });
const second = emulator.addRunService({ name: "second" });
const noSignIn = { credentialsCache: cache.NOOP, hosted: false } as const;
const iamUrl = `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${TARGET}:generateAccessToken`;
const tokens = join(home, ".cache", "cred-auth", "tokens");

function write(name: string, json: unknown): string {
  const path = join(home, name);
  writeFileSync(path, JSON.stringify(json), { mode: 0o600 });
  return path;
}

const userFile = (name: string) =>
  testCredentialsFile(emulator, join(home, name), { scopes: ID_SCOPES, account: "alice@example.com" });

async function impersonatedFile(name: string): Promise<string> {
  const source = JSON.parse(readFileSync(await userFile(`${name}-source`), "utf8")) as Record<string, unknown>;
  return write(name, {
    type: "impersonated_service_account",
    delegates: [],
    service_account_impersonation_url: iamUrl,
    source_credentials: source,
  });
}

/** Two audiences asked of one client, twice each: each token is its audience's, and the second ask is served from memory. */
async function assertKeptPerAudience(credentials: credAuth.IdTokenOptions["credentials"], what: string): Promise<void> {
  const a = await credAuth.fetchIdToken(first, { credentials });
  const b = await credAuth.fetchIdToken(second, { credentials });
  assert.equal((await verifyIdToken(emulator, a, first)).aud, first, what);
  assert.equal((await verifyIdToken(emulator, b, second)).aud, second, `${what}: not the first audience's token`);
  const minted = emulator.stats().idTokens;
  assert.equal(await credAuth.fetchIdToken(first, { credentials }), a, what);
  assert.equal(await credAuth.fetchIdToken(second, { credentials }), b, what);
  assert.equal(emulator.stats().idTokens, minted, `${what}: both kept`);
}

test("a client's ID tokens are kept per audience: the option's Impersonated, the metadata server, a federation file", async () => {
  const user = await userFile("per-audience-user");
  await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: user }, async () => {
    const [impersonated] = await credAuth.default([CLOUD], { ...noSignIn, impersonateServiceAccount: TARGET });
    await assertKeptPerAudience(impersonated, "impersonateServiceAccount");
  });
  emulator.setMetadata({ projectId: "vm-project", email: "vm@vm-project.iam.gserviceaccount.com" });
  try {
    await withEnv({ GCE_METADATA_HOST: emulator.host }, async () => {
      const [vm] = await credAuth.default([CLOUD], noSignIn);
      await assertKeptPerAudience(vm, "the metadata server");
    });
  } finally {
    emulator.setMetadata(null);
  }
  const subject = join(home, "subject.jwt");
  writeFileSync(subject, emulator.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, subject: "job-9" }));
  const federation = write("wif.json", workloadFileJson(subject, { service_account_impersonation_url: iamUrl }));
  await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: federation }, async () => {
    const [federated] = await credAuth.default([CLOUD], noSignIn);
    await assertKeptPerAudience(federated, "a federation file");
  });
});

test("the option's Impersonated over a user's file gives the account's ID token, never the user's own", async () => {
  const user = await userFile("over-user");
  await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: user }, async () => {
    const [credentials] = await credAuth.default([CLOUD], { ...noSignIn, impersonateServiceAccount: TARGET });
    const token = await credAuth.fetchIdToken(first, { credentials, includeEmail: true });
    const claims = await verifyIdToken(emulator, token, first);
    assert.equal(claims.email, TARGET);
  });
});

test("a kept ID token with 5 minutes or less left is not served: a new one is asked", async () => {
  // A client of the caller's own minting ID tokens (JWTs that live 4 minutes): kept in memory as the others are.
  let minted = 0;
  const mint = (audience: string) => {
    minted += 1;
    const part = (json: object) => Buffer.from(JSON.stringify(json)).toString("base64url");
    return `${part({ alg: "none" })}.${part({ aud: audience, exp: Math.floor(Date.now() / 1000) + 240, n: minted })}.sig`;
  };
  const credentials = { fetchIdToken: async (audience: string) => mint(audience), getAccessToken: async () => ({}) };
  const own = credentials as unknown as credAuth.IdTokenOptions["credentials"];
  const a = await credAuth.fetchIdToken(first, { credentials: own });
  const again = await credAuth.fetchIdToken(first, { credentials: own });
  assert.notEqual(again, a, "a token 4 minutes from expiry is asked again");
  assert.equal(decodeJwtParts(again).claims.aud, first);
  assert.equal(minted, 2);
});

test("an impersonated file's access token is keyed by the scopes asked, not the file's", async (t) => {
  const path = await impersonatedFile("imp-scopes.json");
  const env = { CRED_AUTH_EMULATOR_HOST: emulator.host, CRED_AUTH_TOKEN_CACHE: join(home, `tc-${t.name.length}`) };
  const cloud = await accessTokenForFile(path, { env, scopes: [CLOUD] });
  const bigquery = await accessTokenForFile(path, { env, scopes: [BIGQUERY] });
  assert.notEqual(bigquery.accessToken, cloud.accessToken, "another scope is another token");
  assert.deepEqual(emulator.checkAccessToken(bigquery.accessToken)?.scopes, [BIGQUERY]);
  assert.deepEqual(emulator.checkAccessToken(cloud.accessToken)?.scopes, [CLOUD]);
  assert.equal((await accessTokenForFile(path, { env, scopes: [BIGQUERY] })).accessToken, bigquery.accessToken);
});

test("revoke on an impersonated file forgets its cached tokens: its own, its ID tokens, its source's", async () => {
  const path = await impersonatedFile("imp-revoke.json");
  const env = { ...process.env };
  const before = new Set(readdirSync(tokens).filter((name) => name.endsWith(".json")));
  await accessTokenForFile(path, { env });
  await idTokenForFile(path, { env, audience: first });
  const cached = readdirSync(tokens).filter((name) => name.endsWith(".json") && !before.has(name));
  assert.equal(cached.length, 3, "the source's token, the impersonated one, the ID token");
  const outcome = await revokeCredentials(path, { env });
  assert.equal(outcome.revoked, true);
  assert.equal(outcome.cacheEntriesRemoved, 3);
  assert.deepEqual(
    readdirSync(tokens).filter((name) => cached.includes(name)),
    [],
  );
});

test("a user file's client shares print-token's token: default() asks no token server", async () => {
  const path = await userFile("shared");
  const env = { ...process.env };
  const printed = await accessTokenForFile(path, { env });
  const requests = emulator.stats().tokenRequests;
  await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, async () => {
    const [credentials] = await credAuth.default([CLOUD], noSignIn);
    const { token } = await credentials.getAccessToken();
    assert.equal(token, printed.accessToken, "the token print-token cached");
  });
  assert.equal(emulator.stats().tokenRequests, requests, "no token request");
});
