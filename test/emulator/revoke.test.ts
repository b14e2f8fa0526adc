// The revoke endpoint as Google documents it: revoking an access token or a refresh token removes the
// permissions granted to the application, so every token of that client and account stops working.
import { test } from "node:test";
import assert from "node:assert/strict";
import { UserRefreshClient } from "google-auth-library";
import { approveSignIn, DEMO_CLIENT, DEMO_WEB_CLIENT } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { verifyIdToken } from "../support/id-tokens.ts";
import { authUrl, pkcePair, postForm, serviceAccountAccessToken, startReceiver, tokenRequest } from "./support.ts";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const TARGET = "target@revoke-project.iam.gserviceaccount.com";
const emu = await withEmulator({ serviceAccounts: [{ email: TARGET, tokenCreators: ["user:alice@example.com"] }] });
const receiver = await startReceiver();

async function refresh(refreshToken: string, client: { clientId: string; clientSecret: string } = DEMO_CLIENT) {
  return postForm(`${emu.url}/token`, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: client.clientId,
    client_secret: client.clientSecret,
  });
}

async function accessTokenOf(refreshToken: string, client = DEMO_CLIENT): Promise<string> {
  return String((await refresh(refreshToken, client)).json.access_token);
}

/** Everything a holder of the access token could do: tokeninfo, an API, IAM impersonation. */
async function usable(accessToken: string): Promise<{ tokeninfo: number; api: number; iam: number }> {
  const bearer = { Authorization: `Bearer ${accessToken}` };
  const iam = await fetch(`${emu.url}/v1/projects/-/serviceAccounts/${TARGET}:generateAccessToken`, {
    method: "POST",
    headers: { ...bearer, "Content-Type": "application/json" },
    body: JSON.stringify({ scope: [CLOUD] }),
  });
  return {
    tokeninfo: (await fetch(`${emu.url}/tokeninfo?access_token=${encodeURIComponent(accessToken)}`)).status,
    api: (await fetch(`${emu.url}/storage/v1/b/demo-bucket/o`, { headers: bearer })).status,
    iam: iam.status,
  };
}

const WORKS = { tokeninfo: 200, api: 200, iam: 200 };
const REVOKED = { tokeninfo: 400, api: 401, iam: 401 };

/** A consent through the browser (no refresh token unless `offline`): what the grant hands out. */
async function consent(account: string, extra: Record<string, string>): Promise<Record<string, unknown>> {
  const { verifier, challenge } = pkcePair();
  const result = await approveSignIn(
    authUrl(emu, {
      redirect_uri: receiver.redirectUri,
      code_challenge: challenge,
      code_challenge_method: "S256",
      login_hint: account,
      ...extra,
    }),
    { account },
  );
  const reply = await tokenRequest(emu, {
    grant_type: "authorization_code",
    code: String(result.code),
    code_verifier: verifier,
    redirect_uri: receiver.redirectUri,
  });
  return reply.json;
}

test("revoking one refresh token revokes the grant: every refresh and access token of that client and account", async () => {
  const before = emu.stats().revocations;
  const first = emu.issueRefreshToken({ scopes: ["openid", "email", CLOUD], account: "alice@example.com" });
  const second = emu.issueRefreshToken({ scopes: [CLOUD], account: "alice@example.com" });
  const idToken = String((await refresh(first)).json.id_token);
  const fromFirst = await accessTokenOf(first);
  const fromSecond = await accessTokenOf(second);
  const online = String((await consent("alice@example.com", { access_type: "online" })).access_token);
  // Other grants: another account of the same client, the same account of another client.
  const bobs = emu.issueRefreshToken({ scopes: [CLOUD], account: "bob@example.com" });
  const webClients = emu.issueRefreshToken({
    clientId: DEMO_WEB_CLIENT.clientId,
    scopes: [CLOUD],
    account: "alice@example.com",
  });
  for (const token of [fromFirst, fromSecond, online]) assert.deepEqual(await usable(token), WORKS);

  const revoke = await postForm(`${emu.url}/revoke`, { token: first });
  assert.deepEqual([revoke.status, revoke.json], [200, {}]);
  assert.equal(emu.stats().revocations, before + 1);
  for (const refreshToken of [first, second]) {
    const reply = await refresh(refreshToken);
    assert.deepEqual(
      [reply.status, reply.json],
      [400, { error: "invalid_grant", error_description: "Token has been expired or revoked." }],
    );
  }
  for (const token of [fromFirst, fromSecond, online]) assert.deepEqual(await usable(token), REVOKED);
  assert.equal((await refresh(bobs)).status, 200, "bob's grant is his own");
  assert.equal((await refresh(webClients, DEMO_WEB_CLIENT)).status, 200, "another client's grant stays");
  // An ID token is a signed statement, not a grant: it verifies until it expires, as Google's do.
  await verifyIdToken(emu, idToken, DEMO_CLIENT.clientId);
});

test("revoking an access token (as google-auth-library's revokeCredentials does) revokes its grant too", async () => {
  const refreshToken = emu.issueRefreshToken({ scopes: [CLOUD], account: "carol@example.com" });
  const sibling = emu.issueRefreshToken({ scopes: [CLOUD], account: "carol@example.com" });
  const client = new UserRefreshClient({
    clientId: DEMO_CLIENT.clientId,
    clientSecret: DEMO_CLIENT.clientSecret,
    refreshToken,
    endpoints: { oauth2TokenUrl: `${emu.url}/token`, oauth2RevokeUrl: `${emu.url}/revoke` },
  });
  const { token } = await client.getAccessToken();
  assert.deepEqual(await usable(String(token)), { ...WORKS, iam: 403 });
  await client.revokeCredentials();
  assert.deepEqual(await usable(String(token)), { ...REVOKED, iam: 401 });
  assert.equal((await refresh(refreshToken)).json.error, "invalid_grant");
  assert.equal((await refresh(sibling)).json.error, "invalid_grant");
  const again = await postForm(`${emu.url}/revoke`, { token: String(token) });
  assert.deepEqual([again.status, again.json.error], [400, "invalid_token"]);
});

test("after a revocation the next consent hands out a refresh token again, without prompt=consent", async () => {
  const account = "erin@example.org";
  const offline = { access_type: "offline", prompt: "select_account" };
  assert.equal(typeof (await consent(account, offline)).refresh_token, "string", "the first consent");
  const repeat = await consent(account, offline);
  assert.equal(repeat.refresh_token, undefined, "Google repeats it only with prompt=consent");
  await postForm(`${emu.url}/revoke`, { token: String(repeat.access_token) });
  assert.equal(typeof (await consent(account, offline)).refresh_token, "string", "the grant was removed");
});

test("a service account's token (key, metadata server, IAM) is not revocable: 400 invalid_request, the token still works", async () => {
  const key = emu.createServiceAccountKey();
  const keyToken = await serviceAccountAccessToken(key, [CLOUD]);
  emu.setMetadata({ projectId: "revoke-project", email: "vm@revoke-project.iam.gserviceaccount.com" });
  const vm = await fetch(`${emu.url}/computeMetadata/v1/instance/service-accounts/default/token`, {
    headers: { "Metadata-Flavor": "Google" },
  });
  const metadataToken = String(((await vm.json()) as { access_token?: unknown }).access_token);
  emu.setMetadata(null);
  const userToken = await accessTokenOf(emu.issueRefreshToken({ scopes: [CLOUD], account: "alice@example.com" }));
  const iam = await fetch(`${emu.url}/v1/projects/-/serviceAccounts/${TARGET}:generateAccessToken`, {
    method: "POST",
    headers: { Authorization: `Bearer ${userToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({ scope: [CLOUD] }),
  });
  const iamToken = String(((await iam.json()) as { accessToken?: unknown }).accessToken);
  const before = emu.stats().revocations;
  for (const [what, token] of Object.entries({ keyToken, metadataToken, iamToken })) {
    const reply = await postForm(`${emu.url}/revoke`, { token });
    // gcloud's store.py passes this reply over as a "Service account token"; Google's text is not documented.
    assert.deepEqual(
      reply,
      { status: 400, json: { error: "invalid_request", error_description: "Bad Request" } },
      what,
    );
    assert.ok(emu.checkAccessToken(token), `${what} still works`);
  }
  assert.equal(emu.stats().revocations, before, "nothing counted as revoked");
});
