// getUserCredentials against the emulator as strict as Google (issue 18): scopes Google would
// refuse, scopes the user unticked, a revoked refresh token behind a cached access token.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { CredCredentialsError, default as credAuthDefault, getUserCredentials } from "cred-auth";
import { browserPresenter, isolatedWorld } from "./support.ts";

const { emulator, home } = await isolatedWorld();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const BIGQUERY = "https://www.googleapis.com/auth/bigquery";
const cachePath = join(home, ".config", "cred", "cred_credentials.json");

test("short-form or malformed scopes are refused before any sign-in, with the full URL suggested", async () => {
  const b = browserPresenter();
  const { authorizations } = emulator.stats();
  await assert.rejects(
    getUserCredentials([CLOUD, "bigquery", "htps://typo"], { presenter: b.presenter, useLocalWebserver: true }),
    (error: unknown) => {
      assert.ok(error instanceof CredCredentialsError);
      assert.equal(error.code, "ERR_INVALID_SCOPE");
      assert.match(error.message, /"bigquery" \(did you mean https:\/\/www\.googleapis\.com\/auth\/bigquery\?\)/);
      assert.match(error.message, /"htps:\/\/typo"/);
      assert.ok(!error.message.includes(`"${CLOUD}"`));
      return true;
    },
  );
  assert.deepEqual(b.types(), []);
  assert.equal(emulator.stats().authorizations, authorizations);
});

test("a scope unticked on the consent page: ERR_INVALID_SCOPE at once, nothing saved, one sign-in only", async () => {
  const b = browserPresenter({ untick: [BIGQUERY] });
  const { authorizations } = emulator.stats();
  await assert.rejects(
    getUserCredentials([CLOUD, BIGQUERY], { presenter: b.presenter, useLocalWebserver: true }),
    (error: unknown) => {
      assert.ok(error instanceof CredCredentialsError);
      assert.equal(error.code, "ERR_INVALID_SCOPE");
      assert.match(error.message, new RegExp(`did not grant ${BIGQUERY.replace(/[./]/g, "\\$&")}`));
      assert.match(error.message, /tick/);
      return true;
    },
  );
  assert.equal(emulator.stats().authorizations - authorizations, 1, "never loops through sign-ins");
  assert.equal(existsSync(cachePath), false, "nothing saved");
});

test("a revoked refresh token behind a cached access token: refresh on 401, then sign in again", async () => {
  await getUserCredentials([CLOUD], { presenter: browserPresenter().presenter, useLocalWebserver: true });
  // A second call refreshes once and fills the token cache; a third takes its access token from there.
  await getUserCredentials([CLOUD], { presenter: browserPresenter().presenter, useLocalWebserver: true });
  const before = emulator.stats().tokenRequests;
  const credentials = await getUserCredentials([CLOUD], {
    presenter: browserPresenter().presenter,
    useLocalWebserver: true,
  });
  assert.equal(emulator.stats().tokenRequests, before, "the access token came from the token cache");
  const { refresh_token } = JSON.parse(readFileSync(cachePath, "utf8")) as { refresh_token: string };
  emulator.revokeRefreshToken(refresh_token);
  const failure = await credentials.request({ url: `${emulator.url}/storage/v1/b/demo-bucket/o` }).catch((e) => e);
  assert.ok(failure instanceof CredCredentialsError, String(failure));
  assert.match(failure.message, /sign in again/);
  assert.equal(emulator.stats().byGrant.refresh_token !== undefined, true);
  const b = browserPresenter();
  const fresh = await getUserCredentials([CLOUD], { presenter: b.presenter, useLocalWebserver: true });
  assert.deepEqual(b.types(), ["url", "waiting", "signed-in"], "the next call signs in again");
  const res = await fresh.request<{ items: unknown[] }>({ url: `${emulator.url}/storage/v1/b/demo-bucket/o` });
  assert.equal(res.status, 200);
});

test("a scope with a space around it is named as such, in one line, before any sign-in; through default() too", async () => {
  const { authorizations } = emulator.stats();
  for (const call of [
    () => getUserCredentials([`${CLOUD} `], { useLocalWebserver: true }),
    () => credAuthDefault([` ${CLOUD}`], { useLocalWebserver: true }),
  ])
    await assert.rejects(call(), (error: unknown) => {
      assert.ok(error instanceof CredCredentialsError);
      assert.equal(error.code, "ERR_INVALID_SCOPE");
      assert.match(error.message, /has a space around it: remove the space/);
      assert.doesNotMatch(error.message, /\n/);
      return true;
    });
  assert.equal(emulator.stats().authorizations, authorizations);
});

test("a misspelt scope through default() is its own one line with 'did you mean', not ERR_NO_CREDENTIALS", async () => {
  await assert.rejects(
    credAuthDefault(["https://www.googleapis.com/auth/cloud-platfrom"], { useLocalWebserver: true }),
    (error: unknown) => {
      assert.ok(error instanceof CredCredentialsError);
      assert.equal(error.code, "ERR_INVALID_SCOPE");
      assert.match(error.message, /^Google knows no scope .*did you mean/);
      assert.doesNotMatch(error.message, /\n/);
      return true;
    },
  );
});
