import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { CredCredentialsError } from "cred-auth";
import { buildAuthorizationUrl, createPkce, createState } from "../../dist/oauth/pkce.js";
import { parsePastedCode, pasteRedirectUri } from "../../dist/oauth/paste.js";
import { loopbackTarget, signInMode } from "../../dist/oauth/mode.js";
import { resolveEndpoints } from "../../dist/google/endpoints.js";
import { emailOf } from "../../dist/oauth/exchange.js";

test("state is fresh and carries at least 128 bits", () => {
  const a = createState();
  const b = createState();
  assert.notEqual(a, b);
  assert.ok(Buffer.from(a, "base64url").length * 8 >= 128);
  assert.match(a, /^[A-Za-z0-9_-]+$/);
});

test("the PKCE verifier is 43-128 unreserved characters and the challenge is its S256", () => {
  const { codeVerifier, codeChallenge } = createPkce();
  assert.ok(codeVerifier.length >= 43 && codeVerifier.length <= 128);
  assert.match(codeVerifier, /^[A-Za-z0-9._~-]+$/);
  assert.equal(codeChallenge, createHash("sha256").update(codeVerifier).digest("base64url"));
  assert.notEqual(createPkce().codeVerifier, codeVerifier);
});

test("the authorization URL asks for a refresh token every time, with PKCE and state", () => {
  const url = new URL(
    buildAuthorizationUrl({
      endpoints: resolveEndpoints({}),
      clientId: "id.apps",
      redirectUri: "http://localhost:8080/",
      scopes: ["https://www.googleapis.com/auth/cloud-platform", "openid"],
      state: "st",
      codeChallenge: "ch",
      loginHint: "a@example.org",
    }),
  );
  assert.equal(url.origin + url.pathname, "https://accounts.google.com/o/oauth2/v2/auth");
  const q = Object.fromEntries(url.searchParams);
  assert.deepEqual(q, {
    response_type: "code",
    client_id: "id.apps",
    redirect_uri: "http://localhost:8080/",
    scope: "https://www.googleapis.com/auth/cloud-platform openid",
    state: "st",
    code_challenge: "ch",
    code_challenge_method: "S256",
    access_type: "offline",
    prompt: "consent",
    login_hint: "a@example.org",
  });
});

test("a pasted bare code, full redirect URL or query string gives the code", () => {
  assert.equal(parsePastedCode("  4/0Abc-def_ghi \n", "s1"), "4/0Abc-def_ghi");
  assert.equal(parsePastedCode("https://example.org/oauth.html?code=4%2F0Abc&state=s1&scope=x", "s1"), "4/0Abc");
  assert.equal(parsePastedCode("http://localhost:8080/?state=s1&code=xyz", "s1"), "xyz");
  assert.equal(parsePastedCode("?code=xyz&scope=a&state=s1", "s1"), "xyz");
  assert.equal(parsePastedCode("4/0Abc-def_ghi~s1", "s1"), "4/0Abc-def_ghi");
  assert.throws(() => parsePastedCode("?code=xyz&scope=a", "s1"), /carries no state/);
  assert.throws(() => parsePastedCode("4/0Abc~other", "s1"), /state mismatch/);
});

test("a pasted URL of another sign-in, with an error, or without a code is refused", () => {
  assert.throws(
    () => parsePastedCode("https://e.org/?code=SECRETCODE&state=other", "s1"),
    (e: Error) => {
      assert.ok(e instanceof CredCredentialsError);
      assert.match(e.message, /state/);
      assert.doesNotMatch(e.message, /SECRETCODE/);
      return true;
    },
  );
  assert.throws(() => parsePastedCode("https://e.org/?error=access_denied&state=s1", "s1"), /denied in the browser/);
  assert.throws(() => parsePastedCode("https://e.org/?state=s1", "s1"), /no authorization code/);
  assert.throws(() => parsePastedCode("   ", "s1"), /No authorization code/);
  assert.throws(() => parsePastedCode("two words", "s1"), CredCredentialsError);
});

test("copy-paste redirect: option, then the emulator's code page, then CRED_AUTH_REDIRECT_URI, else how to host oauth.html", () => {
  const google = resolveEndpoints({});
  const emulator = resolveEndpoints({ CRED_AUTH_EMULATOR_HOST: "127.0.0.1:9099" });
  const env = { CRED_AUTH_REDIRECT_URI: "https://env.example/oauth.html" };
  assert.equal(pasteRedirectUri("https://opt.example/cb", emulator, env), "https://opt.example/cb");
  assert.equal(pasteRedirectUri(undefined, emulator, env), "http://127.0.0.1:9099/oauth/code");
  assert.equal(pasteRedirectUri(undefined, google, env), "https://env.example/oauth.html");
  assert.throws(() => pasteRedirectUri(undefined, google, {}), /docs\/oauth\.html/);
});

test("mode: loopback by default, paste when asked or when the redirect URI is not loopback", () => {
  assert.equal(signInMode({}), "loopback");
  assert.equal(signInMode({ useLocalWebserver: false }), "paste");
  assert.equal(signInMode({ redirectUri: "https://org.example/oauth" }), "paste");
  assert.equal(signInMode({ redirectUri: "http://127.0.0.1:9004/cb" }), "loopback");
  assert.throws(
    () => signInMode({ useLocalWebserver: true, redirectUri: "https://org.example/oauth" }),
    /not a loopback address/,
  );
  assert.deepEqual(loopbackTarget("http://[::1]:9004/cb"), {
    host: "::1",
    ports: { first: 9004, last: 9004 },
    path: "/cb",
  });
  assert.equal(loopbackTarget("http://localhost/"), undefined);
});

test("authLocalWebserver is the deprecated alias: it warns once and means the same", async () => {
  const warnings: Error[] = [];
  const listen = (w: Error) => warnings.push(w);
  process.on("warning", listen);
  try {
    assert.equal(signInMode({ authLocalWebserver: false }), "paste");
    assert.equal(signInMode({ authLocalWebserver: true }), "loopback");
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off("warning", listen);
  }
  const ours = warnings.filter((w) => (w as { code?: string }).code === "CRED_AUTH_DEP_AUTH_LOCAL_WEBSERVER");
  assert.equal(ours.length, 1);
  assert.equal(ours[0]!.name, "DeprecationWarning");
});

test("the account comes from the ID token's email claim", () => {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  assert.equal(emailOf(`${part({ alg: "RS256" })}.${part({ email: "u@example.org" })}.sig`), "u@example.org");
  assert.equal(emailOf("garbage"), undefined);
});
