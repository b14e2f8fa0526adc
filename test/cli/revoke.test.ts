// `cred-auth revoke [FILE] [--force]` as real processes against the emulator: a user's grant is
// revoked at the emulator's revoke endpoint (which, as Google's, ends every refresh and access token
// of that client and account), then the file and its cached access and ID tokens are removed. Other
// types say what cannot be done and remove nothing; a refusal or an unreachable endpoint removes
// nothing unless --force; every error is one coded line with no secret.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { DEMO_CLIENT } from "cred-auth/emulator";
import { testCredentialsFile, withEmulator, workloadFileJson } from "../support/emulator.ts";
import { type CliResult, runCli, sandbox, secretsIn, serviceAccountFile, type Sandbox } from "./support.ts";

const emu = await withEmulator();
const ID_SCOPES = [
  "openid",
  "https://www.googleapis.com/auth/userinfo.email",
  "https://www.googleapis.com/auth/cloud-platform",
];
const HELLO = emu.addRunService({ name: "hello" });
const outputs: string[] = [];
const secrets: string[] = [DEMO_CLIENT.clientSecret];

const DEMO_CLIENT_FIELDS = { client_id: DEMO_CLIENT.clientId, client_secret: DEMO_CLIENT.clientSecret };
const box = (extra: NodeJS.ProcessEnv = {}) => sandbox(emu, { METADATA_SERVER_DETECTION: "none", ...extra });

async function cli(args: string[], env: NodeJS.ProcessEnv) {
  const r = await runCli(args, env);
  // print-token's and print-identity-token's stdout is the token they were asked for.
  outputs.push(args[0]?.startsWith("print-") ? "" : r.stdout, r.stderr);
  return r;
}

/** A signed-in user's file, its access token and its ID token cached by print-token and print-identity-token. */
async function signedInWithTokens(b: Sandbox, name = "user.json") {
  const path = await testCredentialsFile(emu, b.dir, { scopes: ID_SCOPES, filename: name });
  const json = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  // The account cred-auth login records (the emulator's test file names none).
  writeFileSync(path, JSON.stringify({ ...json, account: "alice@example.com" }), { mode: 0o600 });
  const refreshToken = String(json.refresh_token);
  secrets.push(refreshToken);
  const access = await cli(["print-token", path], b.env);
  assert.equal(access.code, 0, access.stderr);
  const accessToken = access.stdout.trim();
  secrets.push(accessToken);
  const id = await cli(["print-identity-token", path], b.env);
  assert.equal(id.code, 0, id.stderr);
  assert.equal(cacheEntries(b).length, 2, "an access token and an ID token cached");
  return { path, refreshToken, accessToken };
}

const cacheEntries = (b: Sandbox) =>
  existsSync(b.tokenCache) ? readdirSync(b.tokenCache).filter((n) => n.endsWith(".json")) : [];

/**
 * What the emulator's token endpoint says to the refresh token: a copy of the revoked file (taken
 * before revoke removed it) handed to print-token, which refreshes with it (`--fresh`: not from the cache).
 */
async function refreshWith(b: Sandbox, refreshToken: string): Promise<CliResult> {
  const copy = join(b.dir, "copy-of-revoked.json");
  const json = { type: "authorized_user", ...DEMO_CLIENT_FIELDS, refresh_token: refreshToken };
  writeFileSync(copy, JSON.stringify(json), { mode: 0o600 });
  return cli(["print-token", copy, "--fresh"], b.env);
}

test("a user file: the grant is revoked at the endpoint, then the file and its cached tokens are gone", async () => {
  const b = box();
  const { path, refreshToken, accessToken } = await signedInWithTokens(b);
  assert.ok(emu.checkAccessToken(accessToken), "the access token works before");
  const revocations = emu.stats().revocations;

  const r = await cli(["revoke", path], b.env);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "");
  // Where it went, said as it is: the emulator stands in for Google here.
  assert.match(r.stderr, new RegExp(`revoked the sign-in of alice@example\\.com at the emulator at ${emu.host}: `));
  assert.doesNotMatch(r.stderr, /Google/);
  assert.match(r.stderr, /removed ".*user\.json" and 2 cached tokens\./);
  assert.equal(emu.stats().revocations, revocations + 1, "one revocation request");
  const refused = await refreshWith(b, refreshToken);
  assert.equal(refused.code, 1, "the emulator refuses the refresh token");
  assert.match(refused.stderr, /invalid_grant/);
  assert.equal(emu.checkAccessToken(accessToken), null, "the access token it minted is refused too");
  assert.equal(existsSync(path), false, "the file is gone");
  assert.deepEqual(cacheEntries(b), [], "its cache entries are gone");
});

test("without FILE: a file GOOGLE_APPLICATION_CREDENTIALS names is revoked only when named; nothing found or a metadata server: coded refusals", async () => {
  const b = box();
  const { path, accessToken } = await signedInWithTokens(b, "adc.json");
  const bytes = readFileSync(path);
  const revocations = emu.stats().revocations;
  for (const args of [["revoke"], ["revoke", "--quiet"], ["revoke", "--force", "--quiet"]]) {
    const r = await cli(args, { ...b.env, GOOGLE_APPLICATION_CREDENTIALS: path });
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /^cred-auth: GOOGLE_APPLICATION_CREDENTIALS names ".*adc\.json": such a file is revoked and removed only when named; run cred-auth revoke ".*adc\.json" to do so\. Nothing was revoked or removed\. \(ERR_NOT_CONFIRMED\)\n$/,
    );
    assert.deepEqual(readFileSync(path), bytes, "the file is untouched");
  }
  assert.equal(emu.stats().revocations, revocations, "nothing was sent");
  assert.ok(emu.checkAccessToken(accessToken), "the grant still works");
  const named = await cli(["revoke", path], { ...b.env, GOOGLE_APPLICATION_CREDENTIALS: path });
  assert.equal(named.code, 0, named.stderr);
  assert.equal(existsSync(path), false);

  const none = await cli(["revoke"], b.env);
  assert.equal(none.code, 1);
  assert.match(
    none.stderr,
    /^cred-auth: No credentials file found to revoke \(no GOOGLE_APPLICATION_CREDENTIALS, gcloud ADC file, metadata server or cached sign-in\)\. \(ERR_NO_CREDENTIALS\)\n$/,
  );

  const metadata = await cli(["revoke"], { ...b.env, GCE_METADATA_HOST: emu.host, METADATA_SERVER_DETECTION: "" });
  assert.equal(metadata.code, 1);
  assert.match(metadata.stderr, /^cred-auth: The credentials default\(\) would use are the metadata server's .*\n$/);
});

test("without FILE and without a terminal: gcloud's ADC file and the cached sign-in are named, and left alone unless --quiet", async () => {
  const b = box();
  const gcloudDir = join(b.dir, "gcloud");
  const gcloud = await testCredentialsFile(emu, gcloudDir, {
    scopes: ID_SCOPES,
    filename: "application_default_credentials.json",
  });
  const env = { ...b.env, CLOUDSDK_CONFIG: gcloudDir };
  const bytes = readFileSync(gcloud);
  const revocations = emu.stats().revocations;
  const asked = await cli(["revoke"], env);
  assert.equal(asked.code, 1, asked.stderr);
  assert.match(
    asked.stderr,
    /^cred-auth: You are about to revoke the sign-in at the emulator at 127\.0\.0\.1:\d+ and remove gcloud's ADC file ".*application_default_credentials\.json" with its cached tokens\. No terminal to ask whether to go on, so nothing was revoked or removed: run cred-auth revoke ".*", or add --quiet\. \(ERR_NOT_CONFIRMED\)\n$/,
  );
  assert.deepEqual(readFileSync(gcloud), bytes, "the file is untouched");
  assert.equal(emu.stats().revocations, revocations, "nothing was sent");

  const quiet = await cli(["revoke", "--quiet"], env);
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.match(quiet.stderr, /revoked the sign-in at the emulator at 127\.0\.0\.1:\d+: /);
  assert.equal(existsSync(gcloud), false);
  assert.equal(emu.stats().revocations, revocations + 1);

  // The cached sign-in of getUserCredentials(), the search's last place.
  const cached = await testCredentialsFile(emu, join(b.dir, ".config", "cred"), {
    scopes: ID_SCOPES,
    filename: "cred_credentials.json",
  });
  const cachedBytes = readFileSync(cached);
  const again = await cli(["revoke"], env);
  assert.equal(again.code, 1, again.stderr);
  assert.match(again.stderr, /remove the cached sign-in of getUserCredentials\(\) ".*cred_credentials\.json"/);
  assert.deepEqual(readFileSync(cached), cachedBytes);
  assert.equal((await cli(["revoke", "-q"], env)).code, 0);
  assert.equal(existsSync(cached), false);
});

/** A token server on this machine whose revoke endpoint runs `meanwhile` before it answers 200. */
async function revokeEndpointThat(meanwhile: () => void): Promise<{ tokenUri: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.url === "/revoke") meanwhile();
      res.writeHead(req.url === "/revoke" ? 200 : 404, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { tokenUri: `http://127.0.0.1:${port}/token`, close: () => new Promise((r) => server.close(() => r())) };
}

test("a link re-pointed while the revocation is under way: the file read goes, never the one the link now names", {
  skip: process.platform === "win32",
}, async () => {
  const b = box();
  const user = (refresh: string, tokenUri: string) =>
    JSON.stringify({ type: "authorized_user", ...DEMO_CLIENT_FIELDS, refresh_token: refresh, token_uri: tokenUri });
  // The victim's own credentials, which nobody asked to remove.
  const victimDir = join(b.dir, "victim");
  mkdirSync(victimDir);
  const victim = join(victimDir, "adc.json");
  writeFileSync(victim, user("1//victim-refresh", "https://oauth2.googleapis.com/token"), { mode: 0o600 });
  const victimBytes = readFileSync(victim);
  const cases = {
    "a directory link on the way": (dir: string) => {
      const link = join(dir, "via");
      return {
        setUp: (target: string) => symlinkSync(target, link),
        path: join(link, "adc.json"),
        swap: () => {
          unlinkSync(link);
          symlinkSync(victimDir, link);
        },
      };
    },
    "the file itself": (dir: string) => {
      const path = join(dir, "real", "adc.json");
      return {
        setUp: () => {},
        path,
        swap: () => {
          unlinkSync(path);
          symlinkSync(victim, path);
        },
      };
    },
  };
  for (const [name, arrange] of Object.entries(cases)) {
    const dir = mkdtempSync(join(b.dir, "case-"));
    const real = join(dir, "real");
    mkdirSync(real);
    const plan = arrange(dir);
    const endpoint = await revokeEndpointThat(() => plan.swap());
    try {
      writeFileSync(join(real, "adc.json"), user("1//mine-refresh", endpoint.tokenUri), { mode: 0o600 });
      plan.setUp(real);
      const r = await cli(["revoke", plan.path], b.env);
      assert.equal(r.code, 1, `${name}: ${r.stderr}`);
      assert.match(
        r.stderr,
        /^cred-auth: The grant was revoked at the token server at 127\.0\.0\.1:\d+, but ".*adc\.json" is no longer the file that was read \((a symbolic link|another file) is there now\), so it was left in place; check what it is and delete it yourself\. \(ERR_FILE_CHANGED\)\n$/,
        name,
      );
      assert.deepEqual(readFileSync(victim), victimBytes, `${name}: the victim's file is untouched`);
    } finally {
      await endpoint.close();
    }
  }
});

test("a refused revocation removes nothing; --force removes the file and cache and says nothing was revoked", async () => {
  const b = box();
  const { path, refreshToken } = await signedInWithTokens(b);
  emu.revokeRefreshToken(refreshToken); // revoked elsewhere already: the endpoint answers invalid_token
  const r = await cli(["revoke", path], b.env);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^cred-auth: The revoke endpoint of the emulator at 127\.0\.0\.1:\d+ refused the token \(HTTP 400: invalid_token \(Token expired or revoked\)\): .* Nothing was removed \(--force removes the file and its cached tokens\)\. \(ERR_REVOKE_REFUSED\)\n$/,
  );
  assert.ok(existsSync(path), "the file stays");
  assert.equal(cacheEntries(b).length, 2, "the cache entries stay");

  const forced = await cli(["revoke", path, "--force"], b.env);
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(
    forced.stderr,
    /warning: nothing was revoked \(--force\): The revoke endpoint of the emulator at 127\.0\.0\.1:\d+ refused the token/,
  );
  assert.equal(existsSync(path), false);
  assert.deepEqual(cacheEntries(b), []);
});

test("a revoke endpoint on this machine that refuses the connection removes nothing, and says to start its server (exit 3)", async () => {
  const b = box();
  const { path } = await signedInWithTokens(b);
  // The revoke endpoint is the one beside the file's token_uri: here a token server on this machine that is
  // gone (nothing listens on port 9).
  const json = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  writeFileSync(path, JSON.stringify({ ...json, token_uri: "http://127.0.0.1:9/token" }), { mode: 0o600 });
  const down = await cli(["revoke", path], b.env);
  assert.equal(down.code, 3, down.stderr);
  assert.equal(
    down.stderr,
    "cred-auth: Nothing was revoked: nothing answers at http://127.0.0.1:9, on this machine (ECONNREFUSED): start the token server it names, or correct the token URL (a credentials file's token_uri). Nothing was removed. (ERR_UNREACHABLE)\n",
  );
  assert.ok(existsSync(path));
  assert.equal(cacheEntries(b).length, 2);
});

test("a revoke endpoint that drops the connection removes nothing, and blames the connection (exit 3)", async () => {
  const b = box();
  const { path } = await signedInWithTokens(b);
  const dropping = createServer((request) => request.socket.destroy());
  await new Promise<void>((resolve) => dropping.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = dropping.address() as AddressInfo;
    const json = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    writeFileSync(path, JSON.stringify({ ...json, token_uri: `http://127.0.0.1:${port}/token` }), { mode: 0o600 });
    const down = await cli(["revoke", path], b.env);
    assert.equal(down.code, 3, down.stderr);
    assert.match(
      down.stderr,
      /^cred-auth: The revoke endpoint of .* could not be reached, so nothing was revoked; check the network and retry\. Nothing was removed\. \(ERR_UNREACHABLE\)\n$/,
    );
    assert.ok(existsSync(path));
    assert.equal(cacheEntries(b).length, 2);
  } finally {
    dropping.close();
  }
});

test("a service-account key cannot be revoked here: it says how, removes nothing unless --force", async () => {
  const b = box();
  const { path, json } = serviceAccountFile(emu, b);
  secrets.push(json.private_key!);
  assert.equal((await cli(["print-identity-token", path, "--audiences", HELLO], b.env)).code, 0);
  const r = await cli(["revoke", path], b.env);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^cred-auth: ".*sa\.json" holds a service account key, which cannot be revoked with a request: delete the key in IAM .*nothing was removed \(--force removes the file and its cached tokens\)\. \(ERR_NOT_REVOCABLE\)\n$/,
  );
  assert.ok(existsSync(path));
  assert.equal(cacheEntries(b).length, 1);
  const forced = await cli(["revoke", "--force", path], b.env);
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stderr, /nothing was revoked \(--force\): holds a service account key/);
  assert.equal(existsSync(path), false);
  assert.deepEqual(cacheEntries(b), []);
});

test("federation files cannot be revoked here: each says why and what to do, and nothing is removed", async () => {
  const b = box();
  const workforceUser = {
    ...emu.issueExternalAccountAuthorizedUser(),
    token_url: "https://sts.googleapis.com/v1/oauthtoken",
  } as Record<string, string>;
  secrets.push(workforceUser.refresh_token!, workforceUser.client_secret!);
  const impersonationUrl =
    "https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/runner@p.iam.gserviceaccount.com:generateAccessToken";
  const files: [string, Record<string, unknown>, RegExp][] = [
    [
      "workload.json",
      workloadFileJson(join(b.dir, "subject-token")),
      /holds identity federation credentials, whose tokens come from another identity provider and expire within an hour: disable the provider/,
    ],
    [
      "workforce.json",
      workforceUser,
      /holds a workforce identity federation sign-in, which cred-auth cannot revoke: sign out with gcloud auth revoke/,
    ],
    [
      "impersonated-workforce.json",
      {
        type: "impersonated_service_account",
        service_account_impersonation_url: impersonationUrl,
        delegates: [],
        source_credentials: workforceUser,
      },
      /holds a workforce identity federation sign-in, which cred-auth cannot revoke/,
    ],
  ];
  for (const [name, json, why] of files) {
    const path = join(b.dir, name);
    writeFileSync(path, JSON.stringify(json), { mode: 0o600 });
    const r = await cli(["revoke", path], b.env);
    assert.equal(r.code, 1, `${name}: ${r.stderr}`);
    assert.match(r.stderr, why, name);
    assert.match(
      r.stderr,
      /nothing was removed \(--force removes the file and its cached tokens\)\. \(ERR_NOT_REVOCABLE\)\n$/,
    );
    assert.equal(r.stderr.split("\n").length, 2, `${name}: one line`);
    assert.ok(existsSync(path), `${name} is still there`);
  }
});

test("a workforce sign-in with --force: the file and the access token print-token cached for it are gone", async (t) => {
  const b = box();
  // Without rotation: a rotated refresh token would cache the token under the new one's key too.
  emu.setStsRefreshTokenRotation(false);
  t.after(() => emu.setStsRefreshTokenRotation(true));
  const workforceUser = emu.issueExternalAccountAuthorizedUser();
  secrets.push(workforceUser.refresh_token!, workforceUser.client_secret!);
  const path = join(b.dir, "workforce.json");
  writeFileSync(path, JSON.stringify(workforceUser), { mode: 0o600 });
  const printed = await cli(["print-token", path], b.env);
  assert.equal(printed.code, 0, printed.stderr);
  assert.equal(cacheEntries(b).length, 1);
  const forced = await cli(["revoke", "--force", path], b.env);
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stderr, /nothing was revoked \(--force\): holds a workforce identity federation sign-in/);
  assert.equal(existsSync(path), false);
  assert.deepEqual(cacheEntries(b), [], "its kind names the key print-token cached it under");
});

test("usage mistakes and unreadable files: one line, the right exit code, nothing echoed", async () => {
  const b = box();
  const secret = "1//0gSecret/+=Refresh-token";
  const extra = await cli(["revoke", "a.json", secret], b.env);
  assert.equal(extra.code, 2);
  assert.match(extra.stderr, /too many arguments: expected at most 1, got 2/);
  const broken = join(b.dir, "broken.json");
  writeFileSync(broken, JSON.stringify({ type: "authorized_user", refresh_token: secret }), { mode: 0o600 });
  const r = await cli(["revoke", broken], b.env);
  assert.equal(r.code, 1);
  assert.equal(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
  assert.ok(existsSync(broken));
  secrets.push(secret);
});

test("no secret in any output of this file's runs", () => {
  const all = outputs.join("\n");
  assert.deepEqual(secretsIn(all, secrets), []);
  for (const secret of secrets) {
    assert.ok(!all.includes(encodeURIComponent(secret)), "percent-encoded");
    assert.ok(!all.includes(Buffer.from(secret).toString("base64")), "base64");
    assert.ok(!all.includes(JSON.stringify(secret).slice(1, -1)), "JSON-escaped");
  }
});
