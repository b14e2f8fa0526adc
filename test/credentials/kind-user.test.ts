// The user kind (credentials/kinds/user/) as the table hands it out: its token (the scopes granted at sign-in),
// its own ID token or another audience's, what status, revoke and login say; its google-auth-library client,
// sharing print-token's token cache; a client whose secrets a store reads on first use; the file a client makes.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { UserRefreshClient } from "google-auth-library";
import { ERROR_CODES, loadUserCredentials } from "cred-auth";
import { credentialsCachedTokens, credentialsTokenKey } from "../../dist/credentials/kinds/google-credentials.js";
import {
  authorizedUserFileFrom,
  readPendingSecrets,
  userRefreshClientFrom,
  userRefreshClientWithLazySecrets,
} from "../../dist/credentials/kinds/user/client.js";
import { parseAuthorizedUser } from "../../dist/credentials/kinds/user/file.js";
import { userKind } from "../../dist/credentials/kinds/user/index.js";
import { attachTokenCache, cacheSignInToken } from "../../dist/credentials/kinds/user/shared-tokens.js";
import { getCredentialInfo } from "../../dist/protocols/info.js";
import { readCachedToken, tokenCacheKey, writeCachedToken } from "../../dist/token-cache/index.js";
import { trustedUniverse } from "../../dist/trust/urls.js";
import { decodeJwtParts } from "../support/id-tokens.ts";
import { OTHER_CLIENT, isolatedWorld } from "./support.ts";

const { emulator, home } = await isolatedWorld();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const BIGQUERY = "https://www.googleapis.com/auth/bigquery";
const SCOPES = ["openid", "https://www.googleapis.com/auth/userinfo.email", CLOUD];
const ACCOUNT = "alice@example.com";
const universe = trustedUniverse(process.env);
const dir = join(home, ".cache", "cred-auth", "tokens"); // print-token's, and a client's
const TOKEN_URL = `${emulator.url}/token`;
const HOUR = 3_600_000;

/** An `authorized_user` file's JSON for a fresh sign-in of OTHER_CLIENT, and its model. */
function userAt(name: string, extra: Record<string, unknown> = {}) {
  const json: Record<string, unknown> = {
    type: "authorized_user",
    client_id: OTHER_CLIENT.clientId,
    client_secret: OTHER_CLIENT.clientSecret,
    refresh_token: emulator.issueRefreshToken({ clientId: OTHER_CLIENT.clientId, scopes: SCOPES, account: ACCOUNT }),
    token_uri: TOKEN_URL,
    scopes: SCOPES,
    account: ACCOUNT,
    ...extra,
  };
  const path = join(home, name);
  return { json, path, file: parseAuthorizedUser(json, path) };
}

const request = (path: string, requested?: string[]) => ({
  path,
  env: process.env,
  universe,
  requested,
  cache: { fresh: false, dir },
  warnings: [],
});

const idRequest = (path: string, audience: string | undefined, includeEmail = false) => ({
  path,
  env: process.env,
  universe,
  audience,
  includeEmail,
  cache: { fresh: false, dir },
});

const requests = () => emulator.stats().tokenRequests;

test("its token carries the scopes granted at sign-in, whatever is asked, kept under print-token's key", async () => {
  const { path, file } = userAt("token.json");
  const token = await userKind.accessToken(file, request(path, [BIGQUERY]));
  assert.deepEqual(emulator.checkAccessToken(token.access_token)?.scopes.sort(), [...SCOPES].sort());
  assert.deepEqual(token.scopes, SCOPES);
  const key = credentialsTokenKey(file, SCOPES, { universe, path });
  assert.equal(readCachedToken(key, { dir })?.access_token, token.access_token);
  const before = requests();
  assert.equal((await userKind.accessToken(file, request(path))).access_token, token.access_token);
  assert.equal(requests(), before, "served from the token cache");
  // gcloud's file names no scopes: its token is keyed by none.
  const { path: bare, file: gcloud } = userAt("gcloud.json", { scopes: undefined });
  const plain = await userKind.accessToken(gcloud, request(bare));
  assert.equal(
    readCachedToken(credentialsTokenKey(gcloud, [], { universe, path: bare }), { dir })?.access_token,
    plain.access_token,
  );
  // A refused refresh token says which file.
  const { path: revokedPath, file: revoked } = userAt("revoked.json");
  emulator.revokeRefreshToken(revoked.refreshToken);
  await assert.rejects(userKind.accessToken(revoked, request(revokedPath)), (error: Error & { code?: string }) => {
    assert.equal(error.code, ERROR_CODES.INVALID_GRANT);
    assert.ok(
      error.message.includes(`Getting an access token with the user credentials in ${JSON.stringify(revokedPath)}`),
      error.message,
    );
    return true;
  });
});

test("its ID token: the signed-in client's own without an audience, another audience's when asked, each kept apart", async () => {
  const { path, file } = userAt("id.json");
  const own = await userKind.idToken(file, idRequest(path, OTHER_CLIENT.clientId));
  assert.equal(decodeJwtParts(own.access_token).claims.aud, OTHER_CLIENT.clientId);
  const before = emulator.stats().idTokens;
  assert.equal((await userKind.idToken(file, idRequest(path, undefined))).access_token, own.access_token, "one entry");
  const iap = `${OTHER_CLIENT.clientId.replace("other-tool", "iap")}`;
  emulator.addClient({ clientId: iap, clientSecret: "iap-secret", type: "web" });
  const other = await userKind.idToken(file, idRequest(path, iap));
  assert.equal(decodeJwtParts(other.access_token).claims.aud, iap);
  assert.notEqual(other.access_token, own.access_token);
  assert.equal((await userKind.idToken(file, idRequest(path, iap))).access_token, other.access_token);
  assert.equal(emulator.stats().idTokens, before + 1, "the audience's token kept too");
  const { path: revokedPath, file: revoked } = userAt("id-revoked.json");
  emulator.revokeRefreshToken(revoked.refreshToken);
  await assert.rejects(userKind.idToken(revoked, idRequest(revokedPath, undefined)), (error: Error) => {
    assert.ok(
      error.message.includes(`Getting an ID token with the user credentials in ${JSON.stringify(revokedPath)}`),
      error.message,
    );
    return true;
  });
});

test("what status says, whose it is, what revoke ends, that login may replace it", () => {
  const { json, path, file } = userAt("status.json", { quota_project_id: "user-project" });
  const looked: string[] = [];
  const status = userKind.describe(file, {
    path,
    universe,
    cached: (key: string) => {
      looked.push(key);
      return { state: "none" as const };
    },
  });
  assert.deepEqual(status, {
    account: ACCOUNT,
    scopes: SCOPES,
    quotaProject: "user-project",
    universe: "googleapis.com",
    accessToken: { state: "none" },
    signedIn: true,
  });
  assert.deepEqual(looked, [credentialsTokenKey(file, SCOPES, { universe, path })]);
  const other = userAt("status-other.json", { scopes: undefined, account: undefined });
  const bare = userKind.describe(other.file, { path, universe, cached: () => ({ state: "none" as const }) });
  assert.deepEqual(bare, { universe: "googleapis.com", accessToken: { state: "none" }, signedIn: true });
  assert.deepEqual(
    [userKind.account(file), userKind.signedInAccount(file), userKind.actsAs(file)],
    [ACCOUNT, ACCOUNT, undefined],
  );
  assert.deepEqual(userKind.revocation(file, { universe, path }), { grant: file, url: `${emulator.url}/revoke` });
  assert.equal(userKind.notReplaceable(json), undefined);
  assert.deepEqual(
    userKind.cachedTokens(file, { universe, path }),
    credentialsCachedTokens(file, SCOPES, { universe, path }),
  );
  const gcloud = userAt("status-gcloud.json", { scopes: undefined }).file;
  assert.deepEqual(
    userKind.cachedTokens(gcloud, { universe, path }),
    credentialsCachedTokens(gcloud, [], { universe, path }),
  );
  assert.equal(userKind.keepsGrantedScopes, true);
  assert.equal(userKind.ownIdToken, true);
});

test("default()'s client shares print-token's token cache both ways; an impersonation's source client does not", async () => {
  const { path, file } = userAt("client.json");
  const printed = await userKind.accessToken(file, request(path));
  const before = requests();
  const { credentials, projectId } = await userKind.client(file, path, { scopes: [CLOUD], env: process.env, universe });
  assert.equal(projectId, null);
  assert.equal((await credentials.getAccessToken()).token, printed.access_token, "the token print-token cached");
  assert.equal(requests(), before);
  // Its refresh is written back under the same key, for print-token and the next process.
  await (credentials as UserRefreshClient).refreshAccessToken();
  const refreshed = credentials.credentials.access_token;
  assert.notEqual(refreshed, printed.access_token);
  assert.equal(
    readCachedToken(credentialsTokenKey(file, SCOPES, { universe, path }), { dir })?.access_token,
    refreshed,
  );
  const source = await userKind.sourceClient(file, path, {
    env: process.env,
    universe,
    spot: { place: "file", check: () => {} },
  });
  assert.equal(source.projectId, null);
  const { token } = await source.credentials.getAccessToken();
  assert.notEqual(token, refreshed, "a source client asks the token server itself");
  assert.ok(emulator.checkAccessToken(token as string));
});

test("a client's ID token: print-identity-token's entry, for a client cred-auth built or one the caller built", async () => {
  const { path, file, json } = userAt("client-id.json");
  const fromFile = await userKind.idToken(file, idRequest(path, undefined));
  const client = await userRefreshClientFrom(file, { path, env: process.env, universe });
  const asked = { audience: OTHER_CLIENT.clientId, includeEmail: false, env: process.env };
  const mintsBefore = emulator.stats().idTokens;
  const served = await userKind.clientIdToken(client, {
    ...asked,
    fromFile: async () => assert.fail(),
    remembered: (m) => m(),
  });
  assert.equal(served.idToken, fromFile.access_token, "the file's cached entry");
  const caller = new UserRefreshClient({
    clientId: json.client_id as string,
    clientSecret: json.client_secret as string,
    refreshToken: json.refresh_token as string,
    endpoints: { oauth2TokenUrl: TOKEN_URL },
  });
  const callers = await userKind.clientIdToken(caller, {
    ...asked,
    fromFile: async () => assert.fail(),
    remembered: (m) => m(),
  });
  assert.equal(callers.idToken, fromFile.access_token, "the same secrets, the same entry");
  assert.equal(emulator.stats().idTokens, mintsBefore);
  // Another audience: its own token, for a client cred-auth built and one the caller built.
  const iap = "iap-client-id.apps.emulator.invalid";
  emulator.addClient({ clientId: iap, clientSecret: "iap-client-secret", type: "web" });
  for (const who of [client, caller]) {
    const forIap = await userKind.clientIdToken(who, {
      ...asked,
      audience: iap,
      fromFile: async () => assert.fail(),
      remembered: (m) => m(),
    });
    assert.equal(decodeJwtParts(forIap.idToken).claims.aud, iap);
  }
  // A refused grant says which file.
  emulator.revokeRefreshToken(file.refreshToken);
  await assert.rejects(
    userKind.clientIdToken(client, {
      ...asked,
      audience: "https://run.example/",
      fromFile: async () => assert.fail(),
      remembered: (m) => m(),
    }),
    (error: Error) =>
      error.message.includes(`Getting an ID token with the user credentials in ${JSON.stringify(path)}`),
  );
  const empty = new UserRefreshClient({ clientId: OTHER_CLIENT.clientId, clientSecret: OTHER_CLIENT.clientSecret });
  for (const none of [
    empty,
    new UserRefreshClient({ clientId: "c", refreshToken: "r" }),
    new UserRefreshClient({ clientSecret: "s", refreshToken: "r" }),
  ])
    await assert.rejects(
      userKind.clientIdToken(none, { ...asked, fromFile: async () => assert.fail(), remembered: (m) => m() }),
      {
        code: ERROR_CODES.ID_TOKEN_UNSUPPORTED,
        message:
          "These user credentials hold no refresh token or OAuth client secret, so they cannot ask for an ID token; load them from a file (loadUserCredentials) or sign in with cred-auth.",
      },
    );
});

test("the client cred-auth builds from a file: its token URL judged, its record, quota project, universe and ID token", async () => {
  const { path, file } = userAt("built.json", {
    quota_project_id: "built-project",
    id_token: "kept.id.token",
  });
  const client = await userRefreshClientFrom(file, { path, env: process.env, universe });
  assert.deepEqual(getCredentialInfo(client), {
    type: "authorized_user",
    scopes: SCOPES,
    clientId: OTHER_CLIENT.clientId,
    tokenUrl: TOKEN_URL,
    account: ACCOUNT,
    path,
  });
  assert.equal(client.quotaProjectId, "built-project");
  assert.equal(client.credentials.id_token, "kept.id.token");
  assert.equal(String(client.endpoints.oauth2TokenUrl), TOKEN_URL);
  assert.deepEqual(
    [client.endpoints.oauth2AuthBaseUrl, client.endpoints.oauth2RevokeUrl, client.endpoints.tokenInfoUrl].map(String),
    [`${emulator.url}/o/oauth2/v2/auth`, `${emulator.url}/revoke`, `${emulator.url}/tokeninfo`],
    "the emulator's, as every endpoint of this run",
  );
  const bare = await userRefreshClientFrom(
    userAt("built-bare.json", { scopes: undefined, account: undefined, token_uri: undefined }).file,
  );
  assert.deepEqual(getCredentialInfo(bare), {
    type: "authorized_user",
    scopes: [],
    clientId: OTHER_CLIENT.clientId,
    tokenUrl: `${emulator.url}/token`,
  });
  assert.equal(bare.quotaProjectId, undefined);
  assert.equal(bare.credentials.id_token, undefined);
  await assert.rejects(
    userRefreshClientFrom(userAt("evil.json", { token_uri: "https://evil.example/token" }).file, { path, universe }),
    { code: ERROR_CODES.UNSAFE_TOKEN_URL },
  );
  const loaded = await loadUserCredentials(await writeJson("loaded.json", userAt("loaded.json").json));
  assert.ok(
    emulator.checkAccessToken(loaded.credentials.access_token as string),
    "loadUserCredentials proves the file",
  );
  const revoked = userAt("load-revoked.json");
  emulator.revokeRefreshToken(revoked.file.refreshToken);
  const revokedPath = await writeJson("load-revoked.json", revoked.json);
  await assert.rejects(loadUserCredentials(revokedPath), (error: Error) => {
    assert.ok(
      error.message.includes(`Getting an access token with the user credentials in ${JSON.stringify(revokedPath)}`),
      error.message,
    );
    return true;
  });
});

async function writeJson(name: string, json: Record<string, unknown>): Promise<string> {
  const { writeFileSync } = await import("node:fs");
  const path = join(home, name);
  writeFileSync(path, JSON.stringify(json), { mode: 0o600 });
  return path;
}

test("a client whose secrets a store keeps: read once, on the first refresh; a warm start reads none", async () => {
  const { path, file } = userAt("lazy.json");
  const { clientSecret, refreshToken, ...fields } = file;
  const standIn = `stand-in-${Date.now()}`;
  let reads = 0;
  let failing = true;
  const readSecrets = async () => {
    reads += 1;
    if (failing) throw new Error("the store is locked");
    return { clientSecret, refreshToken };
  };
  const client = await userRefreshClientWithLazySecrets(fields, standIn, readSecrets, {
    path,
    env: process.env,
    universe,
  });
  assert.equal(client.credentials.refresh_token, undefined, "no secret in it before it is read");
  await assert.rejects(client.getAccessToken(), /the store is locked/);
  failing = false;
  const { token } = await client.getAccessToken();
  assert.ok(emulator.checkAccessToken(token as string));
  assert.equal(reads, 2, "a failed read is tried again, a good one kept");
  await readPendingSecrets(client);
  assert.equal(reads, 2);
  const key = tokenCacheKey(
    { type: "authorized_user", clientId: file.clientId, refreshToken: standIn },
    SCOPES,
    TOKEN_URL,
  );
  assert.equal(readCachedToken(key, { dir })?.access_token, token, "cached under the stand-in's key");
  // A warm start: another process's client finds the token, reading no secret.
  const warm = await userRefreshClientWithLazySecrets(fields, standIn, readSecrets, {
    path,
    env: process.env,
    universe,
  });
  assert.equal((await warm.getAccessToken()).token, token);
  assert.equal(reads, 2);
  // A token it holds found wanting is not answered from the cache.
  const stale = await userRefreshClientWithLazySecrets(fields, standIn, readSecrets, {
    path,
    env: process.env,
    universe,
  });
  stale.setCredentials({ access_token: "stale", expiry_date: Date.now() - 1000 });
  const fresh = (await stale.getAccessToken()).token;
  assert.notEqual(fresh, token);
  assert.ok(emulator.checkAccessToken(fresh as string));
  // Its ID token and a save read the secrets first, once.
  let idReads = 0;
  const idClient = await userRefreshClientWithLazySecrets(
    fields,
    `${standIn}-id`,
    async () => {
      idReads += 1;
      return { clientSecret, refreshToken };
    },
    { path, env: process.env, universe },
  );
  const idToken = await idClient.fetchIdToken(OTHER_CLIENT.clientId);
  assert.equal(decodeJwtParts(idToken).claims.aud, OTHER_CLIENT.clientId);
  await readPendingSecrets(idClient);
  assert.equal(idReads, 1);
  assert.equal(authorizedUserFileFrom(idClient).refreshToken, refreshToken, "the secrets read are the file's");
  await readPendingSecrets({});
});

test("a user client's refreshes go to the token cache; a cached token is set on it, and dropped when its grant is gone", async () => {
  const { path, file } = userAt("attach.json");
  const key = credentialsTokenKey(file, SCOPES, { universe, path });
  const client = await userRefreshClientFrom(file, { path, env: process.env, universe });
  assert.equal(attachTokenCache(client, { dir }), false, "nothing cached yet");
  assert.equal(attachTokenCache(client, { dir }), false, "attached once");
  await client.getAccessToken();
  const first = readCachedToken(key, { dir });
  assert.equal(first?.access_token, client.credentials.access_token);
  assert.deepEqual(first?.scopes, SCOPES);
  assert.equal(first?.token_type, "Bearer");
  assert.equal("refresh_token" in (first ?? {}), false, "never a refresh token in the token cache");
  // A second client takes the cached token, asking no server; one that holds a good token keeps its own.
  const before = requests();
  const second = await userRefreshClientFrom(file, { path, env: process.env, universe });
  assert.equal(attachTokenCache(second, { dir }), true);
  assert.equal(second.credentials.access_token, first?.access_token);
  assert.equal(second.credentials.refresh_token, file.refreshToken, "its credentials stay as they were");
  assert.equal(requests(), before);
  const holding = await userRefreshClientFrom(file, { path, env: process.env, universe });
  holding.setCredentials({ ...holding.credentials, access_token: "mine", expiry_date: Date.now() + HOUR });
  assert.equal(attachTokenCache(holding, { dir }), false);
  assert.equal(holding.credentials.access_token, "mine");
  // A cached token with 5 minutes or less left is not taken.
  writeCachedToken(
    key,
    { access_token: "nearly-gone", expiry_date: Date.now() + 299_000, token_type: "Bearer", scopes: SCOPES },
    { dir },
  );
  const late = await userRefreshClientFrom(file, { path, env: process.env, universe });
  assert.equal(attachTokenCache(late, { dir }), false);
  assert.equal(late.credentials.access_token, undefined);
  // Off, or without a file: nothing shared.
  const off = await userRefreshClientFrom(file, { path, env: process.env, universe });
  const fileless = await userRefreshClientFrom(file, { env: process.env, universe });
  writeCachedToken(
    key,
    { access_token: "cached", expiry_date: Date.now() + HOUR, token_type: "Bearer", scopes: SCOPES },
    { dir },
  );
  assert.equal(attachTokenCache(fileless, { dir }), false);
  assert.equal(attachTokenCache(off, { dir: false }), false);
  assert.equal(off.credentials.access_token, undefined);
  const twice = await userRefreshClientFrom(file, { path, env: process.env, universe });
  assert.equal(attachTokenCache(twice, { dir }), true);
  assert.equal(attachTokenCache(twice, { dir }), false, "attached once");
  // A token server that cannot answer now: the refresh fails, and the cached token stays for the next try.
  const unlucky = await userRefreshClientFrom(file, { path, env: process.env, universe });
  assert.equal(attachTokenCache(unlucky, { dir }), true);
  emulator.failNext(5);
  try {
    await assert.rejects(unlucky.refreshAccessToken(), (error: Error) => error.name === "CredConnectionError");
  } finally {
    emulator.reset();
  }
  assert.equal(readCachedToken(key, { dir })?.access_token, "cached");
  // The cached token outlived its grant: the API's refusal forces a refresh, which fails, and the entry goes.
  const orphan = await userRefreshClientFrom(file, { path, env: process.env, universe });
  assert.equal(attachTokenCache(orphan, { dir }), true);
  assert.equal(orphan.forceRefreshOnFailure, true);
  emulator.revokeRefreshToken(file.refreshToken);
  await assert.rejects(orphan.refreshAccessToken(), (error: Error & { code?: string }) => {
    assert.equal(error.code, ERROR_CODES.INVALID_GRANT);
    assert.match(error.message, /^Refreshing the user credentials/);
    return true;
  });
  assert.equal(readCachedToken(key, { dir }), undefined, "the entry is gone");
});

test("a sign-in's own token goes into the token cache under its saved file's key", async () => {
  const { path, file, json } = userAt("sign-in.json");
  await writeJson("sign-in.json", json);
  const token = { accessToken: "signed-in-token", expiryDate: Date.now() + HOUR };
  assert.equal(cacheSignInToken({ ...file, tokenUrl: TOKEN_URL }, token, { dir }), true);
  const key = credentialsTokenKey(file, SCOPES, { universe, path });
  assert.deepEqual(readCachedToken(key, { dir }), {
    access_token: "signed-in-token",
    expiry_date: token.expiryDate,
    token_type: "Bearer",
    scopes: SCOPES,
  });
  assert.equal(cacheSignInToken(file, { accessToken: "x" }, { dir }), false, "no expiry, not cached");
  assert.equal(cacheSignInToken(file, token, { dir: false }), false);
  assert.equal(cacheSignInToken({ ...file, tokenUrl: TOKEN_URL }, token, { dir: join(path, "not-a-dir") }), false);
});

test("the file a client makes: its own record, or a caller's client's public fields, judged; none without its secrets", () => {
  const built = (oauth2TokenUrl: string) =>
    new UserRefreshClient({
      clientId: "cid",
      clientSecret: "csecret",
      refreshToken: "rtoken",
      endpoints: { oauth2TokenUrl },
    });
  const caller = built(TOKEN_URL);
  caller.setCredentials({ ...caller.credentials, scope: "openid  email", id_token: "idt" });
  caller.quotaProjectId = "qp";
  assert.deepEqual(authorizedUserFileFrom(caller), {
    type: "authorized_user",
    clientId: "cid",
    clientSecret: "csecret",
    refreshToken: "rtoken",
    tokenUrl: TOKEN_URL,
    scopes: ["openid", "email"],
    idToken: "idt",
    quotaProjectId: "qp",
    universeDomain: "googleapis.com",
  });
  const unscoped = built(TOKEN_URL);
  assert.deepEqual(authorizedUserFileFrom(unscoped).scopes, []);
  const evil = built("https://evil.example/token");
  assert.throws(() => authorizedUserFileFrom(evil, "saved.json"), { code: ERROR_CODES.UNSAFE_TOKEN_URL });
  assert.throws(() => authorizedUserFileFrom(new UserRefreshClient({ clientId: "c", clientSecret: "s" })), {
    code: ERROR_CODES.NOT_SAVABLE,
    message: "These credentials hold no refresh token, so they cannot be saved; sign in again with offline access.",
  });
  for (const partial of [{ clientId: "c" }, { clientSecret: "s" }])
    assert.throws(() => authorizedUserFileFrom(new UserRefreshClient({ ...partial, refreshToken: "r" })), {
      code: ERROR_CODES.NOT_SAVABLE,
      message:
        "These credentials have no OAuth client id and secret, so they cannot be saved as an authorized_user file.",
    });
});

test("the file of a client cred-auth built keeps its record: scopes, account, universe", async () => {
  const { path, file } = userAt("record.json", { universe_domain: "googleapis.com", quota_project_id: "rq" });
  const client = await userRefreshClientFrom(file, { path, env: process.env, universe });
  assert.deepEqual(authorizedUserFileFrom(client), {
    type: "authorized_user",
    clientId: file.clientId,
    clientSecret: file.clientSecret,
    refreshToken: file.refreshToken,
    tokenUrl: TOKEN_URL,
    scopes: SCOPES,
    quotaProjectId: "rq",
    universeDomain: "googleapis.com",
    account: ACCOUNT,
  });
});
