// AWS workload identity federation (issue 27): the emulator's EC2 instance metadata service
// (IMDSv2) and STS's check of a signed GetCallerIdentity request, over real HTTP and through
// google-auth-library's own AwsClient.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AwsClient, type AwsClientOptions } from "google-auth-library";
import { DEFAULT_AWS_AUDIENCE, DEFAULT_WORKLOAD_AUDIENCE } from "cred-auth/emulator";
import { WORKLOAD_POOL as POOL, withEmulator } from "../support/emulator.ts";
import { postForm } from "./support.ts";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const AWS_TYPE = "urn:ietf:params:aws:token-type:aws4_request";
const TARGET = "aws-deployer@emu-project.iam.gserviceaccount.com";
const emu = await withEmulator({
  serviceAccounts: [{ email: TARGET, tokenCreators: [`principalSet://iam.googleapis.com/${POOL}/*`] }],
});

const imds = (path: string, init: RequestInit = {}) => fetch(`${emu.awsImdsUrl}/latest${path}`, init);

async function session(ttl = "300"): Promise<string> {
  const reply = await imds("/api/token", { method: "PUT", headers: { "X-aws-ec2-metadata-token-ttl-seconds": ttl } });
  assert.equal(reply.status, 200);
  return reply.text();
}

/** An AwsClient as google-auth-library builds it from a file (`default()` or `fromJSON`). */
function awsClient(file: Record<string, unknown>): AwsClient {
  return new AwsClient({ ...file, scopes: [CLOUD] } as unknown as AwsClientOptions);
}

/** Runs `body` with the AWS variables set (AwsClient reads process.env), then restores them. */
async function withAwsEnvironment(vars: Record<string, string>, body: () => Promise<void>): Promise<void> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    await body();
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

test("IMDSv2: PUT /latest/api/token gives a session token; GETs without one are refused (401)", async () => {
  const token = await session();
  assert.match(token, /^[A-Za-z0-9+/=]{40,}$/);
  const zone = await imds("/meta-data/placement/availability-zone", { headers: { "X-aws-ec2-metadata-token": token } });
  assert.equal(zone.status, 200);
  assert.equal(await zone.text(), "us-east-1a");
  const without = await imds("/meta-data/placement/availability-zone");
  assert.equal(without.status, 401, "IMDSv2 required: no token, no answer");
  assert.match(await without.text(), /401 - Unauthorized/);
  const forged = await imds("/meta-data/placement/availability-zone", {
    headers: { "X-aws-ec2-metadata-token": "AQAEAforged" },
  });
  assert.equal(forged.status, 401);
  for (const ttl of ["0", "21601", "abc"])
    assert.equal(
      (await imds("/api/token", { method: "PUT", headers: { "X-aws-ec2-metadata-token-ttl-seconds": ttl } })).status,
      400,
      ttl,
    );
  assert.equal((await imds("/api/token", { method: "PUT" })).status, 400, "the TTL header is required");
  assert.equal((await imds("/api/token")).status, 405, "a session token is PUT, never GET");
  const proxied = await imds("/api/token", {
    method: "PUT",
    headers: { "X-aws-ec2-metadata-token-ttl-seconds": "60", "X-Forwarded-For": "10.0.0.1" },
  });
  assert.equal(proxied.status, 403, "IMDS refuses token requests that came through a proxy");
});

test("IMDS: the role name, then its temporary credentials in IMDS's JSON", async () => {
  const headers = { "X-aws-ec2-metadata-token": await session() };
  const role = await (await imds("/meta-data/iam/security-credentials", { headers })).text();
  assert.equal(role, "emu-ec2-role");
  assert.equal(await (await imds("/meta-data/iam/security-credentials/", { headers })).text(), role);
  const reply = await imds(`/meta-data/iam/security-credentials/${role}`, { headers });
  assert.equal(reply.status, 200);
  const creds = JSON.parse(await reply.text()) as Record<string, string>;
  assert.equal(creds.Code, "Success");
  assert.equal(creds.Type, "AWS-HMAC");
  assert.match(creds.AccessKeyId, /^ASIA[A-Z0-9]{16}$/);
  assert.ok(creds.SecretAccessKey && creds.Token);
  assert.ok(Date.parse(creds.Expiration) > Date.now() + 5 * 3600_000, "instance credentials last hours");
  const again = JSON.parse(await (await imds(`/meta-data/iam/security-credentials/${role}`, { headers })).text());
  assert.equal(again.AccessKeyId, creds.AccessKeyId, "the same credentials until they near expiry");
  assert.equal((await imds("/meta-data/iam/security-credentials/other-role", { headers })).status, 404);
  assert.equal((await imds("/meta-data/placement/region", { headers })).status, 200);
});

test("IMDS options: IMDSv1 allowed, another zone, no role attached", async () => {
  const v1 = await withEmulator({ aws: { imdsV1: true, availabilityZone: "eu-west-3b", roleName: null } });
  const zone = await fetch(`${v1.awsImdsUrl}/latest/meta-data/placement/availability-zone`);
  assert.equal(zone.status, 200, "IMDSv1: no session token needed");
  assert.equal(await zone.text(), "eu-west-3b");
  const bad = await fetch(`${v1.awsImdsUrl}/latest/meta-data/placement/availability-zone`, {
    headers: { "X-aws-ec2-metadata-token": "stale" },
  });
  assert.equal(bad.status, 401, "a bad session token is refused even where IMDSv1 is allowed");
  assert.equal((await fetch(`${v1.awsImdsUrl}/latest/meta-data/iam/security-credentials`)).status, 404);
  await assert.rejects(withEmulator({ aws: { availabilityZone: "mars-1" } }), RangeError);
  await assert.rejects(withEmulator({ aws: { accountId: "42" } }), RangeError);
});

test("google-auth-library's AwsClient, IMDSv2: region, role and keys from the IMDS, a signed request, a token", async () => {
  const before = emu.stats().awsImdsRequests;
  const client = awsClient(emu.awsExternalAccountFile());
  const { token } = await client.getAccessToken();
  assert.ok(token);
  const info = emu.checkAccessToken(token);
  assert.match(
    info?.account ?? "",
    new RegExp(
      `^principal://iam\\.googleapis\\.com/${POOL}/subject/arn:aws:sts::111122223333:assumed-role/emu-ec2-role/i-0[0-9a-f]{16}$`,
    ),
  );
  assert.deepEqual(info?.scopes, [CLOUD]);
  assert.ok(emu.stats().awsImdsRequests >= before + 4, "token, zone, role, credentials");
  const api = await fetch(`${emu.url}/storage/v1/b/no-such-bucket/o`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(api.status, 404, "the federated token works on the fake APIs");
});

test("AwsClient without the IMDSv2 URL fails on an IMDSv2-only instance, and works where IMDSv1 is on", async () => {
  await assert.rejects(awsClient(emu.awsExternalAccountFile({ imdsv2: false })).getAccessToken(), /401|Unauthorized/);
  const v1 = await withEmulator({ aws: { imdsV1: true } });
  assert.ok((await awsClient(v1.awsExternalAccountFile({ imdsv2: false })).getAccessToken()).token);
});

test("AwsClient with keys and region from the environment (long-term key and temporary keys)", async () => {
  for (const temporary of [false, true]) {
    const keys = emu.issueAwsCredentials({ temporary });
    const env: Record<string, string> = {
      AWS_REGION: "us-west-2",
      AWS_ACCESS_KEY_ID: keys.accessKeyId,
      AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
      AWS_SESSION_TOKEN: keys.sessionToken ?? "",
    };
    await withAwsEnvironment(env, async () => {
      const before = emu.stats().awsImdsRequests;
      const { token } = await awsClient(emu.awsExternalAccountFile({ environmentOnly: true })).getAccessToken();
      assert.ok(token);
      assert.equal(emu.stats().awsImdsRequests, before, "the environment was enough: no IMDS request");
      assert.ok(emu.checkAccessToken(token)?.account.endsWith(`/subject/${keys.arn}`));
    });
    assert.match(keys.arn, temporary ? /:assumed-role\// : /^arn:aws:iam::111122223333:user\//);
  }
});

test("AwsClient with service-account impersonation: STS, then generateAccessToken as the pool's principal", async () => {
  const { token } = await awsClient(emu.awsExternalAccountFile({ impersonate: TARGET })).getAccessToken();
  assert.equal(emu.checkAccessToken(String(token))?.account, TARGET);
});

/** A subject token signed the way AwsClient signs it, with `keys`, then changed by `edit`. */
async function signedSubjectToken(
  keys: { accessKeyId: string; secretAccessKey: string; sessionToken?: string },
  edit: (request: { url: string; method: string; headers: { key: string; value: string }[] }) => void = () => {},
): Promise<string> {
  let subjectToken = "";
  await withAwsEnvironment(
    {
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: keys.accessKeyId,
      AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
      AWS_SESSION_TOKEN: keys.sessionToken ?? "",
    },
    async () => {
      subjectToken = await awsClient(emu.awsExternalAccountFile({ environmentOnly: true })).retrieveSubjectToken();
    },
  );
  const request = JSON.parse(decodeURIComponent(subjectToken));
  if (!keys.sessionToken)
    request.headers = request.headers.filter((h: { key: string }) => h.key !== "x-amz-security-token");
  edit(request);
  return encodeURIComponent(JSON.stringify(request));
}

const exchange = (subjectToken: string, audience = DEFAULT_AWS_AUDIENCE, type = AWS_TYPE) =>
  postForm(`${emu.url}/v1/token`, {
    grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
    requested_token_type: "urn:ietf:params:oauth:token-type:access_token",
    subject_token_type: type,
    subject_token: subjectToken,
    audience,
    scope: CLOUD,
  });

test("the subject token is the serialized signed GetCallerIdentity request AwsClient builds", async () => {
  const keys = emu.issueAwsCredentials();
  const token = await signedSubjectToken(keys);
  const request = JSON.parse(decodeURIComponent(token)) as {
    url: string;
    method: string;
    headers: { key: string; value: string }[];
  };
  assert.equal(request.method, "POST");
  assert.equal(request.url, "https://sts.us-east-1.amazonaws.com?Action=GetCallerIdentity&Version=2011-06-15");
  const header = (name: string) => request.headers.find((h) => h.key.toLowerCase() === name)?.value;
  assert.equal(header("x-goog-cloud-target-resource"), DEFAULT_AWS_AUDIENCE);
  assert.match(
    header("authorization") ?? "",
    /^AWS4-HMAC-SHA256 Credential=ASIA\w+\/\d{8}\/us-east-1\/sts\/aws4_request, SignedHeaders=host;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
  );
  assert.equal((await exchange(token)).status, 200);
});

test("STS refuses a wrong signature, unknown keys, a missing session token, expired keys, an old date, with STS's words", async () => {
  const keys = emu.issueAwsCredentials();
  const says = (code: string) => new RegExp(`^Received invalid AWS response of type ${code} with error message: `);
  const wrongSecret = await exchange(
    await signedSubjectToken({ ...keys, secretAccessKey: `${keys.secretAccessKey}x` }),
  );
  assert.equal(wrongSecret.status, 400);
  assert.equal(wrongSecret.json.error, "invalid_grant");
  assert.equal(
    wrongSecret.json.error_description,
    "Received invalid AWS response of type SignatureDoesNotMatch with error message: The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.",
  );
  const unknownKey = await exchange(await signedSubjectToken({ ...keys, accessKeyId: "ASIAUNKNOWNKEY000000" }));
  assert.match(String(unknownKey.json.error_description), says("InvalidClientTokenId"));
  const noSessionToken = await exchange(await signedSubjectToken({ ...keys, sessionToken: undefined }));
  assert.match(String(noSessionToken.json.error_description), says("InvalidClientTokenId"));
  const expired = emu.issueAwsCredentials({ lifetimeSec: -60 });
  assert.match(
    String((await exchange(await signedSubjectToken(expired))).json.error_description),
    says("ExpiredToken"),
  );
  const tamperedUrl = await exchange(
    await signedSubjectToken(keys, (r) => {
      r.url = r.url.replace("us-east-1", "eu-west-1");
      for (const h of r.headers) if (h.key === "host") h.value = "sts.eu-west-1.amazonaws.com";
    }),
  );
  assert.match(String(tamperedUrl.json.error_description), says("SignatureDoesNotMatch"), "the URL is signed");
  const old = await exchange(
    await signedSubjectToken(keys, (r) => {
      for (const h of r.headers) if (h.key === "x-amz-date") h.value = "20200101T000000Z";
    }),
  );
  assert.match(
    String(old.json.error_description),
    /SignatureDoesNotMatch with error message: Signature expired: 20200101T000000Z is now earlier than/,
  );
  for (const reply of [wrongSecret, unknownKey, noSessionToken]) {
    const text = JSON.stringify(reply.json);
    assert.ok(!text.includes(keys.secretAccessKey) && !text.includes(String(keys.sessionToken)), "no key in an error");
  }
});

test("STS refuses a request for another audience, a malformed one, and a token type the provider does not take", async () => {
  const keys = emu.issueAwsCredentials();
  const otherTarget = await exchange(
    await signedSubjectToken(keys, (r) => {
      for (const h of r.headers) if (h.key === "x-goog-cloud-target-resource") h.value = DEFAULT_WORKLOAD_AUDIENCE;
    }),
  );
  assert.equal(otherTarget.json.error, "invalid_grant");
  assert.match(String(otherTarget.json.error_description), /x-goog-cloud-target-resource/);
  const withHttps = await exchange(
    await signedSubjectToken(keys, (r) => {
      for (const h of r.headers)
        if (h.key === "x-goog-cloud-target-resource") h.value = `https:${DEFAULT_AWS_AUDIENCE}`;
    }),
  );
  assert.equal(withHttps.status, 200, "the target resource may carry the https: prefix");
  for (const malformed of [
    "not json",
    encodeURIComponent(
      JSON.stringify({
        url: "https://evil.example/?Action=GetCallerIdentity&Version=2011-06-15",
        method: "POST",
        headers: [],
      }),
    ),
    await signedSubjectToken(keys, (r) => {
      r.method = "GET";
    }),
    await signedSubjectToken(keys, (r) => {
      r.headers = r.headers.filter((h) => h.key !== "authorization");
    }),
  ]) {
    const reply = await exchange(malformed);
    assert.deepEqual(reply.json, { error: "invalid_request", error_description: "AWS request has invalid format." });
  }
  const oidcAtAws = await exchange(
    emu.issueSubjectToken({ audience: DEFAULT_AWS_AUDIENCE }),
    DEFAULT_AWS_AUDIENCE,
    "urn:ietf:params:oauth:token-type:jwt",
  );
  assert.equal(oidcAtAws.json.error, "invalid_request");
  const awsAtOidc = await exchange(await signedSubjectToken(keys), DEFAULT_WORKLOAD_AUDIENCE);
  assert.equal(awsAtOidc.json.error, "invalid_request");
});

test("AWS providers by method and admin route; files and keys from the admin API", async () => {
  const audience = "//iam.googleapis.com/projects/77/locations/global/workloadIdentityPools/aws-ci/providers/aws";
  assert.throws(
    () =>
      emu.addIdentityProvider("//iam.googleapis.com/locations/global/workforcePools/w/providers/aws", { type: "aws" }),
    /only workload identity pools/,
  );
  const admin = (path: string, body: unknown) =>
    fetch(`${emu.url}/__emulator${path}`, { method: "POST", body: JSON.stringify(body) });
  assert.equal((await admin("/identity-provider", { audience, type: "aws" })).status, 200);
  const file = (await (await admin("/aws-external-account", { audience })).json()) as Record<string, unknown>;
  assert.equal(file.subject_token_type, AWS_TYPE);
  assert.equal((file.credential_source as Record<string, string>).environment_id, "aws1");
  assert.ok((await awsClient(file).getAccessToken()).token);
  const keys = (await (await admin("/aws-credentials", { temporary: false })).json()) as Record<string, string>;
  assert.match(keys.accessKeyId, /^AKIA/);
  assert.equal(keys.sessionToken, undefined);
  assert.equal((await admin("/aws-external-account", { audience: DEFAULT_WORKLOAD_AUDIENCE })).status, 400);
  assert.equal((await admin("/aws-credentials", { temporary: "yes" })).status, 400);
  const config = (await (await fetch(`${emu.url}/__emulator`)).json()) as { aws: Record<string, unknown> };
  assert.deepEqual(config.aws, {
    imdsUrl: emu.awsImdsUrl,
    availabilityZone: "us-east-1a",
    roleName: "emu-ec2-role",
    accountId: "111122223333",
    imdsV1: false,
  });
});
