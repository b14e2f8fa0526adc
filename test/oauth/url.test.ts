import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { CredCredentialsError, ERROR_CODES } from "cred-auth";
import { buildAuthorizationUrl, createPkce, createState } from "../../dist/oauth/pkce.js";
import { parsePastedCode } from "../../dist/oauth/paste.js";
import { emailOf } from "../../dist/oauth/exchange.js";
import { resolveEndpoints } from "../../dist/protocols/endpoints.js";

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
  assert.throws(() => parsePastedCode("https://e.org/?error=access_denied&state=s1", "s1"), {
    code: ERROR_CODES.ACCESS_DENIED,
    error: "access_denied",
  });
  assert.throws(() => parsePastedCode("https://e.org/?state=s1", "s1"), { code: ERROR_CODES.INVALID_CODE });
  assert.throws(() => parsePastedCode("   ", "s1"), { code: ERROR_CODES.INVALID_CODE });
  assert.throws(() => parsePastedCode("two words", "s1"), CredCredentialsError);
});

test("the account comes from the ID token's email claim", () => {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  assert.equal(emailOf(`${part({ alg: "RS256" })}.${part({ email: "u@example.org" })}.sig`), "u@example.org");
  assert.equal(emailOf("garbage"), undefined);
});
