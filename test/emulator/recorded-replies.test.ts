// The replies google-auth-library-nodejs and google-auth-library-python record in their own tests
// (their fixtures, read at the commits below), replayed against the emulator: the same request, and
// its reply's fields compared with the recorded one's. Every difference is listed here and in
// docs/emulator.md ("Replayed against the Google libraries' fixtures"), so a new one fails this test.
// nodejs: googleapis/google-auth-library-nodejs a95b827 (2025-11-20); python: googleapis/google-auth-library-python 2ea24b0 (2026-03-06).
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_WORKFORCE_AUDIENCE, DEFAULT_WORKLOAD_AUDIENCE } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { postForm, signAssertion, tokenRequest } from "./support.ts";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const SA = "runner@emu-project.iam.gserviceaccount.com";
const emu = await withEmulator({
  metadata: { projectId: "emu-project", email: SA },
  serviceAccounts: [{ email: SA, tokenCreators: ["user:alice@example.com"] }],
});

interface Reply {
  status: number;
  json: Record<string, unknown>;
}

const asReply = async (res: Response): Promise<Reply> => {
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { text };
  }
  return { status: res.status, json };
};

async function userToken(): Promise<string> {
  const refreshToken = emu.issueRefreshToken({ scopes: [CLOUD] });
  return String(
    (await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: refreshToken })).json.access_token,
  );
}

const EXCHANGE = {
  grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
  requested_token_type: "urn:ietf:params:oauth:token-type:access_token",
  subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
  audience: DEFAULT_WORKLOAD_AUDIENCE,
  scope: CLOUD,
};

const iam = async (method: string, body: unknown) =>
  asReply(
    await fetch(`${emu.url}/v1/projects/-/serviceAccounts/${SA}:${method}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${await userToken()}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }),
  );

const metadata = async (path: string) =>
  asReply(await fetch(`${emu.url}/computeMetadata/v1/${path}`, { headers: { "Metadata-Flavor": "Google" } }));

/** What differs from a recorded reply: fields it has and the emulator's lacks, the reverse, and type changes. */
interface Difference {
  status?: number;
  missing?: string[];
  extra?: string[];
  types?: string[];
}

interface Recorded {
  source: string;
  recorded: Record<string, unknown>;
  replay: () => Promise<Reply>;
  differs?: Difference;
}

const RECORDED: Recorded[] = [
  {
    source:
      "python tests/oauth2/test_sts.py SUCCESS_RESPONSE; nodejs test/test.stscredentials.ts stsSuccessfulResponse",
    recorded: {
      access_token: "ACCESS_TOKEN",
      issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
      token_type: "Bearer",
      expires_in: 3600,
      scope: "scope1 scope2",
    },
    replay: () =>
      postForm(`${emu.url}/v1/token`, {
        ...EXCHANGE,
        subject_token: emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE }),
      }),
    differs: { missing: ["scope"] },
  },
  {
    source: "python tests/oauth2/test_sts.py ERROR_RESPONSE; nodejs test/test.stscredentials.ts errorResponse",
    recorded: {
      error: "invalid_request",
      error_description: "Invalid subject token",
      error_uri: "https://tools.ietf.org/html/rfc6749",
    },
    replay: () => postForm(`${emu.url}/v1/token`, { ...EXCHANGE, subject_token: "not-a-jwt" }),
    differs: { status: 400, missing: ["error_uri"] },
  },
  {
    source:
      "python tests/oauth2/test_sts.py SUCCESS_RESPONSE_WITH_REFRESH; nodejs test/test.externalaccountauthorizeduserclient.ts successfulRefreshResponse",
    recorded: { access_token: "abc", refresh_token: "xyz", expires_in: 3600 },
    replay: () => {
      const file = emu.issueExternalAccountAuthorizedUser({ audience: DEFAULT_WORKFORCE_AUDIENCE });
      const basic = Buffer.from(`${file.client_id}:${file.client_secret}`).toString("base64");
      return postForm(
        `${emu.url}/v1/oauthtoken`,
        { grant_type: "refresh_token", refresh_token: String(file.refresh_token) },
        { Authorization: `Basic ${basic}` },
      );
    },
    differs: { extra: ["token_type"] },
  },
  {
    source: "python tests/oauth2/test__client.py test_refresh_grant (without its made-up `extra`)",
    recorded: { access_token: "token", refresh_token: "new_refresh_token", expires_in: 500 },
    replay: async () =>
      tokenRequest(emu, { grant_type: "refresh_token", refresh_token: emu.issueRefreshToken({ scopes: [CLOUD] }) }),
    differs: { missing: ["refresh_token"], extra: ["scope", "token_type"] },
  },
  {
    source: "python tests/oauth2/test__client.py test_id_token_jwt_grant (without `extra`)",
    recorded: { id_token: "eyJ..." },
    replay: async () => {
      const key = emu.createServiceAccountKey();
      const now = Math.floor(Date.now() / 1000);
      const claims = { iss: key.client_email, aud: key.token_uri, iat: now, exp: now + 3600, target_audience: "x" };
      return postForm(key.token_uri, {
        grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
        assertion: signAssertion(key.private_key, claims, { alg: "RS256", typ: "JWT", kid: key.private_key_id }),
      });
    },
  },
  {
    source: "python tests/test_impersonated_credentials.py (generateAccessToken); nodejs test/test.impersonated.ts",
    recorded: { accessToken: "token", expireTime: "2019-12-31T23:59:59Z" },
    replay: () => iam("generateAccessToken", { scope: [CLOUD], lifetime: "600s" }),
  },
  {
    source: "python tests/test_impersonated_credentials.py (generateIdToken)",
    recorded: { token: "eyJ..." },
    replay: () => iam("generateIdToken", { audience: "https://example.com", includeEmail: true }),
  },
  {
    source: "python tests/test_impersonated_credentials.py and tests/test_iam.py (signBlob)",
    recorded: { keyId: "1", signedBlob: "c2lnbmF0dXJl" },
    replay: () => iam("signBlob", { payload: "c2lnbmF0dXJl" }),
    differs: { status: 404, missing: ["keyId", "signedBlob"], extra: ["error"] },
  },
  {
    source: "nodejs test/test.compute.ts mockToken; python tests/compute_engine/test_credentials.py",
    recorded: { access_token: "abc123", expires_in: 10000 },
    replay: () => metadata("instance/service-accounts/default/token"),
    differs: { extra: ["token_type"] },
  },
  {
    source: "python tests/compute_engine/test_credentials.py (service-accounts/default/?recursive=true)",
    recorded: { email: "service-account@example.com", scopes: ["one", "two"] },
    replay: () => metadata("instance/service-accounts/default/?recursive=true"),
    differs: { extra: ["aliases"] },
  },
  {
    source: "nodejs test/test.oauth2.ts 'should obtain token info' (POST with a Bearer header)",
    recorded: { aud: "naudience", user_id: "12345", scope: "scope1 scope2", expires_in: 1234 },
    replay: async () =>
      asReply(
        await fetch(`${emu.url}/tokeninfo`, {
          method: "POST",
          headers: { Authorization: `Bearer ${await userToken()}` },
        }),
      ),
    differs: {
      missing: ["user_id"],
      extra: ["access_type", "azp", "exp", "sub"],
      types: ["expires_in: number, emulator string"],
    },
  },
  {
    source: "python tests/test_aws.py AWS_SECURITY_CREDENTIALS_RESPONSE",
    recorded: { AccessKeyId: "AKIAIOSFODNN7EXAMPLE", SecretAccessKey: "x", Token: "x" },
    replay: async () => {
      const session = await fetch(`${emu.url}/aws-imds/latest/api/token`, {
        method: "PUT",
        headers: { "X-aws-ec2-metadata-token-ttl-seconds": "300" },
      });
      const headers = { "X-aws-ec2-metadata-token": await session.text() };
      const base = `${emu.url}/aws-imds/latest/meta-data/iam/security-credentials`;
      const role = await (await fetch(`${base}/`, { headers })).text();
      return asReply(await fetch(`${base}/${role}`, { headers }));
    },
    differs: { extra: ["Code", "Expiration", "LastUpdated", "Type"] },
  },
  {
    source:
      "python tests/oauth2/test_reauth.py (reauth.googleapis.com/v2/sessions:start, CHALLENGES_RESPONSE_TEMPLATE)",
    recorded: { status: "CHALLENGE_REQUIRED", sessionId: "123", challenges: [] },
    replay: async () => asReply(await fetch(`${emu.url}/v2/sessions:start`, { method: "POST", body: "{}" })),
    differs: { status: 404, missing: ["challenges", "sessionId", "status"], extra: ["error"] },
  },
];

const typeOf = (value: unknown) => (Array.isArray(value) ? "array" : typeof value);

function difference(recorded: Record<string, unknown>, reply: Reply): Difference {
  const keys = (o: Record<string, unknown>) => Object.keys(o).sort();
  const missing = keys(recorded).filter((k) => !(k in reply.json));
  const extra = keys(reply.json).filter((k) => !(k in recorded));
  const types = keys(recorded)
    .filter((k) => k in reply.json && typeOf(recorded[k]) !== typeOf(reply.json[k]))
    .map((k) => `${k}: ${typeOf(recorded[k])}, emulator ${typeOf(reply.json[k])}`);
  return {
    ...(reply.status !== 200 ? { status: reply.status } : {}),
    ...(missing.length ? { missing } : {}),
    ...(extra.length ? { extra } : {}),
    ...(types.length ? { types } : {}),
  };
}

test("the Google libraries' recorded replies, replayed against the emulator: only the differences docs/emulator.md lists", async () => {
  for (const { source, recorded, replay, differs = {} } of RECORDED) {
    assert.deepEqual(difference(recorded, await replay()), differs, source);
  }
});
