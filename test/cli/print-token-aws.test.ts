// `cred-auth print-token` with AWS-sourced external_account files (credential_source.environment_id
// "aws1"), as a real process against the emulator's EC2 instance metadata service (IMDSv2) and its
// STS, which checks the signed GetCallerIdentity request's Signature Version 4 signature itself.
import assert from "node:assert/strict";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { WORKLOAD_POOL as POOL, withEmulator } from "../support/emulator.ts";
import { verifyIdToken } from "../support/id-tokens.ts";
import { type CliResult, runCli, sandbox } from "./support.ts";

const TARGET = "aws-deployer@emu-project.iam.gserviceaccount.com";
const emu = await withEmulator({
  serviceAccounts: [{ email: TARGET, tokenCreators: [`principalSet://iam.googleapis.com/${POOL}/*`] }],
});
const ROLE_ARN =
  /^principal:\/\/iam\.googleapis\.com\/projects\/123456789012\/locations\/global\/workloadIdentityPools\/emu-pool\/subject\/arn:aws:sts::111122223333:assumed-role\/emu-ec2-role\//;
const outputs: string[] = [];
const secrets: string[] = [];

async function printToken(path: string, env: NodeJS.ProcessEnv, args: string[] = []): Promise<CliResult> {
  const r = await runCli(["print-token", ...args, path], env);
  outputs.push(r.stdout, r.stderr);
  return r;
}

function writeFile(dir: string, json: Record<string, unknown>, name = "aws.json"): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(json));
  return path;
}

const cacheFiles = (dir: string) => {
  try {
    return readdirSync(dir).filter((f) => f.endsWith(".json"));
  } catch {
    return [];
  }
};

test("IMDSv2: region and the role's keys from the instance metadata service, a signed request, a token; then the cache", async () => {
  const box = sandbox(emu);
  const path = writeFile(box.dir, emu.awsExternalAccountFile());
  const before = emu.stats();
  const first = await printToken(path, box.env);
  assert.equal(first.code, 0, first.stderr);
  const token = first.stdout.trim();
  assert.match(emu.checkAccessToken(token)?.account ?? "", ROLE_ARN, "STS took the instance role's signed request");
  const after = emu.stats();
  assert.equal(after.tokenRequests, before.tokenRequests + 1);
  // PUT the session token, then the zone, the role and its keys, all with it.
  assert.equal(after.awsImdsRequests, before.awsImdsRequests + 4);

  const second = await printToken(path, box.env);
  assert.equal(second.stdout, first.stdout, "the same keys: the cached token");
  assert.equal(emu.stats().tokenRequests, after.tokenRequests, "no token request for the cached token");
  const [entry] = cacheFiles(box.tokenCache);
  const stored = readFileSync(join(box.tokenCache, entry!), "utf8");
  assert.ok(!/ASIA|AKIA/.test(stored), "no AWS key in the token cache");
});

test("keys and region from the environment (temporary with their session token, or an IAM user's): no IMDS request", async () => {
  for (const temporary of [true, false]) {
    const box = sandbox(emu);
    const keys = emu.issueAwsCredentials({ temporary });
    secrets.push(keys.secretAccessKey, ...(keys.sessionToken ? [keys.sessionToken] : []));
    const path = writeFile(box.dir, emu.awsExternalAccountFile({ environmentOnly: true }));
    const env = {
      ...box.env,
      AWS_REGION: "eu-west-3",
      AWS_ACCESS_KEY_ID: keys.accessKeyId,
      AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
      ...(keys.sessionToken ? { AWS_SESSION_TOKEN: keys.sessionToken } : {}),
    };
    const imds = emu.stats().awsImdsRequests;
    const r = await printToken(path, env);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(emu.checkAccessToken(r.stdout.trim())?.account.endsWith(keys.arn), String(temporary));
    assert.equal(emu.stats().awsImdsRequests, imds, "the environment had everything");
  }
});

test("AWS_DEFAULT_REGION and the environment's keys with the instance's IMDS for nothing else; the region from IMDS when only keys are set", async () => {
  const box = sandbox(emu);
  const keys = emu.issueAwsCredentials();
  secrets.push(keys.secretAccessKey, keys.sessionToken ?? "");
  const path = writeFile(box.dir, emu.awsExternalAccountFile());
  const env = {
    ...box.env,
    AWS_ACCESS_KEY_ID: keys.accessKeyId,
    AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
    AWS_SESSION_TOKEN: keys.sessionToken,
  };
  const imds = emu.stats().awsImdsRequests;
  const r = await printToken(path, env);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(emu.checkAccessToken(r.stdout.trim())?.account.endsWith(keys.arn), "the environment's keys signed");
  assert.equal(emu.stats().awsImdsRequests, imds + 2, "a session token and the zone only");
  const withRegion = await printToken(path, { ...env, AWS_DEFAULT_REGION: "ap-south-1" }, ["--fresh"]);
  assert.equal(withRegion.code, 0, withRegion.stderr);
  assert.equal(emu.stats().awsImdsRequests, imds + 2, "AWS_DEFAULT_REGION: nothing asked of IMDS");
});

test("an AWS file impersonating a service account prints the service account's token", async () => {
  const box = sandbox(emu);
  const path = writeFile(box.dir, emu.awsExternalAccountFile({ impersonate: TARGET }));
  const r = await printToken(path, box.env);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(emu.checkAccessToken(r.stdout.trim())?.account, TARGET);
});

test("print-identity-token: an AWS file impersonating a service account mints its ID token for a Cloud Run URL", async () => {
  const box = sandbox(emu);
  const hello = emu.addRunService({ name: "aws-hello" });
  const path = writeFile(box.dir, emu.awsExternalAccountFile({ impersonate: TARGET }), "aws-id.json");
  const r = await runCli(["print-identity-token", path, "--audiences", hello], box.env);
  outputs.push(r.stdout, r.stderr);
  assert.equal(r.code, 0, r.stderr);
  assert.equal((await verifyIdToken(emu, r.stdout.trim(), hello)).sub !== undefined, true);
  const reply = await fetch(`${hello}/hi`, { headers: { Authorization: `Bearer ${r.stdout.trim()}` } });
  assert.equal(reply.status, 200);
});

test("IMDS at its real address (169.254.169.254) goes to the emulator's IMDS while the emulator is on", async () => {
  const box = sandbox(emu);
  const json = emu.awsExternalAccountFile();
  const source = json.credential_source as Record<string, string>;
  const real = (url: string) => url.replace(emu.awsImdsUrl, "http://169.254.169.254");
  const path = writeFile(box.dir, {
    ...json,
    credential_source: {
      ...source,
      region_url: real(source.region_url!),
      url: real(source.url!),
      imdsv2_session_token_url: real(source.imdsv2_session_token_url!),
    },
  });
  const r = await printToken(path, box.env);
  assert.equal(r.code, 0, r.stderr);
  assert.match(emu.checkAccessToken(r.stdout.trim())?.account ?? "", ROLE_ARN);
});

test("refusals: an IMDS URL elsewhere, no region, IMDSv2 without its session-token URL, expired keys; one line, no secret", async () => {
  const box = sandbox(emu);
  const json = emu.awsExternalAccountFile();
  const source = json.credential_source as Record<string, string>;
  const evil = writeFile(
    box.dir,
    {
      ...json,
      credential_source: { ...source, url: "http://imds.evil.example/latest/meta-data/iam/security-credentials" },
    },
    "evil.json",
  );
  const r1 = await printToken(evil, box.env);
  assert.notEqual(r1.code, 0);
  assert.match(
    r1.stderr,
    /credential_source\.url at "http:\/\/imds\.evil\.example", which is not AWS's instance metadata service/,
  );

  const envOnly = writeFile(box.dir, emu.awsExternalAccountFile({ environmentOnly: true }), "env-only.json");
  const r2 = await printToken(envOnly, box.env);
  assert.notEqual(r2.code, 0);
  assert.match(r2.stderr, /The AWS source has no region: set AWS_REGION/);

  const v1 = writeFile(box.dir, emu.awsExternalAccountFile({ imdsv2: false }), "v1.json");
  const r3 = await printToken(v1, box.env);
  assert.notEqual(r3.code, 0);
  assert.match(
    r3.stderr,
    /answered HTTP 401 for the region: the instance requires IMDSv2; add "imdsv2_session_token_url"/,
  );

  const expired = emu.issueAwsCredentials({ lifetimeSec: -60 });
  secrets.push(expired.secretAccessKey, expired.sessionToken ?? "");
  const r4 = await printToken(envOnly, {
    ...box.env,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: expired.accessKeyId,
    AWS_SECRET_ACCESS_KEY: expired.secretAccessKey,
    AWS_SESSION_TOKEN: expired.sessionToken,
  });
  assert.notEqual(r4.code, 0);
  assert.match(r4.stderr, /ExpiredToken/);
  for (const r of [r1, r2, r3, r4]) assert.doesNotMatch(r.stderr, /\n.*\n/, "one line");
});

test("no AWS secret in any output", () => {
  const all = outputs.join("\n");
  for (const secret of secrets.filter(Boolean)) {
    assert.ok(!all.includes(secret), "a secret was printed");
    assert.ok(!all.includes(encodeURIComponent(secret)), "a secret was printed, URL-encoded");
  }
});
