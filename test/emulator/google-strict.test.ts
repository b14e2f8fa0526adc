// The emulator is as strict as Google (issue 18): granular consent, scope spelling, invalid_scope,
// dying refresh tokens, Google's error texts, retryable errors inside a 400, metadata faults,
// the CODE~STATE code page, a Desktop-only emulator, a credentials file from the admin API.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { promisify } from "node:util";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { loadUserCredentials } from "cred-auth";
import { approveSignIn, DEMO_CLIENT, DEMO_WEB_CLIENT, EMULATOR_PATHS } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { verifyIdToken } from "../support/id-tokens.ts";
import { authUrl, pkcePair, postForm, startReceiver, tokenRequest } from "./support.ts";

const execFileAsync = promisify(execFile);
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const BIGQUERY = "https://www.googleapis.com/auth/bigquery";
const EMAIL = "https://www.googleapis.com/auth/userinfo.email";
const emu = await withEmulator({ metadata: { projectId: "p", email: "vm@p.iam.gserviceaccount.com" } });
const receiver = await startReceiver();

async function signIn(scope: string, opts: { untick?: string[]; challenge?: boolean; state?: string } = {}) {
  const { verifier, challenge } = pkcePair();
  const result = await approveSignIn(
    authUrl(emu, {
      redirect_uri: receiver.redirectUri,
      scope,
      state: opts.state ?? "st",
      ...(opts.challenge === false ? {} : { code_challenge: challenge, code_challenge_method: "S256" }),
    }),
    opts.untick ? { untick: opts.untick } : {},
  );
  return { code: result.code!, verifier, result };
}

function exchange(code: string, verifier?: string) {
  return tokenRequest(emu, {
    grant_type: "authorization_code",
    code,
    redirect_uri: receiver.redirectUri,
    ...(verifier !== undefined ? { code_verifier: verifier } : {}),
  });
}

/** The claims of an ID token google-auth-library's verifyIdToken accepted against the emulator's keys. */
function claimsOf(idToken: unknown): Promise<Record<string, unknown>> {
  return verifyIdToken(emu, String(idToken), DEMO_CLIENT.clientId) as unknown as Promise<Record<string, unknown>>;
}

test("granular consent: an unticked scope is not granted, the reply's scope says so", async () => {
  const { code, verifier } = await signIn(`${CLOUD} ${BIGQUERY} email`, { untick: [BIGQUERY] });
  const reply = await exchange(code, verifier);
  assert.equal(reply.status, 200, JSON.stringify(reply.json));
  assert.equal(reply.json.scope, `${EMAIL} openid ${CLOUD}`);
  assert.deepEqual(emu.checkAccessToken(String(reply.json.access_token))?.scopes, [EMAIL, "openid", CLOUD]);
  // The sign-in scopes have no checkbox: they cannot be unticked.
  await assert.rejects(signIn(`${CLOUD} email`, { untick: ["email"] }), /no checkbox for/);
});

test("granularConsent: false grants every scope asked", async () => {
  const all = await withEmulator({ granularConsent: false });
  const html = await (await fetch(authUrl(all, { redirect_uri: receiver.redirectUri }))).text();
  assert.ok(!html.includes('type="checkbox"'));
});

test("the email claim is in id tokens and tokeninfo only when the e-mail scope was granted", async () => {
  const plain = await signIn(`openid ${CLOUD}`);
  const reply = await exchange(plain.code, plain.verifier);
  assert.equal(reply.json.scope, `openid ${CLOUD}`);
  assert.equal((await claimsOf(reply.json.id_token)).email, undefined);
  const info = (await (await fetch(`${emu.url}/tokeninfo?access_token=${reply.json.access_token}`)).json()) as {
    email?: string;
  };
  assert.equal(info.email, undefined);
  const withEmail = await signIn(`email ${CLOUD}`);
  const reply2 = await exchange(withEmail.code, withEmail.verifier);
  assert.equal((await claimsOf(reply2.json.id_token)).email, "alice@example.com");
  // No openid, no email, no profile: no id token at all.
  const none = await signIn(CLOUD);
  assert.equal((await exchange(none.code, none.verifier)).json.id_token, undefined);
});

test("short-form or misspelt scopes get Google's invalid_scope page and no redirect back", async () => {
  const count = receiver.received.length;
  for (const scope of ["bigquery", `${CLOUD} https://www.googleapis.com/auth/bigqeury`, "userinfo.email"]) {
    const result = await approveSignIn(authUrl(emu, { redirect_uri: receiver.redirectUri, scope }));
    assert.equal(result.status, 400, scope);
    assert.equal(result.error, "invalid_scope", scope);
    assert.match(result.body, /Some requested scopes were invalid\. \{invalid=\[/);
    assert.equal(result.code, undefined);
  }
  assert.equal(receiver.received.length, count, "Google never redirects back on invalid_scope");
  const extra = await withEmulator({ extraScopes: ["https://www.googleapis.com/auth/my.api"] });
  const ok = await fetch(
    authUrl(extra, { redirect_uri: receiver.redirectUri, scope: "https://www.googleapis.com/auth/my.api" }),
  );
  assert.equal(ok.status, 200);
});

test("Google's code-exchange errors: malformed code, verifier not needed, missing verifier", async () => {
  const { code, verifier } = await signIn(CLOUD);
  const encoded = await exchange(encodeURIComponent(code), verifier);
  assert.deepEqual(encoded.json, { error: "invalid_grant", error_description: "Malformed auth code." });
  // The code survived the malformed attempt: Google never saw it.
  assert.equal((await exchange(code, verifier)).status, 200);
  const used = await exchange(code, verifier);
  assert.deepEqual(used.json, { error: "invalid_grant", error_description: "Bad Request" });

  const noChallenge = await signIn(CLOUD, { challenge: false });
  const downgrade = await exchange(noChallenge.code, pkcePair().verifier);
  assert.deepEqual(downgrade.json, {
    error: "invalid_request",
    error_description: "code_verifier or verifier is not needed.",
  });
  const withChallenge = await signIn(CLOUD);
  const missing = await exchange(withChallenge.code);
  assert.deepEqual(missing.json, { error: "invalid_grant", error_description: "Missing code verifier." });
});

test("refresh tokens of a Testing app expire after the set lifetime: Token has been expired or revoked.", async () => {
  const short = await withEmulator({ refreshTokenLifetimeSec: 1 });
  const refreshToken = short.issueRefreshToken({ scopes: [CLOUD] });
  assert.equal((await tokenRequest(short, { grant_type: "refresh_token", refresh_token: refreshToken })).status, 200);
  for (let i = 0; i < 50; i++) {
    const reply = await tokenRequest(short, { grant_type: "refresh_token", refresh_token: refreshToken });
    if (reply.status === 400) {
      assert.deepEqual(reply.json, { error: "invalid_grant", error_description: "Token has been expired or revoked." });
      return;
    }
    await sleep(100);
  }
  assert.fail("the refresh token never expired");
});

test("past the per-client cap the oldest refresh token silently stops working", async () => {
  const capped = await withEmulator({ refreshTokensPerClient: 2 });
  const [first, second, third] = [1, 2, 3].map(() => capped.issueRefreshToken({ scopes: [CLOUD] }));
  const other = capped.issueRefreshToken({ scopes: [CLOUD], account: "bob@example.com" });
  const refresh = (t: string) => tokenRequest(capped, { grant_type: "refresh_token", refresh_token: t });
  assert.equal((await refresh(first)).json.error_description, "Token has been expired or revoked.");
  for (const live of [second, third, other]) assert.equal((await refresh(live)).status, 200);
});

test("reauthentication policy: invalid_rapt with error_subtype until the account signs in again", async () => {
  const refreshToken = emu.issueRefreshToken({ scopes: [CLOUD], account: "carol@example.com" });
  const bobs = emu.issueRefreshToken({ scopes: [CLOUD], account: "bob@example.com" });
  emu.requireReauth("carol@example.com");
  const reply = await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: refreshToken });
  assert.equal(reply.status, 400);
  assert.deepEqual(reply.json, {
    error: "invalid_grant",
    error_description: "reauth related error (invalid_rapt)",
    error_uri: "https://support.google.com/a/answer/9368756",
    error_subtype: "invalid_rapt",
  });
  assert.equal((await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: bobs })).status, 200);
  const fresh = emu.issueRefreshToken({ scopes: [CLOUD], account: "carol@example.com" });
  assert.equal((await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: fresh })).status, 200);
});

test("faults: retryable errors inside a 400, and 429/5xx on the metadata server", async () => {
  const refreshToken = emu.issueRefreshToken({ scopes: [CLOUD] });
  for (const error of ["internal_failure", "server_error", "temporarily_unavailable"]) {
    emu.failNext(1, { status: 400, error });
    const reply = await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: refreshToken });
    assert.equal(reply.status, 400);
    assert.equal(reply.json.error, error);
  }
  assert.throws(() => emu.failNext(1, { error: "Not A Code" }), /OAuth error code/);
  const md = (path: string) =>
    fetch(`${emu.url}/computeMetadata/v1/${path}`, { headers: { "Metadata-Flavor": "Google" } });
  emu.failNext(1, { target: "metadata", status: 429 });
  emu.failNext(1, { target: "metadata", status: 503 });
  assert.equal((await md("project/project-id")).status, 200, "only token and identity requests are faulted");
  const limited = await md("instance/service-accounts/default/token");
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get("metadata-flavor"), "Google");
  assert.equal((await md("instance/service-accounts/default/token")).status, 503);
  assert.equal((await md("instance/service-accounts/default/token")).status, 200);
});

test("the code page shows one code, CODE~STATE, with its Copy button and warning", async () => {
  const redirectUri = `${emu.url}${EMULATOR_PATHS.codePage}`;
  const { verifier, challenge } = pkcePair();
  const result = await approveSignIn(
    authUrl(emu, {
      client_id: DEMO_WEB_CLIENT.clientId,
      redirect_uri: redirectUri,
      state: "s<1>",
      code_challenge: challenge,
      code_challenge_method: "S256",
    }),
  );
  assert.ok(result.code);
  assert.equal(result.shown, `${result.code}~s<1>`);
  assert.match(result.body, /<code id="code">4\/emu\.[A-Za-z0-9_-]+~s&#60;1&#62;<\/code>/);
  assert.match(result.body, />Copy</);
  assert.match(result.body, /like a password/);
  const reply = await postForm(`${emu.url}/token`, {
    grant_type: "authorization_code",
    code: result.code!,
    code_verifier: verifier,
    redirect_uri: redirectUri,
    client_id: DEMO_WEB_CLIENT.clientId,
    client_secret: DEMO_WEB_CLIENT.clientSecret,
  });
  assert.equal(reply.status, 200);
  const noState = await (await fetch(`${redirectUri}?code=4/abc`)).text();
  assert.match(noState, /<code id="code">4\/abc<\/code>/);
});

test("codePage: false serves as Google serves a Desktop client: no code page, no web client", async () => {
  const desktop = await withEmulator({ codePage: false });
  const page = await fetch(`${desktop.url}${EMULATOR_PATHS.codePage}?code=4/x`);
  assert.equal(page.status, 404);
  await page.body?.cancel();
  const web = await approveSignIn(
    authUrl(desktop, { client_id: DEMO_WEB_CLIENT.clientId, redirect_uri: `${desktop.url}${EMULATOR_PATHS.codePage}` }),
  );
  assert.equal(web.error, "invalid_client");
  const loopback = await fetch(authUrl(desktop, { redirect_uri: receiver.redirectUri }));
  assert.equal(loopback.status, 200);
  await loopback.body?.cancel();
  const admin = (await (await fetch(`${desktop.url}/__emulator`)).json()) as { codePage: boolean };
  assert.equal(admin.codePage, false);
});

test("POST /__emulator/refresh-token answers a complete authorized_user credentials file", async () => {
  const res = await fetch(`${emu.url}/__emulator/refresh-token`, {
    method: "POST",
    body: JSON.stringify({ scopes: [CLOUD] }),
  });
  const file = (await res.json()) as Record<string, string>;
  assert.deepEqual(Object.keys(file).sort(), ["client_id", "client_secret", "refresh_token", "token_uri", "type"]);
  assert.equal(file.type, "authorized_user");
  assert.equal(file.client_id, DEMO_CLIENT.clientId);
  assert.equal(file.client_secret, DEMO_CLIENT.clientSecret);
  assert.equal(file.token_uri, `${emu.url}/token`);
  const reply = await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: file.refresh_token });
  assert.equal(reply.status, 200);
  const bad = await fetch(`${emu.url}/__emulator/refresh-token`, {
    method: "POST",
    body: JSON.stringify({ scopes: ["bigquery"] }),
  });
  assert.equal(bad.status, 400);
});

test("docs/emulator.md's shell lines mint a credentials file cred-auth loads", async (t) => {
  const docs = readFileSync(new URL("../../docs/emulator.md", import.meta.url), "utf8");
  const block = /```sh\n(npx cred-auth emulator --port 9099 --quiet &[\s\S]*?)```/.exec(docs)?.[1];
  assert.ok(block, "the CI section's shell block");
  const mint = block
    .split("\n")
    .filter((line) => !line.startsWith("npx ") && !line.startsWith("#"))
    .join("\n")
    .replaceAll("9099", String(new URL(emu.url).port));
  const dir = mkdtempSync(join(tmpdir(), "cred-auth-docs-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // Not spawnSync: the emulator answering curl runs in this process.
  const run = await execFileAsync("bash", ["-euc", `${mint}\nprintf %s "$GOOGLE_APPLICATION_CREDENTIALS"`], {
    cwd: dir,
    encoding: "utf8",
    timeout: 30_000,
  });
  const path = run.stdout.trim();
  assert.equal(path, join(dir, "credentials.json"));
  const credentials = await loadUserCredentials(path);
  const { token } = await credentials.getAccessToken();
  assert.equal(emu.checkAccessToken(token!)?.scopes[0], CLOUD);
});
