// IAM Credentials' generateIdToken: a service account's ID token for a caller with the token-creator
// role (directly or through delegates), with generateAccessToken's checks and Google's refusals,
// and through google-auth-library's own Impersonated.fetchIdToken.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Impersonated } from "google-auth-library";
import { withEmulator } from "../support/emulator.ts";
import { decodeJwtParts, emulatorUserClient, verifyIdToken } from "../support/id-tokens.ts";
import { serviceAccountAccessToken, tokenRequest } from "./support.ts";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const STORAGE_READ = "https://www.googleapis.com/auth/devstorage.read_only";
const RPC = "google.iam.credentials.v1.IAMCredentials.GenerateIdToken";
const serviceAccount = (name: string) => `${name}@idt-project.iam.gserviceaccount.com`;
const [TARGET, HOP, END] = ["invoker", "hop", "end"].map(serviceAccount);
const AUDIENCE = "https://hello-abc-uc.a.run.app";
const emu = await withEmulator({
  serviceAccounts: [
    { email: TARGET, tokenCreators: ["user:alice@example.com"] },
    { email: HOP, tokenCreators: ["user:alice@example.com"] },
    { email: END, tokenCreators: [`serviceAccount:${HOP}`] },
  ],
});

async function userToken(account: string, scopes = [CLOUD]): Promise<string> {
  const refreshToken = emu.issueRefreshToken({ scopes, account });
  return String(
    (await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: refreshToken })).json.access_token,
  );
}

async function generateIdToken(target: string, body: unknown, token?: string, method = "POST") {
  const res = await fetch(`${emu.url}/v1/projects/-/serviceAccounts/${target}:generateIdToken`, {
    method,
    headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    ...(method === "POST" ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const detailOf = (json: Record<string, unknown>) =>
  (json.error as { details?: Record<string, unknown>[] }).details?.[0] ?? {};

test("generateIdToken: {token}, Google's claims; includeEmail adds email; stats count it", async () => {
  const before = emu.stats();
  const caller = await userToken("alice@example.com");
  const reply = await generateIdToken(TARGET, { audience: AUDIENCE, includeEmail: true }, caller);
  assert.equal(reply.status, 200, JSON.stringify(reply.json));
  assert.deepEqual(Object.keys(reply.json), ["token"]);
  const payload = await verifyIdToken(emu, String(reply.json.token), AUDIENCE);
  assert.equal(payload.iss, "https://accounts.google.com");
  assert.equal(payload.aud, AUDIENCE);
  assert.match(payload.sub, /^\d{21}$/);
  assert.equal(payload.azp, payload.sub, "azp: the account's unique id");
  assert.equal(payload.email, TARGET);
  assert.equal(payload.email_verified, true);

  const bare = await generateIdToken(TARGET, { audience: AUDIENCE }, caller);
  const claims = decodeJwtParts(String(bare.json.token)).claims;
  assert.equal(claims.email, undefined, "includeEmail defaults to false");
  assert.equal(claims.email_verified, undefined);
  const withAzp = await generateIdToken(TARGET, { audience: AUDIENCE, includeEmail: true, useEmailAzp: true }, caller);
  assert.equal(decodeJwtParts(String(withAzp.json.token)).claims.azp, TARGET);
  const withOrg = await generateIdToken(TARGET, { audience: AUDIENCE, organizationNumberIncluded: true }, caller);
  assert.deepEqual(decodeJwtParts(String(withOrg.json.token)).claims.google, { organization_number: null });

  const after = emu.stats();
  assert.equal(after.iamRequests, before.iamRequests + 4);
  assert.equal(after.idTokensBySource.generateIdToken, (before.idTokensBySource.generateIdToken ?? 0) + 4);
});

test("delegation and service-account callers, as for generateAccessToken", async () => {
  const alice = await userToken("alice@example.com");
  const chain = await generateIdToken(
    END,
    { audience: AUDIENCE, delegates: [`projects/-/serviceAccounts/${HOP}`] },
    alice,
  );
  assert.equal(chain.status, 200, JSON.stringify(chain.json));
  const viaHop = await generateIdToken(END, { audience: AUDIENCE, delegates: [HOP], includeEmail: true }, alice);
  assert.equal(
    (await verifyIdToken(emu, String(viaHop.json.token), AUDIENCE)).email,
    END,
    "bare e-mails name delegates too",
  );
  const skipped = await generateIdToken(END, { audience: AUDIENCE }, alice);
  assert.equal(skipped.status, 403, "alice holds nothing on END herself");

  const key = emu.createServiceAccountKey({ email: serviceAccount("ci") });
  emu.addServiceAccount({
    email: TARGET,
    tokenCreators: ["user:alice@example.com", `serviceAccount:${key.client_email}`],
  });
  const fromKey = await generateIdToken(TARGET, { audience: AUDIENCE }, await serviceAccountAccessToken(key, [CLOUD]));
  assert.equal(fromKey.status, 200, JSON.stringify(fromKey.json));
});

test("refusals: 401 without or with a bad token, 403 scopes (naming GenerateIdToken), 403 getOpenIdToken, 404, 405", async () => {
  const missing = await generateIdToken(TARGET, { audience: AUDIENCE });
  assert.equal(missing.status, 401);
  assert.equal(detailOf(missing.json).reason, "CREDENTIALS_MISSING");
  assert.deepEqual(detailOf(missing.json).metadata, { method: RPC, service: "iamcredentials.googleapis.com" });
  const unknown = await generateIdToken(TARGET, { audience: AUDIENCE }, "ya29.not-a-token");
  assert.equal(unknown.status, 401);
  assert.equal(detailOf(unknown.json).reason, "ACCESS_TOKEN_TYPE_UNSUPPORTED");

  const narrow = await generateIdToken(
    TARGET,
    { audience: AUDIENCE },
    await userToken("alice@example.com", [STORAGE_READ]),
  );
  assert.equal(narrow.status, 403);
  assert.equal(detailOf(narrow.json).reason, "ACCESS_TOKEN_SCOPE_INSUFFICIENT");
  assert.deepEqual(detailOf(narrow.json).metadata, { method: RPC, service: "iamcredentials.googleapis.com" });

  const bob = await userToken("bob@example.com");
  const denied = await generateIdToken(TARGET, { audience: AUDIENCE }, bob);
  assert.deepEqual(denied, {
    status: 403,
    json: {
      error: {
        code: 403,
        message: "Permission 'iam.serviceAccounts.getOpenIdToken' denied on resource (or it may not exist).",
        status: "PERMISSION_DENIED",
        details: [
          {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            reason: "IAM_PERMISSION_DENIED",
            domain: "iam.googleapis.com",
            metadata: { permission: "iam.serviceAccounts.getOpenIdToken" },
          },
        ],
      },
    },
  });
  const ghost = serviceAccount("ghost");
  const notFound = await generateIdToken(ghost, { audience: AUDIENCE }, bob);
  assert.equal(notFound.status, 404);
  assert.equal((notFound.json.error as { message: string }).message, `Not found; Gaia id not found for email ${ghost}`);
  assert.equal((await generateIdToken(TARGET, undefined, bob, "GET")).status, 405);
});

test("400 INVALID_ARGUMENT: audience required, booleans typed, known fields only, account ids", async () => {
  const caller = await userToken("alice@example.com");
  const generic = {
    error: { code: 400, message: "Request contains an invalid argument.", status: "INVALID_ARGUMENT" },
  };
  for (const body of [{}, { audience: "" }, { audience: 7 }, { audience: AUDIENCE, delegates: "x" }]) {
    assert.deepEqual(await generateIdToken(TARGET, body, caller), { status: 400, json: generic }, JSON.stringify(body));
  }
  const notBool = await generateIdToken(TARGET, { audience: AUDIENCE, includeEmail: "yes" }, caller);
  assert.equal(notBool.status, 400);
  assert.equal(
    (notBool.json.error as { message: string }).message,
    `Invalid value at 'include_email' (TYPE_BOOL), "yes"`,
  );
  assert.deepEqual(detailOf(notBool.json).fieldViolations, [
    { field: "include_email", description: `Invalid value at 'include_email' (TYPE_BOOL), "yes"` },
  ]);
  const unknownField = await generateIdToken(TARGET, { audience: AUDIENCE, scope: [CLOUD] }, caller);
  assert.equal(
    (unknownField.json.error as { message: string }).message,
    'Invalid JSON payload received. Unknown name "scope": Cannot find field.',
  );
  const badTarget = await generateIdToken("nobody", { audience: AUDIENCE }, caller);
  assert.match(String((badTarget.json.error as { message: string }).message), /^Invalid form of account ID nobody\./);
  assert.equal((await generateIdToken(TARGET, "{not json", caller)).status, 400);
});

test("google-auth-library's Impersonated.fetchIdToken (includeEmail and useEmailAzp) gets a token that verifies", async () => {
  const sourceClient = (account: string) => emulatorUserClient(emu, account, [CLOUD]);
  const impersonated = new Impersonated({
    sourceClient: sourceClient("alice@example.com"),
    targetPrincipal: END,
    delegates: [`projects/-/serviceAccounts/${HOP}`],
    endpoint: emu.url,
  });
  const payload = await verifyIdToken(emu, await impersonated.fetchIdToken(AUDIENCE), AUDIENCE);
  assert.equal(payload.email, END);
  assert.equal(payload.azp, END, "useEmailAzp: true puts the e-mail in azp");
  const withoutEmail = await impersonated.fetchIdToken(AUDIENCE, { includeEmail: false });
  assert.equal(decodeJwtParts(withoutEmail).claims.email, undefined);

  const refused = new Impersonated({
    sourceClient: sourceClient("bob@example.com"),
    targetPrincipal: TARGET,
    endpoint: emu.url,
  });
  await assert.rejects(refused.fetchIdToken(AUDIENCE), /Permission 'iam\.serviceAccounts\.getOpenIdToken' denied/);
});
