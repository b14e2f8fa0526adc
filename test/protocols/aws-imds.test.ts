// The AWS source's region and keys (src/protocols/aws.ts): from the environment, else from the
// EC2 instance metadata service (IMDS) at the file's judged URLs, here a local IMDS that answers
// what each test needs: the role-name check, the reply size cap, a reply with missing keys (never
// signed with empty keys), IMDSv2's session token, and the region pattern's anchors.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ERROR_CODES } from "cred-auth";
import { awsIdentity } from "../../dist/protocols/aws.js";
import { type Recorded, startRecorder } from "../trust/recorder.ts";

type Reply = { status?: number; body: string };
let replies: Record<string, Reply> = {};
const imds = await startRecorder(
  (request: Recorded) => replies[request.url.split("?")[0]!] ?? { status: 404, body: "" },
);

const KEYS = { AccessKeyId: "ASIAIMDSTEST0001", SecretAccessKey: "imds/secret+key", Token: "imds-session-token" };
const urls = {
  regionUrl: `${imds.url}/latest/meta-data/placement/availability-zone`,
  credentialsUrl: `${imds.url}/latest/meta-data/iam/security-credentials`,
};
const ROLE_PATH = "/latest/meta-data/iam/security-credentials";

function instance(role = "my-role", keys: unknown = KEYS, zone = "eu-west-3b"): void {
  replies = {
    "/latest/meta-data/placement/availability-zone": { body: zone },
    [ROLE_PATH]: { body: `${role}\n` },
    [`${ROLE_PATH}/${role.trim()}`]: { body: typeof keys === "string" ? keys : JSON.stringify(keys) },
  };
}

const unavailable = (pattern: RegExp) => (error: Error & { code?: string }) =>
  error.code === ERROR_CODES.AWS_CREDENTIALS_UNAVAILABLE && pattern.test(error.message);

test("IMDS: the zone's region, the role's keys; the environment's own values first", async () => {
  instance();
  assert.deepEqual(await awsIdentity(urls, {}), {
    region: "eu-west-3",
    keys: { accessKeyId: KEYS.AccessKeyId, secretAccessKey: KEYS.SecretAccessKey, sessionToken: KEYS.Token },
  });
  const env = { AWS_ACCESS_KEY_ID: "AKIAENV", AWS_SECRET_ACCESS_KEY: "env-secret" };
  assert.deepEqual(await awsIdentity(urls, { ...env, AWS_DEFAULT_REGION: "us-east-2" }), {
    region: "us-east-2",
    keys: { accessKeyId: "AKIAENV", secretAccessKey: "env-secret" },
  });
  assert.deepEqual(await awsIdentity(urls, { ...env, AWS_SESSION_TOKEN: "tok", AWS_REGION: "ap-south-1" }), {
    region: "ap-south-1",
    keys: { accessKeyId: "AKIAENV", secretAccessKey: "env-secret", sessionToken: "tok" },
  });
  const fromImds = imds.requests.length;
  assert.equal((await awsIdentity(urls, { ...env, AWS_REGION: "us-west-1" })).region, "us-west-1");
  assert.equal(imds.requests.length, fromImds, "nothing asked of IMDS when the environment has it all");
  assert.equal(
    (await awsIdentity(urls, env)).region,
    "eu-west-3",
    "the region from IMDS, the keys from the environment",
  );
  const { keys } = await awsIdentity(urls, { AWS_REGION: "us-west-1" });
  assert.equal(keys.accessKeyId, KEYS.AccessKeyId, "the keys from IMDS, the region from the environment");
  instance("my-role", { AccessKeyId: "AKIALONG", SecretAccessKey: "long-term" });
  assert.deepEqual((await awsIdentity(urls, {})).keys, { accessKeyId: "AKIALONG", secretAccessKey: "long-term" });
});

test("one of the two AWS key variables alone is no keys: both come from IMDS, never a key with undefined", async () => {
  instance();
  for (const env of [{ AWS_ACCESS_KEY_ID: "AKIAENV" }, { AWS_SECRET_ACCESS_KEY: "env-secret" }])
    assert.deepEqual((await awsIdentity(urls, { ...env, AWS_REGION: "us-east-1" })).keys, {
      accessKeyId: KEYS.AccessKeyId,
      secretAccessKey: KEYS.SecretAccessKey,
      sessionToken: KEYS.Token,
    });
});

test("IMDS's failures carry their status and cause; a role listing's other failure gets no 'no role attached' advice", async () => {
  instance();
  replies[ROLE_PATH] = { status: 500, body: "" };
  await assert.rejects(awsIdentity(urls, { AWS_REGION: "us-east-1" }), (error: Error & { status?: number }) => {
    assert.match(error.message, /answered HTTP 500 for the instance's IAM role\.$/);
    assert.equal(error.status, 500);
    return true;
  });
  instance();
  replies["/latest/api/token"] = { status: 403, body: "" };
  await assert.rejects(
    awsIdentity({ ...urls, sessionTokenUrl: `${imds.url}/latest/api/token` }, {}),
    unavailable(/answered HTTP 403 for an IMDSv2 session token\.$/),
  );
  await assert.rejects(awsIdentity({ regionUrl: "http://127.0.0.1:9/x" }, {}), (error: Error) => {
    assert.ok(error.cause instanceof Error, "the network failure is kept as the cause");
    return true;
  });
  await assert.rejects(
    awsIdentity(urls, { AWS_REGION: "a".repeat(100), AWS_ACCESS_KEY_ID: "A", AWS_SECRET_ACCESS_KEY: "S" }),
    unavailable(new RegExp(`^The AWS region "${"a".repeat(40)}" is not`)),
    "a long value is quoted to 40 characters",
  );
});

test("IMDS's role name must be a role name: a path or anything else in it is refused, nothing asked with it", async () => {
  for (const role of ["../../latest/user-data", "a b", "role?x=1", "", "r".repeat(129), "role#x"]) {
    instance(role);
    const before = imds.requests.length;
    await assert.rejects(awsIdentity(urls, {}), unavailable(/named no IAM role; attach a role/), role);
    assert.ok(
      imds.requests.slice(before).every((r) => !r.url.startsWith(`${ROLE_PATH}/`)),
      `${role}: no request built from it`,
    );
  }
  for (const role of ["ok+=,.@-_role", "r".repeat(128)]) {
    instance(role);
    assert.equal((await awsIdentity(urls, {})).keys.accessKeyId, KEYS.AccessKeyId, role);
  }
  instance("first-role\nsecond-role");
  replies[`${ROLE_PATH}/first-role`] = { body: JSON.stringify(KEYS) };
  assert.equal((await awsIdentity(urls, {})).keys.accessKeyId, KEYS.AccessKeyId, "the first role listed");
});

test("IMDS's keys reply must hold both keys: missing, empty or non-string keys are refused, never signed with", async () => {
  for (const keys of [
    {},
    { AccessKeyId: "ASIA1" },
    { SecretAccessKey: "s" },
    { AccessKeyId: "", SecretAccessKey: "s" },
    { AccessKeyId: "ASIA1", SecretAccessKey: 5 },
    "not json",
    "[1,2]",
    "null",
  ]) {
    instance("my-role", keys);
    await assert.rejects(
      awsIdentity(urls, { AWS_REGION: "us-east-1" }),
      unavailable(/^AWS's instance metadata service answered no AWS keys for the instance's role\.$/),
      JSON.stringify(keys),
    );
  }
  instance("my-role", { ...KEYS, Token: "" });
  assert.equal((await awsIdentity(urls, {})).keys.sessionToken, undefined, "an empty Token is no session token");
  instance("my-role", { ...KEYS, Token: 7 });
  assert.equal((await awsIdentity(urls, {})).keys.sessionToken, undefined);
});

test("IMDS's replies are capped in size; a refusal or a redirect names the status, never a body", async () => {
  instance("my-role", `{"AccessKeyId":"A","SecretAccessKey":"${"s".repeat(64 * 1024)}"}`);
  await assert.rejects(
    awsIdentity(urls, { AWS_REGION: "us-east-1" }),
    unavailable(/answered HTTP 200 for the role's AWS keys\.$/),
  );
  instance("my-role", `{"AccessKeyId":"A","SecretAccessKey":"${"s".repeat(64 * 1024 - 40)}"}`);
  assert.equal((await awsIdentity(urls, { AWS_REGION: "us-east-1" })).keys.accessKeyId, "A", "just under the cap");
  instance();
  replies[ROLE_PATH] = { status: 404, body: "" };
  await assert.rejects(
    awsIdentity(urls, { AWS_REGION: "us-east-1" }),
    unavailable(
      /answered HTTP 404 for the instance's IAM role: no IAM role is attached to the instance; attach one\.$/,
    ),
  );
  instance();
  replies[`${ROLE_PATH}/my-role`] = { status: 404, body: "" };
  await assert.rejects(
    awsIdentity(urls, { AWS_REGION: "us-east-1" }),
    unavailable(/answered HTTP 404 for the role's AWS keys\.$/),
  );
  instance();
  replies["/latest/meta-data/placement/availability-zone"] = { status: 401, body: "" };
  await assert.rejects(
    awsIdentity(urls, {}),
    unavailable(/HTTP 401 for the region: the instance requires IMDSv2; add "imdsv2_session_token_url"/),
  );
  instance();
  replies["/latest/meta-data/placement/availability-zone"] = { status: 302, body: "" };
  await assert.rejects(awsIdentity(urls, {}), unavailable(/answered HTTP 302 for the region\.$/));
});

test("IMDS's replies are trimmed before use: a zone or role list with blank lines, spaces or CRLF; a keys URL ending in a slash", async () => {
  instance("my-role", KEYS, " us-east-1a\r\n");
  assert.equal((await awsIdentity(urls, {})).region, "us-east-1", "the zone's region, not us-east-1a with its letter");
  for (const listing of ["\nmy-role\n", "  my-role  \r\nother-role\r\n", "my-role\t\nother-role"]) {
    instance();
    replies[ROLE_PATH] = { body: listing };
    assert.equal((await awsIdentity(urls, {})).keys.accessKeyId, KEYS.AccessKeyId, JSON.stringify(listing));
  }
  instance();
  replies[`${ROLE_PATH}/`] = { body: "my-role" };
  const before = imds.requests.length;
  const keys = await awsIdentity({ ...urls, credentialsUrl: `${urls.credentialsUrl}/` }, { AWS_REGION: "us-east-1" });
  assert.equal(keys.keys.accessKeyId, KEYS.AccessKeyId);
  assert.deepEqual(
    imds.requests.slice(before).map((r) => r.url),
    [`${ROLE_PATH}/`, `${ROLE_PATH}/my-role`],
    "one slash between the keys URL and the role",
  );
});

test("IMDSv2: one session token, asked with its lifetime, sent with every request", async () => {
  instance();
  replies["/latest/api/token"] = { body: " session-abc \n" };
  const before = imds.requests.length;
  await awsIdentity({ ...urls, sessionTokenUrl: `${imds.url}/latest/api/token` }, {});
  const asked = imds.requests.slice(before);
  assert.deepEqual(
    asked.map((r) => `${r.method} ${r.url}`),
    [
      "PUT /latest/api/token",
      "GET /latest/meta-data/placement/availability-zone",
      `GET ${ROLE_PATH}`,
      `GET ${ROLE_PATH}/my-role`,
    ],
  );
  assert.equal(asked[0]?.headers["x-aws-ec2-metadata-token-ttl-seconds"], "300");
  for (const r of asked.slice(1)) assert.equal(r.headers["x-aws-ec2-metadata-token"], "session-abc");
  replies["/latest/meta-data/placement/availability-zone"] = { status: 401, body: "" };
  await assert.rejects(
    awsIdentity({ ...urls, sessionTokenUrl: `${imds.url}/latest/api/token` }, {}),
    unavailable(/HTTP 401 for the region\.$/),
    "with a session token URL, no IMDSv2 advice",
  );
});

test("the region: a region name only, anchored at both ends; no IMDS URL or keys URL is said plainly", async () => {
  for (const region of ["us-east-1", "eu-west-3", "me-central-1", "aa"]) {
    instance();
    assert.equal((await awsIdentity(urls, { AWS_REGION: region })).region, region);
  }
  for (const region of [
    "x/us-east-1",
    "us-east-1/x",
    "US-EAST-1",
    "a",
    "us east",
    `${"a".repeat(41)}`,
    "us-east-1\n",
  ]) {
    await assert.rejects(
      awsIdentity(urls, { AWS_REGION: region, AWS_ACCESS_KEY_ID: "A", AWS_SECRET_ACCESS_KEY: "S" }),
      unavailable(/is not a region name such as us-east-1; check AWS_REGION or the instance's placement\.$/),
      JSON.stringify(region),
    );
  }
  instance("my-role", KEYS, "evil.example/a");
  await assert.rejects(awsIdentity(urls, {}), unavailable(/The AWS region "evil\.example\/" is not a region name/));
  await assert.rejects(
    awsIdentity({}, {}),
    unavailable(/^The AWS source has no region: set AWS_REGION \(or AWS_DEFAULT_REGION\), or name .*"region_url"/),
  );
  await assert.rejects(
    awsIdentity({}, { AWS_REGION: "us-east-1" }),
    unavailable(
      /^The AWS source has no AWS keys: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY .*"url" in the file's credential_source\.$/,
    ),
  );
  await assert.rejects(
    awsIdentity({ regionUrl: "http://127.0.0.1:9/x" }, {}),
    unavailable(/^AWS's instance metadata service at 127\.0\.0\.1:9 could not be reached for the region; on EC2/),
  );
});
