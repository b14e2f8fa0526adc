// default() and accessTokenForFile with AWS-sourced external_account files (environment_id "aws1"):
// the region and keys from the environment or the emulator's EC2 instance metadata service
// (IMDSv2), a Signature Version 4 signed GetCallerIdentity request as the subject token, checked by
// the emulator's STS; a new request signed for each refresh.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as credAuth from "cred-auth";
import { CredCredentialsError, ERROR_CODES, cache } from "cred-auth";
import { accessTokenForFile } from "../../dist/credentials/tokens/file-token.js";
import { isolatedWorld, withEnv } from "../credentials/support.ts";
import { withEmulator } from "../support/emulator.ts";

const { emulator, home } = await isolatedWorld();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const options = { credentialsCache: cache.NOOP, useLocalWebserver: true } as const;
const INSTANCE_ROLE = /\/subject\/arn:aws:sts::111122223333:assumed-role\/emu-ec2-role\//;
const NO_AWS = { AWS_REGION: undefined, AWS_DEFAULT_REGION: undefined, AWS_ACCESS_KEY_ID: undefined };

function awsFile(name: string, json: Record<string, unknown>): string {
  const path = join(home, name);
  writeFileSync(path, JSON.stringify({ ...json, quota_project_id: "aws-project" }), { mode: 0o600 });
  return path;
}

async function principalOf(credentials: { getAccessToken(): Promise<{ token?: string | null }> }) {
  const { token } = await credentials.getAccessToken();
  return emulator.checkAccessToken(token ?? "")?.account ?? "";
}

test("default() with an AWS file on an instance (IMDSv2): the role's token and the file's project; each refresh signs anew", async () => {
  const path = awsFile("aws-imds.json", emulator.awsExternalAccountFile());
  const before = emulator.stats();
  const [credentials, projectId] = await withEnv({ ...NO_AWS, GOOGLE_APPLICATION_CREDENTIALS: path }, () =>
    credAuth.default([CLOUD], options),
  );
  assert.equal(projectId, "aws-project");
  assert.match(await principalOf(credentials), INSTANCE_ROLE);
  assert.ok(emulator.stats().awsImdsRequests >= before.awsImdsRequests + 4, "session token, zone, role, keys");
  const client = credentials as unknown as { refreshAccessTokenAsync(): Promise<{ access_token?: string }> };
  const tokens = emulator.stats().tokenRequests;
  const again = await client.refreshAccessTokenAsync();
  assert.match(emulator.checkAccessToken(again.access_token ?? "")?.account ?? "", INSTANCE_ROLE);
  assert.equal(emulator.stats().tokenRequests, tokens + 1, "a refresh is a new exchange of a newly signed request");
});

test("default() with the environment's keys and region (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN)", async () => {
  const keys = emulator.issueAwsCredentials();
  const path = awsFile("aws-env.json", emulator.awsExternalAccountFile({ environmentOnly: true }));
  const imds = emulator.stats().awsImdsRequests;
  const [credentials] = await withEnv(
    {
      GOOGLE_APPLICATION_CREDENTIALS: path,
      AWS_REGION: "us-west-2",
      AWS_ACCESS_KEY_ID: keys.accessKeyId,
      AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
      AWS_SESSION_TOKEN: keys.sessionToken,
    },
    () => credAuth.default([CLOUD], options),
  );
  assert.ok((await principalOf(credentials)).endsWith(keys.arn));
  assert.equal(emulator.stats().awsImdsRequests, imds, "IMDS not asked");
});

test("an IMDS URL that is not AWS's instance metadata service is refused by default(), not passed over", async () => {
  const json = emulator.awsExternalAccountFile();
  const source = json.credential_source as Record<string, string>;
  const path = awsFile("aws-evil.json", {
    ...json,
    credential_source: {
      ...source,
      region_url: "http://169.254.169.254.evil.example/latest/meta-data/placement/availability-zone",
    },
  });
  await assert.rejects(
    withEnv({ ...NO_AWS, GOOGLE_APPLICATION_CREDENTIALS: path }, () => credAuth.default([CLOUD], options)),
    (error: unknown) => {
      assert.ok(error instanceof CredCredentialsError, String(error));
      assert.equal(error.code, ERROR_CODES.UNSAFE_TOKEN_URL);
      assert.match(error.message, /credential_source\.region_url at "http:\/\/169\.254\.169\.254\.evil\.example"/);
      return true;
    },
  );
});

test("accessTokenForFile: AWS keys nowhere to be had is ERR_AWS_CREDENTIALS_UNAVAILABLE, saying what to set", async () => {
  const path = awsFile("aws-none.json", emulator.awsExternalAccountFile({ environmentOnly: true }));
  const env = {
    CRED_AUTH_EMULATOR_HOST: emulator.host,
    CRED_AUTH_TOKEN_CACHE: join(home, "tc"),
    AWS_REGION: "us-east-1",
  };
  await assert.rejects(accessTokenForFile(path, { env }), (error: unknown) => {
    assert.ok(error instanceof CredCredentialsError, String(error));
    assert.equal(error.code, ERROR_CODES.AWS_CREDENTIALS_UNAVAILABLE);
    assert.match(error.message, /^The AWS source has no AWS keys: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
    return true;
  });
});

test("accessTokenForFile: an instance without a role (IMDS 404) says so", async () => {
  const roleless = await withEmulator({ aws: { roleName: null } });
  const path = awsFile("aws-norole.json", roleless.awsExternalAccountFile());
  const env = { CRED_AUTH_EMULATOR_HOST: roleless.host, CRED_AUTH_TOKEN_CACHE: join(home, "tc") };
  await assert.rejects(accessTokenForFile(path, { env }), (error: unknown) => {
    assert.equal((error as { code?: string }).code, ERROR_CODES.AWS_CREDENTIALS_UNAVAILABLE);
    assert.match((error as Error).message, /answered HTTP 404 for the instance's IAM role: no IAM role is attached/);
    return true;
  });
});

test("accessTokenForFile: a region that is no region name (it goes into AWS STS's host name) is refused", async () => {
  const keys = emulator.issueAwsCredentials();
  const path = awsFile("aws-bad-region.json", emulator.awsExternalAccountFile({ environmentOnly: true }));
  const env = {
    CRED_AUTH_EMULATOR_HOST: emulator.host,
    CRED_AUTH_TOKEN_CACHE: join(home, "tc"),
    AWS_REGION: "evil.example/\u001b[2J",
    AWS_ACCESS_KEY_ID: keys.accessKeyId,
    AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
  };
  await assert.rejects(accessTokenForFile(path, { env }), (error: unknown) => {
    assert.equal((error as { code?: string }).code, ERROR_CODES.AWS_CREDENTIALS_UNAVAILABLE);
    assert.equal(
      (error as Error).message,
      'The AWS region "evil.example/\\u001b[2J" is not a region name such as us-east-1; check AWS_REGION or the instance\'s placement.',
    );
    assert.ok(!(error as Error).message.includes(keys.secretAccessKey));
    return true;
  });
});
