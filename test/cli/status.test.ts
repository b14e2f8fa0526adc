// `cred-auth status [FILE] [--check] [--format json]` as real processes against the emulator: which
// credentials default() would use and why, whose they are (from the file alone: the emulator's stats
// prove no request was made), the cached token's time left; --check asks for a token, and only it: a
// handed-over file's credential_source.url is not fetched without it, and a server that never answers
// holds the whole command no longer than its one deadline.
import { type TestContext, test } from "node:test";
import { createServer } from "node:http";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Emulator } from "cred-auth/emulator";
import { testCredentialsFile, withEmulator, workloadFileJson } from "../support/emulator.ts";
import { runCli, sandbox, serviceAccountFile, type Sandbox } from "./support.ts";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const ID_SCOPES = ["openid", "https://www.googleapis.com/auth/userinfo.email", CLOUD];
const TARGET = "deployer@st-project.iam.gserviceaccount.com";
const iamUrl = `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${TARGET}:generateAccessToken`;

/** Every request the emulator counted, whatever its kind. */
function requestsOf(emu: Emulator): number {
  const s = emu.stats();
  return (
    s.tokenRequests +
    s.metadataTokenRequests +
    s.apiRequests +
    s.iamRequests +
    s.awsImdsRequests +
    s.idTokens +
    s.certRequests +
    s.runRequests +
    s.revocations
  );
}

const box = (emu: Emulator, extra: NodeJS.ProcessEnv = {}) =>
  sandbox(emu, { METADATA_SERVER_DETECTION: "none", ...extra });

async function aliceFile(emu: Emulator, b: Sandbox, name: string): Promise<string> {
  const path = await testCredentialsFile(emu, b.dir, { scopes: ID_SCOPES, filename: name });
  const json = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  writeFileSync(path, JSON.stringify({ ...json, account: "alice@example.com" }), { mode: 0o600 });
  return path;
}

async function status(args: string[], env: NodeJS.ProcessEnv) {
  return runCli(["status", ...args], env);
}

/** `name: value` lines as a map (the text format). */
function fields(stdout: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const line of stdout.trimEnd().split("\n")) {
    const match = /^([a-z ]+):\s+(.*)$/.exec(line);
    assert.ok(match, `not a status line: ${line}`);
    map.set(match[1]!, [...(map.get(match[1]!) ?? []), match[2]!]);
  }
  return map;
}

test("status names the account, type, scopes and universe of every kind of file, with no request at all", async () => {
  const emu = await withEmulator();
  const b = box(emu);
  const user = await aliceFile(emu, b, "user.json");
  const key = serviceAccountFile(emu, b);
  const imp = join(b.dir, "imp.json");
  writeFileSync(
    imp,
    JSON.stringify({
      type: "impersonated_service_account",
      delegates: ["hop@st-project.iam.gserviceaccount.com"],
      service_account_impersonation_url: iamUrl,
      source_credentials: JSON.parse(readFileSync(user, "utf8")),
    }),
    { mode: 0o600 },
  );

  const u = await status([user, "--no-check"], b.env);
  assert.equal(u.code, 0, u.stderr);
  const uf = fields(u.stdout);
  assert.deepEqual(uf.get("credentials"), [user]);
  assert.deepEqual(uf.get("found by"), ["named on the command line"]);
  assert.deepEqual(uf.get("type"), ["authorized_user"]);
  assert.deepEqual(uf.get("account"), ["alice@example.com"]);
  assert.deepEqual(uf.get("scopes"), [ID_SCOPES.join(", ")]);
  assert.deepEqual(uf.get("universe"), ["googleapis.com"]);
  assert.deepEqual(uf.get("quota project"), ["(none)"]);
  assert.deepEqual(uf.get("access token"), ["none cached"]);

  const k = fields((await status([key.path, "--no-check"], b.env)).stdout);
  assert.deepEqual(k.get("account"), [key.json.client_email]);
  assert.deepEqual(k.get("project"), [key.json.project_id]);

  const i = fields((await status([imp, "--no-check"], b.env)).stdout);
  assert.deepEqual(
    [i.get("account"), i.get("acts as"), i.get("delegates")],
    [["alice@example.com"], [TARGET], ["hop@st-project.iam.gserviceaccount.com"]],
  );

  const named = await status(["--format", "json", "--no-check"], { ...b.env, GOOGLE_APPLICATION_CREDENTIALS: user });
  const json = JSON.parse(named.stdout) as Record<string, unknown>;
  assert.deepEqual(json.source, { kind: "file", path: user, foundBy: "environment" });
  assert.equal(json.account, "alice@example.com");
  assert.deepEqual(json.scopes, ID_SCOPES);
  assert.deepEqual(json.accessToken, { state: "none" });
  assert.equal(requestsOf(emu), 0, "status --no-check asked no server");
});

test("a file that records no account (gcloud's) says so instead of asking", async () => {
  const emu = await withEmulator();
  const b = box(emu);
  const gcloud = join(b.dir, "gcloud");
  mkdirSync(gcloud, { mode: 0o700 });
  await testCredentialsFile(emu, gcloud, { scopes: [CLOUD], filename: "application_default_credentials.json" });
  const r = await status(["--no-check"], { ...b.env, CLOUDSDK_CONFIG: gcloud });
  assert.equal(r.code, 0, r.stderr);
  const f = fields(r.stdout);
  assert.deepEqual(f.get("found by"), ["gcloud's ADC file"]);
  assert.deepEqual(f.get("passed over"), ["GOOGLE_APPLICATION_CREDENTIALS is not set"]);
  assert.match(f.get("account")?.[0] ?? "", /^not recorded in the file/);
  assert.equal(requestsOf(emu), 0);
});

test("the cached token's time left, after print-token; --check asks for a token and says how it went", async () => {
  const emu = await withEmulator();
  const b = box(emu);
  const user = await aliceFile(emu, b, "user.json");
  assert.equal((await runCli(["print-token", user], b.env)).code, 0);
  const before = requestsOf(emu);
  const cached = JSON.parse((await status([user, "--format", "json", "--no-check"], b.env)).stdout) as {
    accessToken: { state: string; secondsLeft: number };
  };
  assert.equal(cached.accessToken.state, "cached");
  assert.ok(cached.accessToken.secondsLeft > 3000 && cached.accessToken.secondsLeft <= 3600);
  assert.match(
    fields((await status([user, "--no-check"], b.env)).stdout).get("access token")?.[0] ?? "",
    /^cached, (59|60) min left$/,
  );
  assert.equal(requestsOf(emu), before, "reading the cache is no request");

  // status asks nothing unless told; --check asks for a new token (one request): the cached one proves nothing.
  const tokensBefore = emu.stats().tokenRequests;
  assert.equal(fields((await status([user], b.env)).stdout).get("check"), undefined);
  assert.equal(emu.stats().tokenRequests, tokensBefore, "no request without --check");
  const ok = await status([user, "--check"], b.env);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(fields(ok.stdout).get("check")?.[0] ?? "", /^ok: a token with \d+ min left$/);
  assert.equal(emu.stats().tokenRequests, tokensBefore + 1, "one token request");
  assert.equal(fields(ok.stdout).get("next step"), undefined);

  emu.revokeAll();
  const fresh = box(emu);
  const revoked = await aliceFile(emu, fresh, "revoked.json");
  emu.revokeAll();
  // A revoked file with a cached token looks fine without a request; --check sees it.
  assert.equal((await runCli(["print-token", revoked], fresh.env)).code, 1);
  const failed = await status([revoked, "--check"], fresh.env);
  assert.equal(failed.code, 1);
  assert.match(fields(failed.stdout).get("check")?.[0] ?? "", /^failed \(ERR_INVALID_GRANT\): /);
  assert.deepEqual(fields(failed.stdout).get("next step"), [`to sign in again, run: cred-auth login ${revoked}`]);
  assert.equal((await status([revoked], fresh.env)).code, 0, "without --check the file is read only");
  assert.equal((await status([revoked, "--no-check"], fresh.env)).code, 0, "--no-check is still accepted");
});

test("the search order: nothing, the metadata server, the cached sign-in; a broken file is a problem line", async () => {
  const emu = await withEmulator({
    metadata: { projectId: "vm-project", email: "vm@vm-project.iam.gserviceaccount.com" },
  });
  const b = box(emu);
  const none = await status([], b.env);
  assert.equal(none.code, 1);
  const nf = fields(none.stdout);
  assert.deepEqual(nf.get("credentials"), ["none found (a program would ask you to sign in)"]);
  assert.equal(nf.get("found by"), undefined);
  assert.deepEqual(nf.get("passed over"), [
    "GOOGLE_APPLICATION_CREDENTIALS is not set",
    `no gcloud ADC file at ${join(b.dir, ".config", "gcloud", "application_default_credentials.json")}`,
    "the metadata server is off (METADATA_SERVER_DETECTION=none)",
    `no cached sign-in at ${join(b.dir, ".config", "cred", "cred_credentials.json")}`,
  ]);
  assert.deepEqual(nf.get("next step"), ["to sign in, run: cred-auth login credentials.json"]);
  assert.ok(
    none.stdout.endsWith("next step:     to sign in, run: cred-auth login credentials.json\n"),
    "the last line",
  );

  const meta = await status(["--no-check"], { ...b.env, METADATA_SERVER_DETECTION: "", GCE_METADATA_HOST: emu.host });
  assert.equal(meta.code, 0, meta.stderr);
  assert.deepEqual(fields(meta.stdout).get("credentials"), [`the metadata server at ${emu.host}`]);
  assert.equal(requestsOf(emu), 0);
  const checked = await status(["--check"], { ...b.env, METADATA_SERVER_DETECTION: "", GCE_METADATA_HOST: emu.host });
  assert.equal(checked.code, 0, checked.stderr);
  assert.deepEqual(fields(checked.stdout).get("account"), ["vm@vm-project.iam.gserviceaccount.com"]);

  const cacheDir = join(b.dir, ".config", "cred");
  mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  await testCredentialsFile(emu, cacheDir, { scopes: [CLOUD], filename: "cred_credentials.json" });
  const fromCache = fields((await status(["--no-check"], b.env)).stdout);
  assert.deepEqual(fromCache.get("credentials"), [join(cacheDir, "cred_credentials.json")]);
  assert.deepEqual(fromCache.get("found by"), ["your last sign-in, which cred-auth saved for your programs"]);

  const broken = join(b.dir, "broken.json");
  writeFileSync(broken, "{ not json", { mode: 0o600 });
  const bad = await status([broken], b.env);
  assert.equal(bad.code, 1);
  assert.match(fields(bad.stdout).get("problem")?.[0] ?? "", /is not valid JSON/);
});

test("values a file supplies are printed escaped; usage mistakes are usage errors", async () => {
  const emu = await withEmulator();
  const b = box(emu);
  const user = await aliceFile(emu, b, "user.json");
  const json = JSON.parse(readFileSync(user, "utf8")) as Record<string, unknown>;
  writeFileSync(user, JSON.stringify({ ...json, account: "eve\u001b]0;owned\u0007@example.com" }), { mode: 0o600 });
  const r = await status([user], b.env);
  assert.ok(!r.stdout.includes("\u001b"), "no raw escape character");
  assert.match(r.stdout, /account: +eve\\x1b\]0;owned\\x07@example\.com/);
  const format = await status([user, "--format", "yaml"], b.env);
  assert.equal(format.code, 2);
  assert.match(format.stderr, /--format must be text or json/);
});

test("on a terminal 40 columns wide, values wrap at word boundaries under their column", async () => {
  const { asText } = await import("../../dist/cli/commands/status.js");
  const found = {
    source: {
      kind: "file" as const,
      path: "/home/alice/projects/report/credentials.json",
      foundBy: "argument" as const,
    },
    reasons: ["named on the command line"],
    type: "authorized_user" as const,
    signedIn: true as const,
    check: {
      ok: false as const,
      code: "ERR_INVALID_GRANT",
      message: "Getting an access token failed: invalid_grant: the refresh token is expired or revoked; sign in again.",
    },
  };
  const text = asText(found, Date.now(), 40);
  const lines = text.trimEnd().split("\n");
  for (const line of lines) assert.ok(line.length <= 40 || !line.slice(15).includes(" "), `too wide: ${line}`);
  // Nothing is lost or broken inside a word: the wrapped lines joined again are the one-line text.
  const joined = text.replace(/\n {15}/g, " ");
  assert.equal(joined, asText(found, Date.now()));
  assert.ok(
    lines.some((line) => line.startsWith(" ".repeat(15))),
    "a wrapped line is indented under its value",
  );
  assert.ok(
    lines.includes("next step:     to sign in again, run:"),
    `the next step wraps at a space: ${lines.join("|")}`,
  );
});

/** A server on loopback that records each request and never answers it (closed after the test). */
async function silentServer(t: TestContext): Promise<{ host: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req) => seen.push(`${req.method} ${req.url}`));
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((done) => server.close(() => done()));
  });
  return { host: `127.0.0.1:${(server.address() as { port: number }).port}`, seen };
}

test("a handed-over file's credential_source.url is not fetched by status, only with --check", async (t) => {
  const silent = await silentServer(t);
  const b = sandbox(undefined, { METADATA_SERVER_DETECTION: "none", CRED_AUTH_EMULATOR_HOST: silent.host });
  const file = join(b.dir, "handed-over.json");
  const source = { url: `http://${silent.host}/internal/secret`, headers: { "x-internal": "yes" } };
  writeFileSync(file, JSON.stringify({ ...workloadFileJson("unused"), credential_source: source }));
  const inspected = await status([file], b.env);
  assert.deepEqual(fields(inspected.stdout).get("type"), ["external_account"], inspected.stderr);
  assert.deepEqual(silent.seen, [], "status fetched a URL the file names");
  // Told to check, it asks: within one deadline for the whole command, the silent server or not.
  const checked = await status([file, "--check"], b.env);
  assert.equal(checked.code, 1);
  assert.match(fields(checked.stdout).get("check")?.[0] ?? "", /^failed \(ERR_TIMEOUT\): No answer within 5 s/);
  assert.deepEqual(silent.seen, ["GET /internal/secret"]);
});

test("a token server that never answers: status --check ends at its one deadline, for a user's file too", async (t) => {
  const silent = await silentServer(t);
  const emu = await withEmulator();
  const b = sandbox(undefined, { METADATA_SERVER_DETECTION: "none", CRED_AUTH_EMULATOR_HOST: silent.host });
  const user = await testCredentialsFile(emu, b.dir, { scopes: [CLOUD], filename: "user.json" });
  const json = JSON.parse(readFileSync(user, "utf8")) as Record<string, unknown>;
  writeFileSync(user, JSON.stringify({ ...json, token_uri: `http://${silent.host}/token` }), { mode: 0o600 });
  // Killed after 20 s: the command must end by itself well before.
  const r = await runCli(["status", user, "--check"], b.env, { timeoutMs: 20_000 });
  assert.equal(r.code, 1, `status did not end by itself: ${r.stderr}`);
  assert.match(fields(r.stdout).get("check")?.[0] ?? "", /^failed \(ERR_TIMEOUT\): No answer within 5 s/);
  assert.ok(silent.seen.length >= 1, "the token server was asked");
});
