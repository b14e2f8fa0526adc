// PKCE and the authorization URL (RFC 7636): exact values, so that any change to the verifier's
// entropy, the S256 transform or a URL parameter is noticed.
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildAuthorizationUrl, createPkce, createState, s256 } from "../../dist/oauth/pkce.js";

test("S256 is BASE64URL(SHA256(verifier)): RFC 7636 appendix B's example", () => {
  assert.equal(s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
});

test("a state and a verifier are 32 random bytes in base64url (43 characters), fresh every time", () => {
  const states = new Set(Array.from({ length: 20 }, () => createState()));
  const verifiers = new Set(Array.from({ length: 20 }, () => createPkce().codeVerifier));
  assert.equal(states.size, 20);
  assert.equal(verifiers.size, 20);
  for (const value of [...states, ...verifiers]) {
    assert.match(value, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(value, "base64url").length, 32);
  }
  const { codeVerifier, codeChallenge } = createPkce();
  assert.equal(codeChallenge, s256(codeVerifier));
});

test("the authorization URL keeps the endpoint and sets exactly the PKCE, state and offline parameters", () => {
  const href = buildAuthorizationUrl({
    endpoints: { authUrl: "http://127.0.0.1:9099/o/oauth2/v2/auth" },
    clientId: "123-abc.apps.googleusercontent.com",
    redirectUri: "http://127.0.0.1:8085/",
    scopes: ["openid", "https://www.googleapis.com/auth/bigquery"],
    state: "st+/=",
    codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  });
  const url = new URL(href);
  assert.equal(`${url.origin}${url.pathname}`, "http://127.0.0.1:9099/o/oauth2/v2/auth");
  assert.deepEqual(
    [...url.searchParams],
    [
      ["response_type", "code"],
      ["client_id", "123-abc.apps.googleusercontent.com"],
      ["redirect_uri", "http://127.0.0.1:8085/"],
      ["scope", "openid https://www.googleapis.com/auth/bigquery"],
      ["state", "st+/="],
      ["code_challenge", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"],
      ["code_challenge_method", "S256"],
      ["access_type", "offline"],
      ["prompt", "consent"],
    ],
  );
  const hinted = new URL(
    buildAuthorizationUrl({
      endpoints: { authUrl: "https://accounts.google.com/o/oauth2/v2/auth" },
      clientId: "c",
      redirectUri: "http://localhost:8080/",
      scopes: [],
      state: "s",
      codeChallenge: "c",
      loginHint: "user@example.org",
    }),
  );
  assert.equal(hinted.searchParams.get("login_hint"), "user@example.org");
  assert.equal(hinted.searchParams.get("scope"), "");
});
