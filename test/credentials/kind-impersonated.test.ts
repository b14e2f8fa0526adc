// The impersonated kind (credentials/kinds/impersonated/) as the table hands it out: the account's token with the
// scopes asked (else the file's, else cloud-platform), its ID token, what status says, that revoke ends its user
// source's grant and forgets every token, that login replaces only a user-sourced one, default()'s client.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ERROR_CODES } from "cred-auth";
import type { Kind } from "../../dist/credentials/kinds/kind.js";
import type { ImpersonatedFile } from "../../dist/credentials/kinds/impersonated/file.js";
import { kindNamed, parseAdcBytes } from "../../dist/credentials/kinds/table.js";
import { setCredentialInfo } from "../../dist/protocols/info.js";
import { trustedUniverse } from "../../dist/trust/urls.js";
import { testCredentialsFile } from "../support/emulator.ts";
import { decodeJwtParts } from "../support/id-tokens.ts";
import { isolatedWorld } from "./support.ts";

const { emulator, home } = await isolatedWorld();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const BIGQUERY = "https://www.googleapis.com/auth/bigquery";
const TARGET = "acted@imp-kind.iam.gserviceaccount.com";
const IAM = `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${TARGET}:generateAccessToken`;
emulator.addServiceAccount({ email: TARGET, tokenCreators: ["user:alice@example.com"] });
const kind = kindNamed("impersonated_service_account") as unknown as Kind<ImpersonatedFile>;
const universe = trustedUniverse(process.env);
const dir = join(home, "tokens");

async function fileAt(name: string, extra: Record<string, unknown> = {}) {
  const source = await testCredentialsFile(emulator, join(home, `${name}-source`), {
    scopes: [CLOUD],
    account: "alice@example.com",
  });
  const json = {
    type: "impersonated_service_account",
    delegates: [],
    service_account_impersonation_url: IAM,
    source_credentials: { ...JSON.parse(readFileSync(source, "utf8")), account: "alice@example.com" },
    ...extra,
  };
  const path = join(home, name);
  writeFileSync(path, JSON.stringify(json), { mode: 0o600 });
  return { json, path, file: parseAdcBytes(new TextEncoder().encode(JSON.stringify(json)), path) as ImpersonatedFile };
}

const request = (path: string, requested?: string[]) => ({
  path,
  env: process.env,
  universe,
  requested,
  cache: { fresh: false, dir },
  warnings: [],
});
const accountOf = (token: string) => emulator.checkAccessToken(token);

test("the account's token: the scopes asked, else the file's, else cloud-platform; each kept under its own key", async () => {
  const { path, file } = await fileAt("scopes.json");
  const plain = await kind.accessToken(file, request(path));
  assert.equal(accountOf(plain.access_token)?.account, TARGET);
  assert.deepEqual(accountOf(plain.access_token)?.scopes, [CLOUD]);
  const asked = await kind.accessToken(file, request(path, [BIGQUERY]));
  assert.deepEqual(accountOf(asked.access_token)?.scopes, [BIGQUERY]);
  assert.equal((await kind.accessToken(file, request(path, [BIGQUERY]))).access_token, asked.access_token);
  const scoped = await fileAt("file-scopes.json", { scopes: [BIGQUERY] });
  const own = await kind.accessToken(scoped.file, request(scoped.path));
  assert.deepEqual(accountOf(own.access_token)?.scopes, [BIGQUERY]);
});

test("its ID token is the account's, for the audience asked, with the e-mail when asked", async () => {
  const { path, file } = await fileAt("id.json");
  const audience = "https://service.example/";
  const asked = { path, env: process.env, universe, audience, includeEmail: true, cache: { fresh: false, dir } };
  const id = await kind.idToken(file, asked);
  const { claims } = decodeJwtParts(id.access_token);
  assert.equal(claims.aud, audience);
  assert.equal(claims.email, TARGET);
  assert.equal(id.token_type, "id_token");
});

test("what status says of it, and whose it is: the source's account, acting as the file's target", async () => {
  const { path, file } = await fileAt("status.json", { quota_project_id: "billing", delegates: [] });
  const looked: string[] = [];
  const status = kind.describe(file, {
    path,
    universe,
    cached: (key) => {
      looked.push(key);
      return { state: "none" };
    },
  });
  assert.deepEqual(status, {
    account: "alice@example.com",
    quotaProject: "billing",
    actsAs: TARGET,
    delegates: [],
    scopes: [CLOUD],
    universe: "googleapis.com",
    accessToken: { state: "none" },
  });
  const { keys, owners } = kind.cachedTokens(file, { universe, path });
  assert.ok(keys.includes(looked[0] as string), "revoke forgets the token status looked for");
  assert.equal(keys.length, 2, "the source's (its loopback token_uri: one) and its own");
  assert.equal(owners.length, 2);
  assert.equal(kind.account(file), "alice@example.com");
  assert.equal(kind.signedInAccount(file), "alice@example.com");
  assert.equal(kind.actsAs(file), TARGET);
  assert.deepEqual([kind.keepsGrantedScopes, kind.ownIdToken], [false, false]);
});

test("revoke ends its user source's grant; login replaces a user-sourced file only", async () => {
  const { json, path, file } = await fileAt("revoke.json");
  const revocation = kind.revocation(file, { universe, path });
  assert.ok("grant" in revocation);
  assert.equal(revocation.grant.refreshToken, (json.source_credentials as { refresh_token: string }).refresh_token);
  assert.equal(kind.notReplaceable(json), undefined);
  const keySourced = { ...json, source_credentials: emulator.createServiceAccountKey() };
  assert.equal(
    kind.notReplaceable(keySourced),
    "an impersonated_service_account file whose source is not a user's sign-in",
  );
  assert.equal(kind.notReplaceable({ ...json, source_credentials: null }), kind.notReplaceable(keySourced));
});

test("default()'s client acts as the account; a client's ID token is its file's when it has one", async () => {
  const { path, file } = await fileAt("client.json");
  const client = await kind.client(file, path, { scopes: [BIGQUERY], env: process.env, universe });
  const { token } = await client.credentials.getAccessToken();
  assert.equal(accountOf(token as string)?.account, TARGET);
  assert.deepEqual(accountOf(token as string)?.scopes, [BIGQUERY]);
  const viaFile: string[] = [];
  const clientRequest = {
    audience: "https://service.example/",
    includeEmail: false,
    env: process.env,
    fromFile: async (from: string) => {
      viaFile.push(from);
      return { idToken: "t", expiresAt: 0 };
    },
    remembered: (mint: () => Promise<{ idToken: string; expiresAt: number }>) => mint(),
  };
  const recorded = {};
  setCredentialInfo(recorded, { scopes: [], path });
  await kind.clientIdToken(recorded as typeof client.credentials, clientRequest);
  assert.deepEqual(viaFile, [path]);
  const own = await kind.clientIdToken(client.credentials, clientRequest);
  assert.equal(decodeJwtParts(own.idToken).claims.aud, "https://service.example/");
  assert.deepEqual(viaFile, [path], "default()'s own client asks IAM itself");
});

test("an account the source may not act as is a coded refusal", async () => {
  const { path, file } = await fileAt("denied.json", {
    service_account_impersonation_url: IAM.replace(TARGET, "other@imp-kind.iam.gserviceaccount.com"),
  });
  await assert.rejects(kind.accessToken(file, request(path)), (error: Error & { code?: string }) => {
    assert.ok(
      error.code === ERROR_CODES.SERVICE_ACCOUNT_NOT_FOUND || error.code === ERROR_CODES.IMPERSONATION_DENIED,
      `${error.code}`,
    );
    return true;
  });
});
