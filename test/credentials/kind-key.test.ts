// The key kind (credentials/kinds/key/) as the table hands it out: its tokens' scopes and cache keys, what
// status says of a key, that revoke cannot end one but forgets its tokens, that login will not replace it,
// its clients (default()'s, an impersonated file's source, the public loader) and their failures' words.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { JWT } from "google-auth-library";
import { ERROR_CODES, fetchIdToken, loadServiceAccountCredentials } from "cred-auth";
import type { CachedTokenState } from "../../dist/credentials/kinds/kind.js";
import { keyKind } from "../../dist/credentials/kinds/key/index.js";
import { parseServiceAccountKey } from "../../dist/credentials/kinds/key/file.js";
import { getCredentialInfo } from "../../dist/protocols/info.js";
import { readCachedToken } from "../../dist/token-cache/store.js";
import { trustedUniverse } from "../../dist/trust/urls.js";
import { withEmulator } from "../support/emulator.ts";
import { decodeJwtParts, pointJwtAt } from "../support/id-tokens.ts";
import { isolatedWorld } from "./support.ts";

const { emulator, home } = await isolatedWorld();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const BIGQUERY = "https://www.googleapis.com/auth/bigquery";
const dir = join(home, "tokens");
const universe = trustedUniverse(process.env);

function keyAt(name: string, extra: Record<string, string> = {}) {
  const json = { ...emulator.createServiceAccountKey({ projectId: "key-project" }), ...extra };
  const path = join(home, name);
  writeFileSync(path, JSON.stringify(json), { mode: 0o600 });
  return { json, path, file: parseServiceAccountKey(json, path) };
}

const request = (path: string, requested?: string[]) => ({
  path,
  env: process.env,
  universe,
  requested,
  cache: { fresh: false, dir },
  warnings: [],
});

test("a key's token carries cloud-platform unless scopes are asked, cached under the key status and revoke use", async () => {
  const { path, file } = keyAt("key.json");
  const token = await keyKind.accessToken(file, request(path));
  assert.deepEqual(emulator.checkAccessToken(token.access_token)?.scopes, [CLOUD]);
  const asked = await keyKind.accessToken(file, request(path, [BIGQUERY]));
  assert.deepEqual(emulator.checkAccessToken(asked.access_token)?.scopes, [BIGQUERY]);
  const looked: string[] = [];
  const cached = (key: string): CachedTokenState => {
    looked.push(key);
    const entry = readCachedToken(key, { dir });
    return entry ? { state: "cached", expiryDate: entry.expiry_date } : { state: "none" };
  };
  assert.deepEqual(keyKind.describe(file, { path, universe, cached }), {
    account: file.clientEmail,
    scopes: [CLOUD],
    projectId: "key-project",
    universe: "googleapis.com",
    accessToken: { state: "cached", expiryDate: token.expiry_date },
  });
  const { keys, owners } = keyKind.cachedTokens(file, { universe, path });
  assert.ok(keys.includes(looked[0] as string), "revoke forgets the token status saw");
  assert.equal(owners.length, keys.length);
});

test("what status says of a key with a quota project and a universe, and whose it is", () => {
  const { path, file } = keyAt("quota.json", { quota_project_id: "billing", universe_domain: "googleapis.com" });
  const status = keyKind.describe(file, { path, universe, cached: () => ({ state: "none" }) });
  assert.equal(status.quotaProject, "billing");
  assert.equal(status.universe, "googleapis.com");
  assert.equal(keyKind.account(file), file.clientEmail);
  assert.equal(keyKind.signedInAccount(file), undefined);
  assert.equal(keyKind.actsAs(file), undefined);
  assert.equal(keyKind.keepsGrantedScopes, false);
  assert.equal(keyKind.ownIdToken, false);
});

test("a key cannot be revoked with a request, and login will not replace one", () => {
  const { json, path, file } = keyAt("revoke.json");
  const revocation = keyKind.revocation(file, { universe, path });
  assert.ok("notRevocable" in revocation);
  assert.equal(
    revocation.notRevocable,
    "holds a service account key, which cannot be revoked with a request: delete the key in IAM (gcloud iam service-accounts keys delete KEY_ID --iam-account EMAIL)",
  );
  assert.equal(keyKind.notReplaceable(json), "a service account key (service_account)");
});

test("a key's ID token is for the audience asked, and kept: the second ask mints none", async () => {
  const { path, file } = keyAt("id.json");
  const audience = "https://service.example/";
  const asked = { path, env: process.env, universe, audience, includeEmail: false, cache: { fresh: false, dir } };
  const first = await keyKind.idToken(file, asked);
  assert.equal(decodeJwtParts(first.access_token).claims.aud, audience);
  assert.equal(decodeJwtParts(first.access_token).claims.email, file.clientEmail);
  const minted = emulator.stats().idTokens;
  assert.equal((await keyKind.idToken(file, asked)).access_token, first.access_token);
  assert.equal(emulator.stats().idTokens, minted);
});

test("default()'s client has the scopes asked and the key's project; an impersonated file's source, cloud-platform", async () => {
  const { path, file } = keyAt("client.json");
  const env = process.env;
  const client = await keyKind.client(file, path, { scopes: [BIGQUERY], env, universe });
  assert.equal(client.projectId, "key-project");
  const { token } = await client.credentials.getAccessToken();
  assert.deepEqual(emulator.checkAccessToken(token as string)?.scopes, [BIGQUERY]);
  const spot = { place: "source_credentials" as const, check: () => {} };
  const source = await keyKind.sourceClient(file, path, { env, universe, spot });
  assert.equal(source.projectId, "key-project");
  const sourceToken = (await source.credentials.getAccessToken()).token as string;
  assert.deepEqual(emulator.checkAccessToken(sourceToken)?.scopes, [CLOUD]);
});

test("loadServiceAccountCredentials: the key's fields on the JWT, what it is recorded as, cloud-platform by default", async () => {
  const extra = { client_id: "1234", private_key_id: "kid-1", quota_project_id: "billing" };
  const { json, path } = keyAt("loaded.json", extra);
  const credentials = await loadServiceAccountCredentials(path);
  assert.equal(credentials.projectId, "key-project");
  assert.equal(credentials.keyId, "kid-1");
  assert.equal(credentials.quotaProjectId, "billing");
  assert.deepEqual(emulator.checkAccessToken(credentials.credentials.access_token as string)?.scopes, [CLOUD]);
  assert.deepEqual(getCredentialInfo(credentials), {
    type: "service_account",
    scopes: [CLOUD],
    account: json.client_email,
    tokenUrl: json.token_uri,
    clientId: "1234",
    path,
  });
  const scoped = await loadServiceAccountCredentials(path, [BIGQUERY]);
  assert.deepEqual(getCredentialInfo(scoped)?.scopes, [BIGQUERY]);
});

test("a key the token server does not know is named with its file, by the loader and by the kind; a silent server times out", async () => {
  const other = await withEmulator();
  const { path, file } = keyAt("unknown.json", {
    ...other.createServiceAccountKey(),
    token_uri: `${emulator.url}/token`,
  });
  const whose = `service account ${file.clientEmail} with the key in ${JSON.stringify(path)}`;
  await assert.rejects(loadServiceAccountCredentials(path), (error: Error) => {
    assert.ok(error.message.startsWith(`Getting an access token for ${whose}`), error.message);
    return true;
  });
  await assert.rejects(keyKind.accessToken(file, request(path)), (error: Error) => {
    assert.ok(error.message.startsWith(`Getting an access token for ${whose}`), error.message);
    return true;
  });
  const audience = "https://service.example/unknown";
  const asked = { path, env: process.env, universe, audience, includeEmail: false, cache: { fresh: true, dir } };
  await assert.rejects(keyKind.idToken(file, asked), (error: Error) => {
    assert.ok(error.message.startsWith(`Getting an ID token for ${whose}`), error.message);
    return true;
  });
  const known = keyAt("silent.json");
  emulator.failNext(10, { kind: "hang" });
  try {
    await assert.rejects(loadServiceAccountCredentials(known.path, undefined, { timeoutMs: 150 }), {
      code: ERROR_CODES.TIMEOUT,
    });
  } finally {
    emulator.reset();
  }
});

test("a caller's JWT asks its ID token through a client cred-auth builds from its key, kept under the key's entry", async () => {
  const { json, path, file } = keyAt("caller.json");
  const closed = await withEmulator();
  await closed.close();
  const dead = `${closed.url}/token`;
  const jwt = new JWT({ email: json.client_email, key: json.private_key, keyId: json.private_key_id });
  pointJwtAt(jwt, dead); // its own gaxios would go nowhere: cred-auth's sender reaches the emulator
  const audience = "https://service.example/caller";
  const token = await fetchIdToken(audience, { credentials: jwt });
  assert.equal(decodeJwtParts(token).claims.aud, audience);
  const minted = emulator.stats().idTokens;
  assert.equal(
    await fetchIdToken(audience, {
      credentials: new JWT({ email: json.client_email, key: json.private_key, keyId: json.private_key_id }),
    }),
    token,
    "the key's entry",
  );
  assert.equal(emulator.stats().idTokens, minted);
  const other = new JWT({ email: json.client_email, key: json.private_key, keyId: "another-kid" });
  await fetchIdToken(audience, { credentials: other });
  assert.equal(emulator.stats().idTokens, minted + 1, "another key id: another entry");
  const loaded = await loadServiceAccountCredentials(path);
  const shared = `${audience}/shared`;
  await fetchIdToken(shared, { credentials: loaded });
  const before = emulator.stats().idTokens;
  const cache = { fresh: false, dir: join(home, ".cache", "cred-auth", "tokens") };
  await keyKind.idToken(file, { path, env: process.env, universe, audience: shared, includeEmail: false, cache });
  assert.equal(emulator.stats().idTokens, before, "print-identity-token's entry for the file is its client's");
  const delegated = new JWT({ email: json.client_email, key: json.private_key, subject: "someone@example.com" });
  pointJwtAt(delegated, dead);
  await assert.rejects(fetchIdToken(`${audience}/subject`, { credentials: delegated }), (error: Error) => {
    assert.ok(error.message.startsWith(`Getting an ID token for service account ${json.client_email}`), error.message);
    return true;
  });
});

test("a key without a universe is the trusted one's; clients record their file and build with no scopes as cloud-platform", async () => {
  const { json, path } = keyAt("no-universe.json");
  const { universe_domain: _, ...bare } = json;
  const file = parseServiceAccountKey(bare, path);
  assert.equal(file.universeDomain, undefined);
  assert.equal(keyKind.describe(file, { path, universe, cached: () => ({ state: "none" }) }).universe, universe.domain);
  const env = process.env;
  const client = await keyKind.client(file, path, { scopes: [], env, universe });
  assert.equal(getCredentialInfo(client.credentials)?.path, path);
  assert.deepEqual(getCredentialInfo(client.credentials)?.scopes, [CLOUD]);
  const spot = { place: "source_credentials" as const, check: () => {} };
  const source = await keyKind.sourceClient(file, path, { env, universe, spot });
  assert.equal(getCredentialInfo(source.credentials)?.path, path);
  const loaded = await loadServiceAccountCredentials(path, []);
  assert.deepEqual(getCredentialInfo(loaded)?.scopes, [CLOUD]);
  assert.equal(loaded.universeDomain, "googleapis.com");
});
