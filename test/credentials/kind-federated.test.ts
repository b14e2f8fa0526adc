// The federated kind (credentials/kinds/federated/) as the table hands it out: STS's token (cloud-platform unless
// asked), through the file's service account when it names one, keyed by the subject token it read; an ID token
// only through that account; what status says; that revoke cannot end it nor login replace it; default()'s client.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ERROR_CODES } from "cred-auth";
import { DEFAULT_WORKLOAD_AUDIENCE } from "cred-auth/emulator";
import { parseExternalAccount } from "../../dist/credentials/kinds/federated/file.js";
import { federatedKind } from "../../dist/credentials/kinds/federated/index.js";
import { setCredentialInfo } from "../../dist/protocols/info.js";
import { trustedUniverse } from "../../dist/trust/urls.js";
import { workloadFileJson, workloadPrincipal } from "../support/emulator.ts";
import { decodeJwtParts } from "../support/id-tokens.ts";
import { isolatedWorld } from "./support.ts";

const { emulator, home } = await isolatedWorld();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const BIGQUERY = "https://www.googleapis.com/auth/bigquery";
const TARGET = "federated@fed-project.iam.gserviceaccount.com";
const IAM = `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${TARGET}:generateAccessToken`;
emulator.addServiceAccount({ email: TARGET, tokenCreators: [workloadPrincipal("job-1")] });
const universe = trustedUniverse(process.env);
const dir = join(home, "tokens");
const subjectFile = join(home, "subject.jwt");
const newSubject = (lifetimeSec = 3600) =>
  writeFileSync(
    subjectFile,
    emulator.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, subject: "job-1", lifetimeSec }),
  );
newSubject();

function fileAt(name: string, extra: Record<string, unknown> = {}) {
  const json = workloadFileJson(subjectFile, extra);
  const path = join(home, name);
  writeFileSync(path, JSON.stringify(json), { mode: 0o600 });
  return { json, path, file: parseExternalAccount(json, path) };
}

const request = (path: string, requested?: string[]) => ({
  path,
  env: process.env,
  universe,
  requested,
  cache: { fresh: false, dir },
  warnings: [],
});

test("STS's token is cloud-platform unless scopes are asked, kept while the subject token is the same", async () => {
  const { path, file } = fileAt("plain.json");
  const token = await federatedKind.accessToken(file, request(path));
  assert.deepEqual(emulator.checkAccessToken(token.access_token)?.scopes, [CLOUD]);
  const asked = await federatedKind.accessToken(file, request(path, [BIGQUERY]));
  assert.deepEqual(emulator.checkAccessToken(asked.access_token)?.scopes, [BIGQUERY]);
  assert.equal((await federatedKind.accessToken(file, request(path))).access_token, token.access_token);
  newSubject(1800);
  const renewed = await federatedKind.accessToken(file, request(path));
  assert.notEqual(renewed.access_token, token.access_token, "another subject token: another key");
});

test("through the file's service account: the account's token with the scopes asked, and its ID token", async () => {
  const { path, file } = fileAt("impersonating.json", { service_account_impersonation_url: IAM });
  const token = await federatedKind.accessToken(file, request(path, [BIGQUERY]));
  const held = emulator.checkAccessToken(token.access_token);
  assert.equal(held?.account, TARGET);
  assert.deepEqual(held?.scopes, [BIGQUERY]);
  const audience = "https://service.example/";
  const asked = { path, env: process.env, universe, audience, includeEmail: true, cache: { fresh: false, dir } };
  const id = await federatedKind.idToken(file, asked);
  const { claims } = decodeJwtParts(id.access_token);
  assert.equal(claims.aud, audience);
  assert.equal(claims.email, TARGET);
  assert.equal(id.token_type, "id_token");
  assert.equal(federatedKind.actsAs(file), TARGET);
  const client = await federatedKind.client(file, path, { scopes: [BIGQUERY], env: process.env, universe });
  const { token: clientToken } = await client.credentials.getAccessToken();
  assert.equal(emulator.checkAccessToken(clientToken as string)?.account, TARGET);
});

test("without a service account it mints no ID token: from its file, and from a client without a file", async () => {
  const { path, file } = fileAt("no-id.json");
  const asked = { path, env: process.env, universe, audience: "a", includeEmail: false, cache: { fresh: false, dir } };
  await assert.rejects(federatedKind.idToken(file, asked), (error: Error & { code?: string }) => {
    assert.equal(error.code, ERROR_CODES.ID_TOKEN_UNSUPPORTED);
    assert.ok(error.message.includes(JSON.stringify(path)), error.message);
    return true;
  });
  const viaFile: string[] = [];
  const clientRequest = {
    audience: "a",
    includeEmail: false,
    env: process.env,
    fromFile: async (from: string) => {
      viaFile.push(from);
      return { idToken: "t", expiresAt: 0 };
    },
    remembered: (mint: () => Promise<{ idToken: string; expiresAt: number }>) => mint(),
  };
  const { credentials, projectId } = await federatedKind.client(file, path, {
    scopes: [CLOUD],
    env: process.env,
    universe,
  });
  assert.equal(projectId, null);
  await assert.rejects(federatedKind.clientIdToken(credentials, clientRequest), {
    code: ERROR_CODES.ID_TOKEN_UNSUPPORTED,
    message: /^This federation client holds external_account credentials/,
  });
  const recorded = {};
  setCredentialInfo(recorded, { scopes: [], path });
  await federatedKind.clientIdToken(recorded as typeof credentials, clientRequest);
  assert.deepEqual(viaFile, [path]);
});

test("what status says, whose it is, and what revoke and login do with such a file", async () => {
  const { json, path, file } = fileAt("status.json", {
    service_account_impersonation_url: IAM,
    quota_project_id: "wif-project",
  });
  assert.deepEqual(federatedKind.describe(file, { path, universe, cached: () => ({ state: "none" }) }), {
    audience: DEFAULT_WORKLOAD_AUDIENCE,
    actsAs: TARGET,
    quotaProject: "wif-project",
    scopes: [CLOUD],
    universe: "googleapis.com",
    accessToken: {
      state: "unknown",
      why: "its key holds the subject token, read only when a token is asked (--check)",
    },
    noAccount: "a federated identity (the file names none)",
  });
  const plain = fileAt("status-plain.json").file;
  const status = federatedKind.describe(plain, { path, universe, cached: () => ({ state: "none" }) });
  assert.equal("actsAs" in status || "quotaProject" in status, false);
  assert.deepEqual(
    [federatedKind.account(file), federatedKind.signedInAccount(file), federatedKind.actsAs(plain)],
    [undefined, undefined, undefined],
  );
  assert.deepEqual(federatedKind.revocation(file, { universe, path }), {
    notRevocable:
      "holds identity federation credentials, whose tokens come from another identity provider and expire within an hour: disable the provider or remove the service account's binding to stop them",
  });
  assert.equal(federatedKind.notReplaceable(json), "identity federation credentials (external_account)");
  assert.deepEqual(federatedKind.cachedTokens(file, { universe, path }), { keys: [], owners: [] });
  assert.equal(federatedKind.keepsGrantedScopes, false);
  assert.equal(federatedKind.ownIdToken, false);
  const client = await federatedKind.client(file, path, { scopes: [CLOUD], env: process.env, universe });
  assert.equal(client.projectId, "wif-project");
});
