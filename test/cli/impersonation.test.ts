// Impersonation on the command line, as real processes against the emulator's IAM Credentials
// API: `login FILE --impersonate-service-account [DELEGATE,...,]SA` writes gcloud's
// impersonated_service_account file, print-token prints tokens that act as the service account
// (from a user or a key source, through delegates), cached 0600 under a secret-derived key, and
// every refusal is one coded line with no secret.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { approveSignIn, DEFAULT_WORKLOAD_AUDIENCE, DEMO_CLIENT } from "cred-auth/emulator";
import { withEmulator, workloadFileJson, workloadPrincipal } from "../support/emulator.ts";
import { freePortRange, rangeEnv } from "../oauth/support.ts";
import {
  collect,
  runCli,
  sandbox,
  serviceAccountFile,
  startCli,
  userFile,
  waitForStderr,
  type Sandbox,
} from "./support.ts";

const emu = await withEmulator();
const outputs: string[] = [];
const secrets: string[] = [DEMO_CLIENT.clientSecret];
const sa = (name: string) => `${name}@imp-project.iam.gserviceaccount.com`;
const TARGET = sa("deployer");
const iamUrl = (email: string) =>
  `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${email}:generateAccessToken`;

emu.addServiceAccount({ email: sa("hop"), tokenCreators: ["user:bob@example.com"] });
emu.addServiceAccount({ email: TARGET, tokenCreators: ["user:alice@example.com", `serviceAccount:${sa("hop")}`] });
emu.addServiceAccount({ email: sa("locked"), tokenCreators: [] });

async function cli(args: string[], env: NodeJS.ProcessEnv) {
  const r = await runCli(args, env);
  outputs.push(r.stdout, r.stderr);
  return r;
}

function impersonatedFile(box: Sandbox, source: Record<string, unknown>, target: string, delegates: string[] = []) {
  const path = join(box.dir, `imp-${target.split("@")[0]}-${delegates.length}.json`);
  const json = { delegates, service_account_impersonation_url: iamUrl(target), source_credentials: source };
  writeFileSync(path, JSON.stringify({ ...json, type: "impersonated_service_account" }), { mode: 0o600 });
  return path;
}

const cacheEntries = (dir: string) => readdirSync(dir).filter((f) => f.endsWith(".json"));

test("login --impersonate-service-account: gcloud's file (0600), then print-token acts as the service account from the cache", async () => {
  const box = sandbox(emu, { CRED_AUTH_LOOPBACK_PORTS: rangeEnv(await freePortRange(10)) });
  const destination = join(box.dir, "adc.json");
  const child = startCli(
    ["login", destination, "--use-local-webserver", "--impersonate-service-account", TARGET],
    box.env,
  );
  const done = collect(child, 120_000);
  const [, url] = await waitForStderr(child, /authorize this application: (\S+)/);
  assert.match(decodeURIComponent(url!), /scope=[^&]*cloud-platform/, "the user signs in with cloud-platform");
  assert.equal((await approveSignIn(url!, { account: "alice@example.com" })).error, undefined);
  const login = await done;
  outputs.push(login.stdout, login.stderr);
  assert.equal(login.code, 0, login.stderr);
  assert.equal(login.stderr.match(/Signed in as alice@example\.com\./g)?.length, 1, "said once, by the sign-in");
  assert.match(login.stderr, new RegExp(`Its tokens act as ${TARGET}\\.`));
  assert.doesNotMatch(login.stderr, /warning/);
  assert.equal(statSync(destination).mode & 0o777, 0o600);
  const saved = JSON.parse(readFileSync(destination, "utf8")) as Record<string, unknown>;
  const source = saved.source_credentials as Record<string, string>;
  secrets.push(source.refresh_token!);
  assert.deepEqual(
    Object.keys(saved),
    "delegates service_account_impersonation_url source_credentials type".split(" "),
  );
  assert.equal(saved.type, "impersonated_service_account");
  assert.equal(saved.service_account_impersonation_url, iamUrl(TARGET));
  assert.deepEqual(saved.delegates, []);
  assert.equal(source.type, "authorized_user");

  const iamBefore = emu.stats().iamRequests;
  const printed = await cli(["print-token", destination], box.env);
  assert.equal(printed.code, 0, printed.stderr);
  assert.equal(emu.checkAccessToken(printed.stdout.trim())?.account, TARGET);
  assert.equal(emu.stats().iamRequests, iamBefore, "login's own check left the token in the cache");
  const [entry] = cacheEntries(box.tokenCache);
  assert.equal(statSync(join(box.tokenCache, entry!)).mode & 0o777, 0o600);
  const fresh = await cli(
    ["print-token", destination, "--fresh", "--scopes", "https://www.googleapis.com/auth/bigquery"],
    box.env,
  );
  assert.equal(fresh.code, 0, fresh.stderr);
  const info = emu.checkAccessToken(fresh.stdout.trim());
  assert.equal(info?.account, TARGET);
  assert.deepEqual(info?.scopes, ["https://www.googleapis.com/auth/bigquery"]);
  assert.equal(emu.stats().iamRequests, iamBefore + 1);
});

test("login with a delegate chain writes gcloud's order: the last e-mail is the target, the others delegates", async () => {
  const box = sandbox(emu, { CRED_AUTH_LOOPBACK_PORTS: rangeEnv(await freePortRange(10)) });
  const destination = join(box.dir, "chain.json");
  const child = startCli(
    ["login", destination, "--use-local-webserver", `--impersonate-service-account=${sa("hop")}, ${TARGET}`],
    box.env,
  );
  const done = collect(child, 120_000);
  const [, url] = await waitForStderr(child, /authorize this application: (\S+)/);
  await approveSignIn(url!, { account: "bob@example.com" });
  const r = await done;
  outputs.push(r.stdout, r.stderr);
  assert.equal(r.code, 0, r.stderr);
  const saved = JSON.parse(readFileSync(destination, "utf8")) as Record<string, unknown>;
  secrets.push((saved.source_credentials as Record<string, string>).refresh_token!);
  assert.deepEqual(saved.delegates, [sa("hop")]);
  assert.equal(saved.service_account_impersonation_url, iamUrl(TARGET));
  const printed = await cli(["print-token", destination], box.env);
  assert.equal(emu.checkAccessToken(printed.stdout.trim())?.account, TARGET, "bob reached the target through hop");
});

test("print-token: a service-account key source, through a delegate; keys cached apart per source secret", async () => {
  const box = sandbox(emu);
  const key = serviceAccountFile(emu, box).json;
  secrets.push(key.private_key!);
  emu.addServiceAccount({
    email: sa("hop"),
    tokenCreators: ["user:bob@example.com", `serviceAccount:${key.client_email}`],
  });
  const path = impersonatedFile(box, key, TARGET, [sa("hop")]);
  const r = await cli(["print-token", path, "--format", "json"], box.env);
  assert.equal(r.code, 0, r.stderr);
  const printed = JSON.parse(r.stdout) as { access_token: string; expiry: string };
  assert.equal(emu.checkAccessToken(printed.access_token)?.account, TARGET);
  assert.ok(Date.parse(printed.expiry) > Date.now() + 50 * 60_000, "Google's hour");

  // The same public names with another user's secret must not read this token from the cache.
  const user = await userFile(emu, box, "carol.json");
  secrets.push(user.json.refresh_token!);
  const other = impersonatedFile(box, user.json, TARGET, [sa("hop")]);
  const refused = await cli(["print-token", other], box.env);
  assert.equal(refused.code, 1, "another source is another key: the emulator is asked, and refuses");
});

test("refusals: no role, unknown account, a revoked source, an unsafe URL, a bad flag; one coded line, no secret", async () => {
  const box = sandbox(emu);
  const user = await userFile(emu, box, "alice.json");
  secrets.push(user.json.refresh_token!, user.json.client_secret!);
  const cases: Array<[string, string, RegExp, number]> = [
    [
      "no role",
      impersonatedFile(box, user.json, sa("locked")),
      /^cred-auth: Impersonating "locked@.*" was denied: .* Google said \(PERMISSION_DENIED\): Permission 'iam\.serviceAccounts\.getAccessToken' denied on resource \(or it may not exist\)\. \(ERR_IMPERSONATION_DENIED\)$/m,
      1,
    ],
    [
      "unknown account",
      impersonatedFile(box, user.json, sa("nobody")),
      /^cred-auth: The emulator knows no service account "nobody@.*": register it with `cred-auth emulator --service-account` \(docs\/emulator\.md\)\. \(ERR_SERVICE_ACCOUNT_NOT_FOUND\)$/m,
      1,
    ],
  ];
  const evil = join(box.dir, "evil.json");
  writeFileSync(
    evil,
    JSON.stringify({
      type: "impersonated_service_account",
      service_account_impersonation_url: iamUrl(TARGET).replace("iamcredentials.googleapis.com", "evil.example"),
      source_credentials: user.json,
    }),
  );
  cases.push([
    "unsafe URL",
    evil,
    /names "https:\/\/evil\.example" as its service_account_impersonation_url, not Google's IAM Credentials API/,
    1,
  ]);
  for (const [what, path, message, code] of cases) {
    const r = await cli(["print-token", path], box.env);
    assert.equal(r.code, code, `${what}: ${r.stderr}`);
    assert.match(r.stderr, message, what);
    assert.equal(r.stderr.trim().split("\n").length, 1, `${what}: one line`);
  }
  emu.revokeRefreshToken(user.json.refresh_token!);
  const revoked = await cli(["print-token", impersonatedFile(box, user.json, TARGET), "--fresh"], box.env);
  assert.equal(revoked.code, 1);
  assert.match(revoked.stderr, /invalid_grant/);

  const bad = await cli(["login", join(box.dir, "x.json"), "--impersonate-service-account", "not-an-email,"], box.env);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /--impersonate-service-account takes service account e-mails/);
});

test("print-token: an external_account file with service_account_impersonation_url acts as the account", async () => {
  const box = sandbox(emu);
  const subject = emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, subject: "ci-job" });
  secrets.push(subject);
  const tokenFile = join(box.dir, "subject.jwt");
  writeFileSync(tokenFile, subject);
  const file = (target: string) => {
    const path = join(box.dir, `wif-${target.split("@")[0]}.json`);
    const json = workloadFileJson(tokenFile, {
      service_account_impersonation_url: iamUrl(target),
      service_account_impersonation: { token_lifetime_seconds: 1200 },
    });
    writeFileSync(path, JSON.stringify(json));
    return path;
  };
  emu.addServiceAccount({ email: sa("wif"), tokenCreators: [workloadPrincipal("ci-job")] });
  const r = await cli(
    ["print-token", file(sa("wif")), "--format", "json", "--scopes", "https://www.googleapis.com/auth/bigquery"],
    box.env,
  );
  assert.equal(r.code, 0, r.stderr);
  const printed = JSON.parse(r.stdout) as { access_token: string; expiry: string };
  const info = emu.checkAccessToken(printed.access_token);
  assert.equal(info?.account, sa("wif"));
  assert.deepEqual(info?.scopes, ["https://www.googleapis.com/auth/bigquery"]);
  const left = Date.parse(printed.expiry) - Date.now();
  assert.ok(left > 1100_000 && left <= 1200_000, `the file's lifetime (${left} ms)`);

  const refused = await cli(["print-token", file(sa("locked"))], box.env);
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    /^cred-auth: Impersonating "locked@.*" was denied: .* Google said \(PERMISSION_DENIED\)/,
  );
});

test("print-token: an impersonated_service_account file whose source is a workforce user; its rotated token kept", async () => {
  const workforce = sa("workforce");
  emu.addServiceAccount({
    email: workforce,
    tokenCreators: ["principalSet://iam.googleapis.com/locations/global/workforcePools/emu-workforce/*"],
  });
  const source = {
    ...emu.issueExternalAccountAuthorizedUser(),
    token_url: "https://sts.googleapis.com/v1/oauthtoken",
  } as Record<string, string>;
  secrets.push(source.refresh_token!, source.client_secret!);
  // The fault that kills a rotated-away refresh token: only the write-back keeps the second run working.
  emu.setStsRefreshTokenRotation("revoke-old");
  try {
    await runsTwice(source, workforce);
  } finally {
    emu.setStsRefreshTokenRotation(true);
  }
});

async function runsTwice(source: Record<string, string>, workforce: string): Promise<void> {
  for (const cache of ["off", undefined]) {
    const box = sandbox(emu, cache === undefined ? {} : { CRED_AUTH_TOKEN_CACHE: cache });
    const path = impersonatedFile(box, source, workforce);
    for (const run of [1, 2]) {
      const r = await cli(["print-token", path, "--scopes", "https://www.googleapis.com/auth/bigquery"], box.env);
      assert.equal(r.code, 0, `cache ${cache ?? "on"}, run ${run}: ${r.stderr}`);
      const info = emu.checkAccessToken(r.stdout.trim());
      assert.equal(info?.account, workforce);
      assert.deepEqual(info?.scopes, ["https://www.googleapis.com/auth/bigquery"]);
    }
    const kept = JSON.parse(readFileSync(path, "utf8")) as { source_credentials: Record<string, string> };
    secrets.push(kept.source_credentials.refresh_token!);
    assert.notEqual(kept.source_credentials.refresh_token, source.refresh_token, "the source's rotated token is kept");
    assert.deepEqual(
      { ...kept.source_credentials, refresh_token: source.refresh_token },
      source,
      "the source's other fields as they were",
    );
    source.refresh_token = kept.source_credentials.refresh_token!; // the next sandbox starts from the live token
  }
}

test("no secret in any output of this file", () => {
  const all = outputs.join("\n");
  for (const secret of secrets)
    for (const form of [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)])
      assert.ok(!all.includes(form), "a secret was printed");
});
