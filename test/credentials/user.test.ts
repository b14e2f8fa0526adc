// getUserCredentials / saveUserCredentials against the emulator, with the real disk caches.
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { CredConnectionError, CredCredentialsError, cache, getUserCredentials, saveUserCredentials } from "cred-auth";
import { approveSignIn } from "cred-auth/emulator";
import { SignInPendingError } from "../../dist/oauth/flow.js";
import { OTHER_CLIENT, browserPresenter, isolatedWorld, withEnv } from "./support.ts";

const { emulator, home } = await isolatedWorld();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const BIGQUERY = "https://www.googleapis.com/auth/bigquery";
const EMAIL = "https://www.googleapis.com/auth/userinfo.email";
const cachePath = join(home, ".config", "cred", "cred_credentials.json");
const cachedFile = () =>
  JSON.parse(readFileSync(cachePath, "utf8")) as { refresh_token: string; scopes: string[]; client_id: string };
const grants = (kind: string) => emulator.stats().byGrant[kind] ?? 0;

test("first call signs in through the loopback flow and saves to the cache (0600)", async () => {
  const b = browserPresenter({ account: "carol@example.com" });
  const codes = grants("authorization_code");
  const credentials = await getUserCredentials([CLOUD], { presenter: b.presenter, useLocalWebserver: true });
  assert.deepEqual(b.types(), ["url", "waiting", "signed-in"]);
  assert.equal(grants("authorization_code") - codes, 2, "the client check's made-up code, then the exchange");
  assert.equal(credentials.constructor.name, "UserRefreshClient");
  const before = emulator.stats().tokenRequests;
  const { token } = await credentials.getAccessToken();
  assert.equal(emulator.stats().tokenRequests, before, "the sign-in's access token is used as is");
  assert.equal(emulator.checkAccessToken(token!)?.account, "carol@example.com");
  assert.equal(statSync(cachePath).mode & 0o777, 0o600);
  // Google grants in its own order (the strict emulator): compare as sets.
  assert.deepEqual(
    [...cachedFile().scopes].sort(),
    [CLOUD, "openid", EMAIL].sort(),
    "the account scopes are asked for by default",
  );
  assert.equal(JSON.parse(readFileSync(cachePath, "utf8")).account, "carol@example.com", "the account is recorded");
  assert.deepEqual(b.events.at(-1), { type: "signed-in", account: "carol@example.com", savedTo: cachePath });
});

test("a cache hit covering the scopes runs no flow and no token request: the sign-in's token was cached", async () => {
  const b = browserPresenter();
  const { authorizations, tokenRequests } = emulator.stats();
  const credentials = await getUserCredentials([CLOUD], { presenter: b.presenter, useLocalWebserver: true });
  assert.deepEqual(b.types(), []);
  assert.equal(emulator.stats().authorizations, authorizations);
  assert.equal(emulator.stats().tokenRequests - tokenRequests, 0, "as after a kernel restart: 0 token requests");
  const { token } = await credentials.getAccessToken();
  assert.equal(emulator.checkAccessToken(token!)?.account, "carol@example.com");
});

test("a scope the cache lacks triggers a new sign-in, and the cache then holds it", async () => {
  const b = browserPresenter();
  const credentials = await getUserCredentials([CLOUD, BIGQUERY], { presenter: b.presenter, useLocalWebserver: true });
  assert.deepEqual(b.types(), ["url", "waiting", "signed-in"]);
  assert.deepEqual(
    new URL((b.events[0] as { url: string }).url).searchParams.get("scope"),
    `${CLOUD} ${BIGQUERY} openid ${EMAIL}`,
  );
  assert.deepEqual([...cachedFile().scopes].sort(), [BIGQUERY, CLOUD, EMAIL, "openid"]);
  const { token } = await credentials.getAccessToken();
  assert.ok(emulator.checkAccessToken(token!)?.scopes.includes(BIGQUERY));
});

test("a revoked refresh token in the cache leads to a new sign-in, not an error", async () => {
  const revoked = cachedFile().refresh_token;
  emulator.revokeRefreshToken(revoked);
  const b = browserPresenter();
  // Without the token cache: its still-valid access token would spare the refresh that finds out.
  const credentials = await withEnv({ CRED_AUTH_TOKEN_CACHE: "off" }, () =>
    getUserCredentials([CLOUD], { presenter: b.presenter, useLocalWebserver: true }),
  );
  assert.deepEqual(b.types(), ["url", "waiting", "signed-in"]);
  assert.notEqual(cachedFile().refresh_token, revoked);
  assert.ok((await credentials.getAccessToken()).token);
});

test("token server down while proving the cache: CredConnectionError, no sign-in started", async () => {
  const b = browserPresenter();
  emulator.failNext(20, { status: 503 });
  try {
    await assert.rejects(
      withEnv({ CRED_AUTH_TOKEN_CACHE: "off" }, () =>
        getUserCredentials([CLOUD], { presenter: b.presenter, useLocalWebserver: true }),
      ),
      CredConnectionError,
    );
  } finally {
    emulator.reset();
  }
  assert.deepEqual(b.types(), []);
});

test("another client id than the cached one signs in again, as that client", async () => {
  assert.notEqual(cachedFile().client_id, OTHER_CLIENT.clientId);
  const b = browserPresenter();
  await getUserCredentials([CLOUD], { presenter: b.presenter, useLocalWebserver: true, ...OTHER_CLIENT });
  assert.deepEqual(b.types(), ["url", "waiting", "signed-in"]);
  assert.equal(new URL((b.events[0] as { url: string }).url).searchParams.get("client_id"), OTHER_CLIENT.clientId);
  assert.equal(cachedFile().client_id, OTHER_CLIENT.clientId);
  // The same client again: a cache hit.
  const again = browserPresenter();
  await getUserCredentials([CLOUD], { presenter: again.presenter, useLocalWebserver: true, ...OTHER_CLIENT });
  assert.deepEqual(again.types(), []);
});

test("NOOP never writes; REAUTH never reads but writes", async () => {
  const before = readFileSync(cachePath, "utf8");
  const noop = browserPresenter();
  await getUserCredentials([CLOUD], {
    presenter: noop.presenter,
    useLocalWebserver: true,
    credentialsCache: cache.NOOP,
  });
  assert.deepEqual(noop.types(), ["url", "waiting", "signed-in"], "NOOP reads nothing, so it signs in");
  assert.equal(readFileSync(cachePath, "utf8"), before, "NOOP wrote nothing");

  const reauth = browserPresenter({ account: "alice@example.com" });
  await getUserCredentials([CLOUD], {
    presenter: reauth.presenter,
    useLocalWebserver: true,
    credentialsCache: cache.REAUTH,
  });
  assert.deepEqual(reauth.types(), ["url", "waiting", "signed-in"], "REAUTH ignores the valid cached credentials");
  assert.notEqual(readFileSync(cachePath, "utf8"), before, "REAUTH wrote the new ones");
});

test("a custom cache directory and file are honoured", async () => {
  const custom = new cache.ReadWriteCredentialsCache({ dirname: "mytool", filename: "creds.json" });
  const b = browserPresenter();
  await getUserCredentials([CLOUD], { presenter: b.presenter, useLocalWebserver: true, credentialsCache: custom });
  assert.ok(existsSync(join(home, ".config", "mytool", "creds.json")));
});

test("copy-paste in a face that cannot read: SignInPendingError, then { code } completes and caches", async () => {
  const custom = new cache.ReadWriteCredentialsCache({ dirname: "paste", filename: "c.json" });
  const events: string[] = [];
  const presenter = { update: (e: { type: string }) => void events.push(e.type) };
  let pending: SignInPendingError | undefined;
  await assert.rejects(
    getUserCredentials([CLOUD], { presenter, useLocalWebserver: false, credentialsCache: custom }),
    (error: Error) => {
      assert.ok(error instanceof SignInPendingError);
      pending = error;
      return true;
    },
  );
  const { code } = await approveSignIn(pending!.pending.url);
  const credentials = await getUserCredentials([CLOUD], { presenter, code: code!, credentialsCache: custom });
  // The first call's face (the card with the link) hears the end too, then the second call's.
  assert.deepEqual(events, ["url", "code-needed", "signed-in", "signed-in"]);
  assert.ok((await credentials.getAccessToken()).token);
  assert.ok(existsSync(join(home, ".config", "paste", "c.json")));
  await assert.rejects(
    getUserCredentials([CLOUD], { presenter, code: code!, credentialsCache: custom }),
    /No sign-in is waiting/,
  );
});

test("completeSignIn(code) saves where the call that started the sign-in meant: the file, not the cache", async () => {
  const { completeSignIn } = await import("cred-auth");
  const before = readFileSync(cachePath, "utf8");
  const path = join(home, "pending", "adc.json");
  const presenter = { update: () => {} };
  let pending: SignInPendingError | undefined;
  await assert.rejects(saveUserCredentials([CLOUD], path, { presenter, useLocalWebserver: false }), (error: Error) => {
    pending = error as SignInPendingError;
    return error instanceof SignInPendingError;
  });
  assert.equal(existsSync(path), false);
  const { code } = await approveSignIn(pending!.pending.url);
  const credentials = await completeSignIn(code!, { presenter });
  assert.ok(emulator.checkAccessToken((await credentials.getAccessToken()).token!));
  assert.equal(JSON.parse(readFileSync(path, "utf8")).type, "authorized_user");
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(readFileSync(cachePath, "utf8"), before, "the default cache is untouched");
});

test("saveUserCredentials always signs in, never touches the cache, writes a 0600 ADC file", async () => {
  const before = readFileSync(cachePath, "utf8");
  const path = join(home, "saved", "adc.json");
  const b = browserPresenter({ account: "bob@example.com" }, { paste: true });
  await saveUserCredentials([CLOUD, "openid", "email"], path, { presenter: b.presenter, useLocalWebserver: false });
  assert.deepEqual(b.types(), ["url", "code-needed", "signed-in"]);
  assert.equal((b.events[2] as { savedTo?: string }).savedTo, path);
  assert.equal(readFileSync(cachePath, "utf8"), before);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  const file = JSON.parse(readFileSync(path, "utf8"));
  assert.equal(file.type, "authorized_user");
  assert.deepEqual(Object.keys(file).slice(0, 5), ["type", "client_id", "client_secret", "refresh_token", "token_uri"]);
  assert.equal(file.account, "bob@example.com");

  // The file is plain ADC: google-auth-library's own GoogleAuth refreshes it.
  const { GoogleAuth } = await import("google-auth-library");
  const token = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, async () => {
    const auth = new GoogleAuth({
      scopes: [CLOUD],
      clientOptions: { endpoints: { oauth2TokenUrl: `${emulator.url}/token` } },
    });
    return (await (await auth.getClient()).getAccessToken()).token;
  });
  assert.equal(emulator.checkAccessToken(token!)?.account, "bob@example.com");
});

test("no OAuth client and no emulator: gcloud's sign-in first when gcloud is on PATH, config init either way", async (t) => {
  const { mkdtempSync, rmSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { dirname, join } = await import("node:path");
  const bin = mkdtempSync(join(tmpdir(), "cred-auth-gcloud-"));
  t.after(() => rmSync(bin, { recursive: true, force: true }));
  writeFileSync(join(bin, "gcloud"), "#!/bin/sh\n", { mode: 0o755 });
  const refusal = (path: string) =>
    withEnv({ CRED_AUTH_EMULATOR_HOST: undefined, PATH: path }, () =>
      getUserCredentials([CLOUD], {
        credentialsCache: cache.NOOP,
        useLocalWebserver: true,
        presenter: { update() {} },
      }).then(
        () => assert.fail("no client: no sign-in"),
        (error: Error) => error,
      ),
    );
  const node = dirname(process.execPath);
  const withGcloud = await refusal(`${bin}:${node}`);
  assert.ok(withGcloud instanceof CredCredentialsError);
  assert.match(
    withGcloud.message,
    new RegExp(`^No OAuth client configured: run \`gcloud auth application-default login --scopes=${CLOUD}\``),
  );
  assert.match(
    withGcloud.message,
    /or make your own client with `cred-auth config init` \(docs\/oauth-client\.md\)\.$/,
  );
  const without = await refusal(node);
  assert.match(without.message, /^No OAuth client configured: `cred-auth config init` creates your own client once/);
  assert.doesNotMatch(without.message, /gcloud/);
});
