// Requests as the peers send them (issue 27), found by running gcloud 528 and Python google-auth
// against the emulator: each was refused although Google accepts it.
import assert from "node:assert/strict";
import { createSign } from "node:crypto";
import { test } from "node:test";
import { DEFAULT_WORKFORCE_AUDIENCE, DEFAULT_WORKLOAD_AUDIENCE } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { authUrl, postForm, tokenRequest } from "./support.ts";

const IAM = "https://www.googleapis.com/auth/iam";
const SQL_LOGIN = "https://www.googleapis.com/auth/sqlservice.login";
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const emu = await withEmulator();

const exchange = (params: Record<string, string>) =>
  postForm(`${emu.url}/v1/token`, {
    grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
    requested_token_type: "urn:ietf:params:oauth:token-type:access_token",
    subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
    audience: DEFAULT_WORKLOAD_AUDIENCE,
    ...params,
  });

test("STS accepts the iam scope Python and gcloud ask for before impersonating", async () => {
  const reply = await exchange({
    subject_token: emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE }),
    scope: IAM,
  });
  assert.equal(reply.status, 200, JSON.stringify(reply.json));
  assert.deepEqual(emu.checkAccessToken(String(reply.json.access_token))?.scopes, [IAM]);
});

test("STS reads a workforce exchange's options URL-quoted inside the form, as Python sends it", async () => {
  const subject = emu.issueSubjectToken({ audience: DEFAULT_WORKFORCE_AUDIENCE, subject: "alice" });
  // google/oauth2/sts.py: request_body["options"] = urllib.parse.quote(json.dumps(additional_options))
  const pythonOptions = "%7B%22userProject%22%3A%20%22my-project%22%7D";
  const quoted = await exchange({
    subject_token: subject,
    audience: DEFAULT_WORKFORCE_AUDIENCE,
    scope: CLOUD,
    options: pythonOptions,
  });
  assert.equal(quoted.status, 200, JSON.stringify(quoted.json));
  const once = await exchange({
    subject_token: subject,
    audience: DEFAULT_WORKFORCE_AUDIENCE,
    scope: CLOUD,
    options: JSON.stringify({ userProject: "my-project" }),
  });
  assert.equal(once.status, 200, "JSON encoded once (google-auth-library) still works");
  const garbled = await exchange({
    subject_token: subject,
    audience: DEFAULT_WORKFORCE_AUDIENCE,
    scope: CLOUD,
    options: "%7Bnot-json",
  });
  assert.equal(garbled.json.error, "invalid_request", "options that are JSON in no encoding name no userProject");
});

test("a JWT-bearer assertion whose parts keep base64 padding is accepted (google-auth for Python before 1.6.3)", async () => {
  const key = emu.createServiceAccountKey();
  const now = Math.floor(Date.now() / 1000);
  // Python 1.5.1's jwt.encode: base64.urlsafe_b64encode of each part, padding kept, signed as sent.
  const padded = (value: unknown) =>
    Buffer.from(JSON.stringify(value)).toString("base64").replace(/\+/g, "-").replace(/\//g, "_");
  const header = { typ: "JWT", alg: "RS256", kid: key.private_key_id };
  const claimsWith = (jti: string) => ({
    iss: key.client_email,
    scope: CLOUD,
    aud: key.token_uri,
    iat: now,
    exp: now + 3600,
    jti,
  });
  // Lengthen the claims until their part really ends in "=": the test cannot pass on an unpadded assertion.
  let jti = "x";
  while (!padded(claimsWith(jti)).endsWith("=")) jti += "x";
  const claims = claimsWith(jti);
  const input = `${padded(header)}.${padded(claims)}`;
  const signature = createSign("RSA-SHA256")
    .update(input)
    .sign(key.private_key)
    .toString("base64")
    .replace(/\+/g, "-")
    .replace(/\//g, "_");
  const assertion = `${input}.${signature}`;
  assert.match(assertion, /=\./, "the assertion carries padding");
  const reply = await postForm(key.token_uri, {
    grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
    assertion,
  });
  assert.equal(reply.status, 200, JSON.stringify(reply.json));
  assert.equal(emu.checkAccessToken(String(reply.json.access_token))?.account, key.client_email);
  const tampered = `${input}.${signature.replace(/^./, (c) => (c === "A" ? "B" : "A"))}`;
  assert.equal(
    (await postForm(key.token_uri, { grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: tampered }))
      .json.error,
    "invalid_grant",
    "padding is accepted, a bad signature still is not",
  );
});

test("gcloud's default ADC scope sqlservice.login is a scope Google knows", async () => {
  const consent = await fetch(authUrl(emu, { redirect_uri: "http://127.0.0.1:1/", scope: `${CLOUD} ${SQL_LOGIN}` }));
  assert.equal(consent.status, 200, "no invalid_scope page");
  const refreshToken = emu.issueRefreshToken({ scopes: ["openid", "email", CLOUD, SQL_LOGIN] });
  const reply = await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: refreshToken });
  assert.equal(reply.status, 200);
  assert.match(String(reply.json.scope), /sqlservice\.login/);
});
