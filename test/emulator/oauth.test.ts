// The OAuth endpoints over real HTTP: consent page, code flow with PKCE, refresh, revoke, tokeninfo, code page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { approveSignIn, DEMO_CLIENT, DEMO_WEB_CLIENT, EMULATOR_PATHS } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { verifyIdToken } from "../support/id-tokens.ts";
import { authUrl, pkcePair, postForm, startReceiver, tokenRequest } from "./support.ts";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const EMAIL = "https://www.googleapis.com/auth/userinfo.email";
const emu = await withEmulator({
  clients: [{ clientId: "web-2", clientSecret: "s2", type: "web", redirectUris: ["https://app.example/cb"] }],
});
const receiver = await startReceiver();

async function signIn(opts: { scope?: string; account?: string; extra?: Record<string, string> } = {}) {
  const { verifier, challenge } = pkcePair();
  const result = await approveSignIn(
    authUrl(emu, {
      redirect_uri: receiver.redirectUri,
      scope: opts.scope ?? CLOUD,
      state: "state-123",
      code_challenge: challenge,
      code_challenge_method: "S256",
      ...opts.extra,
    }),
    opts.account ? { account: opts.account } : {},
  );
  return { result, verifier };
}

function exchange(code: string, verifier: string, redirectUri = receiver.redirectUri) {
  return tokenRequest(emu, {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    redirect_uri: redirectUri,
  });
}

test("consent page names the client, lists the scopes, offers every account and Allow/Deny", async () => {
  const res = await fetch(
    authUrl(emu, { redirect_uri: receiver.redirectUri, scope: `openid ${CLOUD}`, login_hint: "bob@example.com" }),
  );
  const html = await res.text();
  assert.equal(res.status, 200);
  assert.match(html, /<title>Sign in - cred-auth emulator<\/title>/);
  assert.match(html, /cred-auth demo \(emulator\)/);
  // Granular consent: the API scope has a ticked checkbox, the sign-in scope none.
  assert.match(
    html,
    /<input type="checkbox" id="scope-1" name="scope" value="https:\/\/www\.googleapis\.com\/auth\/cloud-platform" checked>/,
  );
  assert.match(html, /<li>openid<\/li>/);
  for (const account of ["alice@example.com", "bob@example.com", "carol@example.com"])
    assert.ok(html.includes(account), account);
  assert.match(html, /value="bob@example\.com" checked/);
  assert.match(html, /<button type="submit" name="decision" value="allow"[^>]*>Allow<\/button>/);
  assert.match(html, /<button type="submit" name="decision" value="deny"[^>]*>Deny<\/button>/);
  assert.match(html, /<form method="post" action="\/o\/oauth2\/v2\/auth">/);
  assert.equal(res.headers.get("cache-control"), "no-store");
});

test("code flow with PKCE: Allow redirects to the loopback app with code, state and scope; exchange gives tokens", async () => {
  const before = emu.stats();
  const { result, verifier } = await signIn({ scope: `openid email ${CLOUD}`, account: "carol@example.com" });
  assert.equal(result.status, 200);
  assert.match(result.body, /authentication flow has completed/);
  assert.ok(result.code);
  const landed = receiver.received.at(-1)!;
  assert.equal(landed.searchParams.get("state"), "state-123");
  assert.equal(landed.searchParams.get("code"), result.code);
  // Google's spelling and order, never the asked one.
  assert.equal(landed.searchParams.get("scope"), `${EMAIL} openid ${CLOUD}`);

  const reply = await exchange(result.code!, verifier);
  assert.equal(reply.status, 200, JSON.stringify(reply.json));
  assert.equal(reply.json.token_type, "Bearer");
  assert.equal(reply.json.expires_in, 3600);
  assert.equal(reply.json.scope, `${EMAIL} openid ${CLOUD}`);
  assert.equal(typeof reply.json.refresh_token, "string");
  const claims = await verifyIdToken(emu, String(reply.json.id_token), DEMO_CLIENT.clientId);
  assert.equal(claims.email, "carol@example.com");
  assert.equal(claims.aud, DEMO_CLIENT.clientId);
  assert.equal(claims.iss, "https://accounts.google.com");
  assert.ok(claims.exp > Date.now() / 1000);

  const info = emu.checkAccessToken(String(reply.json.access_token));
  assert.equal(info?.account, "carol@example.com");
  assert.deepEqual(info?.scopes, [EMAIL, "openid", CLOUD]);
  assert.equal(info?.clientId, DEMO_CLIENT.clientId);
  const after = emu.stats();
  assert.equal(after.authorizations, before.authorizations + 1);
  assert.equal(after.byGrant.authorization_code, (before.byGrant.authorization_code ?? 0) + 1);
});

test("Deny redirects with error=access_denied and the state", async () => {
  const result = await approveSignIn(authUrl(emu, { redirect_uri: receiver.redirectUri, state: "s-deny" }), {
    decision: "deny",
  });
  assert.equal(result.error, "access_denied");
  assert.equal(result.code, undefined);
  const landed = receiver.received.at(-1)!;
  assert.equal(landed.searchParams.get("error"), "access_denied");
  assert.equal(landed.searchParams.get("state"), "s-deny");
});

test("followRedirect: false returns the redirect target without visiting it", async () => {
  const count = receiver.received.length;
  const result = await approveSignIn(authUrl(emu, { redirect_uri: receiver.redirectUri }), { followRedirect: false });
  assert.equal(result.status, 302);
  assert.ok(result.url.startsWith(receiver.redirectUri));
  assert.ok(result.code);
  assert.equal(receiver.received.length, count);
});

test("PKCE: a wrong or missing verifier is invalid_grant with Google's texts", async () => {
  const wrong = await signIn();
  const reply = await exchange(wrong.result.code!, pkcePair().verifier);
  assert.equal(reply.status, 400);
  assert.deepEqual(reply.json, { error: "invalid_grant", error_description: "Invalid code verifier." });
  const missing = await signIn();
  const noVerifier = await tokenRequest(emu, {
    grant_type: "authorization_code",
    code: missing.result.code!,
    redirect_uri: receiver.redirectUri,
  });
  assert.deepEqual(noVerifier.json, { error: "invalid_grant", error_description: "Missing code verifier." });
});

test("redirect_uri must equal the authorization request's", async () => {
  const { result, verifier } = await signIn();
  const reply = await exchange(result.code!, verifier, receiver.redirectUri.replace("127.0.0.1", "localhost"));
  assert.equal(reply.status, 400);
  assert.deepEqual(reply.json, { error: "redirect_uri_mismatch", error_description: "Bad Request" });
});

test("a code is single use", async () => {
  const { result, verifier } = await signIn();
  assert.equal((await exchange(result.code!, verifier)).status, 200);
  const again = await exchange(result.code!, verifier);
  assert.equal(again.status, 400);
  assert.equal(again.json.error, "invalid_grant");
});

test("client authentication: wrong secret and unknown client are 401 invalid_client; Basic auth works", async () => {
  const { result, verifier } = await signIn();
  const bad = await postForm(`${emu.url}/token`, {
    grant_type: "authorization_code",
    code: result.code!,
    code_verifier: verifier,
    redirect_uri: receiver.redirectUri,
    client_id: DEMO_CLIENT.clientId,
    client_secret: "wrong",
  });
  assert.equal(bad.status, 401);
  assert.deepEqual(bad.json, { error: "invalid_client", error_description: "Unauthorized" });
  const unknown = await postForm(`${emu.url}/token`, {
    grant_type: "refresh_token",
    refresh_token: "x",
    client_id: "nope",
    client_secret: "x",
  });
  assert.equal(unknown.status, 401);
  assert.equal(unknown.json.error, "invalid_client");
  const noClient = await postForm(`${emu.url}/token`, { grant_type: "refresh_token", refresh_token: "x" });
  assert.equal(noClient.status, 400);
  assert.equal(noClient.json.error, "invalid_request");

  const second = await signIn();
  const basic = Buffer.from(
    `${encodeURIComponent(DEMO_CLIENT.clientId)}:${encodeURIComponent(DEMO_CLIENT.clientSecret)}`,
  ).toString("base64");
  const viaBasic = await postForm(
    `${emu.url}/token`,
    {
      grant_type: "authorization_code",
      code: second.result.code!,
      code_verifier: second.verifier,
      redirect_uri: receiver.redirectUri,
    },
    { Authorization: `Basic ${basic}` },
  );
  assert.equal(viaBasic.status, 200, JSON.stringify(viaBasic.json));
});

test("unsupported and missing grant types, missing parameters, GET on the token endpoint", async () => {
  const unsupported = await tokenRequest(emu, { grant_type: "password" });
  assert.equal(unsupported.status, 400);
  assert.equal(unsupported.json.error, "unsupported_grant_type");
  assert.equal((await tokenRequest(emu, {})).json.error, "unsupported_grant_type");
  const noCode = await tokenRequest(emu, { grant_type: "authorization_code" });
  assert.equal(noCode.status, 400);
  assert.equal(noCode.json.error, "invalid_request");
  const get = await fetch(`${emu.url}/token`);
  assert.equal(get.status, 405);
});

test("refresh: new access token, no refresh token, same scopes; narrower scope allowed, wider refused", async () => {
  const { result, verifier } = await signIn({ scope: `email ${CLOUD}` });
  const first = await exchange(result.code!, verifier);
  const refreshToken = String(first.json.refresh_token);
  const refreshed = await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: refreshToken });
  assert.equal(refreshed.status, 200);
  assert.equal(refreshed.json.refresh_token, undefined);
  assert.equal(refreshed.json.scope, `${EMAIL} openid ${CLOUD}`);
  assert.equal(typeof refreshed.json.id_token, "string");
  assert.notEqual(refreshed.json.access_token, first.json.access_token);
  assert.ok(emu.checkAccessToken(String(refreshed.json.access_token)));

  const narrow = await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: refreshToken, scope: CLOUD });
  assert.equal(narrow.json.scope, CLOUD);
  const wide = await tokenRequest(emu, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    scope: `${CLOUD} https://www.googleapis.com/auth/drive`,
  });
  assert.equal(wide.status, 400);
  assert.equal(wide.json.error, "invalid_scope");

  const otherClient = await postForm(`${emu.url}/token`, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: DEMO_WEB_CLIENT.clientId,
    client_secret: DEMO_WEB_CLIENT.clientSecret,
  });
  assert.equal(otherClient.status, 400);
  assert.equal(otherClient.json.error, "unauthorized_client");
});

test("access_type=online gives no refresh token; offline without prompt=consent gives one only the first time", async () => {
  const online = await signIn({ extra: { access_type: "online" } });
  assert.equal((await exchange(online.result.code!, online.verifier)).json.refresh_token, undefined);
  const account = "dave@example.org";
  const first = await signIn({ account, extra: { prompt: "select_account", login_hint: account } });
  assert.equal(typeof (await exchange(first.result.code!, first.verifier)).json.refresh_token, "string");
  const second = await signIn({ account, extra: { prompt: "select_account", login_hint: account } });
  assert.equal((await exchange(second.result.code!, second.verifier)).json.refresh_token, undefined);
  const forced = await signIn({ account, extra: { login_hint: account } });
  assert.equal(typeof (await exchange(forced.result.code!, forced.verifier)).json.refresh_token, "string");
});

test("revoke a refresh token: it and its access tokens stop working; unknown tokens are invalid_token", async () => {
  const { result, verifier } = await signIn();
  const tokens = await exchange(result.code!, verifier);
  const revoke = await postForm(`${emu.url}/revoke`, { token: String(tokens.json.refresh_token) });
  assert.equal(revoke.status, 200);
  assert.deepEqual(revoke.json, {});
  assert.equal(emu.checkAccessToken(String(tokens.json.access_token)), null);
  const refresh = await tokenRequest(emu, {
    grant_type: "refresh_token",
    refresh_token: String(tokens.json.refresh_token),
  });
  assert.equal(refresh.status, 400);
  assert.deepEqual(refresh.json, { error: "invalid_grant", error_description: "Token has been expired or revoked." });
  const again = await fetch(`${emu.url}/revoke?token=${encodeURIComponent(String(tokens.json.refresh_token))}`, {
    method: "POST",
  });
  assert.equal(again.status, 400);
  assert.equal(((await again.json()) as { error: string }).error, "invalid_token");
});

test("revoking an access token (query parameter, like google-auth-library) also revokes its refresh token", async () => {
  const { result, verifier } = await signIn();
  const tokens = await exchange(result.code!, verifier);
  const before = emu.stats().revocations;
  const res = await fetch(`${emu.url}/revoke?token=${encodeURIComponent(String(tokens.json.access_token))}`, {
    method: "POST",
  });
  assert.equal(res.status, 200);
  assert.equal(emu.stats().revocations, before + 1);
  const refresh = await tokenRequest(emu, {
    grant_type: "refresh_token",
    refresh_token: String(tokens.json.refresh_token),
  });
  assert.equal(refresh.json.error, "invalid_grant");
});

test("revokeRefreshToken and revokeAll from the API", async () => {
  const a = emu.issueRefreshToken({ scopes: [CLOUD] });
  const b = emu.issueRefreshToken({ scopes: [CLOUD], account: "bob@example.com" });
  emu.revokeRefreshToken(a);
  assert.equal(
    (await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: a })).json.error,
    "invalid_grant",
  );
  assert.equal((await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: b })).status, 200);
  emu.revokeAll();
  assert.equal(
    (await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: b })).json.error,
    "invalid_grant",
  );
});

test("tokeninfo: access token by query, form body and bearer header; id token; invalid values", async () => {
  const refreshToken = emu.issueRefreshToken({ scopes: ["email", CLOUD], account: "bob@example.com" });
  const tokens = await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: refreshToken });
  const accessToken = String(tokens.json.access_token);
  const byQuery = await fetch(`${emu.url}/tokeninfo?access_token=${encodeURIComponent(accessToken)}`);
  const info = (await byQuery.json()) as Record<string, string>;
  assert.equal(byQuery.status, 200);
  assert.equal(info.email, "bob@example.com");
  assert.equal(info.azp, DEMO_CLIENT.clientId);
  assert.equal(info.scope, `${EMAIL} openid ${CLOUD}`);
  assert.equal(info.access_type, "offline");
  assert.ok(Number(info.expires_in) > 3000 && Number(info.expires_in) <= 3600);
  assert.ok(Number(info.exp) > Date.now() / 1000);
  const byBody = await postForm(`${emu.url}/tokeninfo`, { access_token: accessToken });
  assert.equal(byBody.json.email, "bob@example.com");
  const byHeader = await fetch(`${emu.url}/tokeninfo`, {
    method: "POST",
    headers: { Authorization: `Bearer ${accessToken}` },
  });
  assert.equal(((await byHeader.json()) as Record<string, string>).email, "bob@example.com");
  const id = await fetch(`${emu.url}/tokeninfo?id_token=${encodeURIComponent(String(tokens.json.id_token))}`);
  const idInfo = (await id.json()) as Record<string, string>;
  assert.equal(idInfo.email, "bob@example.com");
  assert.equal(idInfo.aud, DEMO_CLIENT.clientId);
  const bad = await fetch(`${emu.url}/tokeninfo?access_token=ya29.nope`);
  assert.equal(bad.status, 400);
  assert.deepEqual(await bad.json(), { error: "invalid_token", error_description: "Invalid Value" });
  const [header, payload, signature] = String(tokens.json.id_token).split(".");
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
  const forgedPayload = Buffer.from(JSON.stringify({ ...claims, email: "mallory@example.com" })).toString("base64url");
  const forged = `${header}.${forgedPayload}.${signature}`;
  assert.equal((await fetch(`${emu.url}/tokeninfo?id_token=${encodeURIComponent(forged)}`)).status, 400);
});

test("copy-paste flow: the demo web client redirects to the code page, which shows the code", async () => {
  const redirectUri = `${emu.url}${EMULATOR_PATHS.codePage}`;
  const { verifier, challenge } = pkcePair();
  const result = await approveSignIn(
    authUrl(emu, {
      client_id: DEMO_WEB_CLIENT.clientId,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: "S256",
    }),
  );
  assert.equal(result.status, 200);
  assert.ok(result.code);
  assert.match(result.body, /<code id="code">/);
  assert.match(result.body, />Copy</);
  assert.match(result.body, /like a password: do not share it/);
  const reply = await postForm(`${emu.url}/token`, {
    grant_type: "authorization_code",
    code: result.code!,
    code_verifier: verifier,
    redirect_uri: redirectUri,
    client_id: DEMO_WEB_CLIENT.clientId,
    client_secret: DEMO_WEB_CLIENT.clientSecret,
  });
  assert.equal(reply.status, 200, JSON.stringify(reply.json));

  const denied = await approveSignIn(authUrl(emu, { client_id: DEMO_WEB_CLIENT.clientId, redirect_uri: redirectUri }), {
    decision: "deny",
  });
  assert.equal(denied.error, "access_denied");
  assert.match(denied.body, /Sign-in failed/);
  const empty = await fetch(redirectUri);
  assert.equal(empty.status, 400);
  const escaped = await (await fetch(`${redirectUri}?code=${encodeURIComponent("<script>x</script>")}`)).text();
  assert.ok(!escaped.includes("<script>x</script>"));
});

test("the authorization endpoint refuses unknown clients, foreign redirects and bad parameters with an error page", async () => {
  const cases: [Record<string, string | undefined>, string][] = [
    [{ client_id: "unknown", redirect_uri: receiver.redirectUri }, "invalid_client"],
    [{ redirect_uri: undefined }, "invalid_request"],
    [{ redirect_uri: "http://evil.example:8080/" }, "redirect_uri_mismatch"],
    [{ redirect_uri: "https://127.0.0.1:8080/" }, "redirect_uri_mismatch"],
    [{ redirect_uri: "urn:ietf:wg:oauth:2.0:oob" }, "redirect_uri_mismatch"],
    [{ client_id: DEMO_WEB_CLIENT.clientId, redirect_uri: receiver.redirectUri }, "redirect_uri_mismatch"],
    [{ client_id: "web-2", redirect_uri: "https://app.example/other" }, "redirect_uri_mismatch"],
    [{ redirect_uri: receiver.redirectUri, scope: undefined }, "invalid_request"],
    [{ redirect_uri: receiver.redirectUri, response_type: "token" }, "invalid_request"],
    [{ redirect_uri: receiver.redirectUri, code_challenge: "short", code_challenge_method: "S256" }, "invalid_request"],
    [
      { redirect_uri: receiver.redirectUri, code_challenge: "a".repeat(43), code_challenge_method: "S512" },
      "invalid_request",
    ],
  ];
  for (const [params, error] of cases) {
    const result = await approveSignIn(authUrl(emu, params));
    assert.equal(result.status, error === "invalid_client" ? 401 : 400, JSON.stringify(params));
    assert.equal(result.error, `${error}`, JSON.stringify(params));
  }
  for (const loopback of ["http://localhost:1234/cb", "http://[::1]:5555", "http://127.0.0.1:9/"]) {
    assert.equal((await fetch(authUrl(emu, { redirect_uri: loopback }))).status, 200, loopback);
  }
  assert.equal((await fetch(authUrl(emu, { client_id: "web-2", redirect_uri: "https://app.example/cb" }))).status, 200);
});

test("a consent form can be submitted once; forged submissions are refused", async () => {
  const html = await (await fetch(authUrl(emu, { redirect_uri: receiver.redirectUri }))).text();
  const requestId = /name="request_id" value="([^"]+)"/.exec(html)![1];
  const submit = (body: Record<string, string>) =>
    fetch(`${emu.url}/o/oauth2/v2/auth`, { method: "POST", redirect: "manual", body: new URLSearchParams(body) });
  const first = await submit({ request_id: requestId, account: "alice@example.com", decision: "allow" });
  assert.equal(first.status, 302);
  assert.equal((await submit({ request_id: requestId, account: "alice@example.com", decision: "allow" })).status, 400);
  assert.equal((await submit({ request_id: "made-up", decision: "allow" })).status, 400);
  const html2 = await (await fetch(authUrl(emu, { redirect_uri: receiver.redirectUri }))).text();
  const id2 = /name="request_id" value="([^"]+)"/.exec(html2)![1];
  assert.equal((await submit({ request_id: id2, account: "mallory@example.com", decision: "allow" })).status, 400);
});

test("access tokens expire after the configured lifetime", async () => {
  const short = await withEmulator({ accessTokenLifetimeSec: 1 });
  const refreshToken = short.issueRefreshToken({ scopes: [CLOUD] });
  const reply = await tokenRequest(short, { grant_type: "refresh_token", refresh_token: refreshToken });
  assert.equal(reply.json.expires_in, 1);
  const token = String(reply.json.access_token);
  assert.ok(short.checkAccessToken(token));
  for (let i = 0; i < 50 && short.checkAccessToken(token); i++) await sleep(100);
  assert.equal(short.checkAccessToken(token), null);
  assert.equal((await fetch(`${short.url}/tokeninfo?access_token=${token}`)).status, 400);
  const storage = await fetch(`${short.url}/storage/v1/b/demo-bucket/o`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(storage.status, 401);
  assert.equal((await tokenRequest(short, { grant_type: "refresh_token", refresh_token: refreshToken })).status, 200);
});

test("prompt=none redirects with interaction_required (the emulator keeps no session)", async () => {
  const result = await approveSignIn(authUrl(emu, { redirect_uri: receiver.redirectUri, prompt: "none", state: "n" }), {
    followRedirect: false,
  });
  assert.equal(result.error, "interaction_required");
  assert.equal(new URL(result.url).searchParams.get("state"), "n");
});
