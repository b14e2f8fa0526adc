// `cred-auth print-token` without FILE, as gcloud's print-access-token: the credentials default()
// would use, found where default() looks (GOOGLE_APPLICATION_CREDENTIALS, gcloud's ADC file, the
// metadata server, the cached sign-in); never a sign-in; with nothing found, one coded line.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { testCredentialsFile, withEmulator } from "../support/emulator.ts";
import { runCli, sandbox } from "./support.ts";

const emu = await withEmulator();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const box = () => sandbox(emu, { METADATA_SERVER_DETECTION: "none" });

async function printed(args: string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const r = await runCli(["print-token", ...args], env);
  assert.equal(r.code, 0, r.stderr);
  return emu.checkAccessToken(r.stdout.trim())?.account;
}

test("without FILE: the file GOOGLE_APPLICATION_CREDENTIALS names, else gcloud's ADC file, else the cached sign-in", async () => {
  const b = box();
  const named = await testCredentialsFile(emu, join(b.dir, "named"), { scopes: [CLOUD], account: "alice@example.com" });
  assert.equal(await printed([], { ...b.env, GOOGLE_APPLICATION_CREDENTIALS: named }), "alice@example.com");
  const gcloudDir = join(b.dir, "gcloud");
  await testCredentialsFile(emu, gcloudDir, {
    scopes: [CLOUD],
    account: "bob@example.com",
    filename: "application_default_credentials.json",
  });
  assert.equal(await printed([], { ...b.env, CLOUDSDK_CONFIG: gcloudDir }), "bob@example.com");
  await testCredentialsFile(emu, join(b.dir, ".config", "cred"), {
    scopes: [CLOUD],
    account: "carol@example.com",
    filename: "cred_credentials.json",
  });
  assert.equal(await printed([], b.env), "carol@example.com");
});

test("without FILE on a machine with a metadata server: its token, in each format", async () => {
  const b = box();
  emu.setMetadata({ projectId: "vm-project", email: "vm@vm-project.iam.gserviceaccount.com", scopes: [CLOUD] });
  const env = { ...b.env, GCE_METADATA_HOST: emu.host, METADATA_SERVER_DETECTION: "" };
  assert.equal(await printed([], env), "vm@vm-project.iam.gserviceaccount.com");
  const json = await runCli(["print-token", "--format", "json"], env);
  assert.equal(json.code, 0, json.stderr);
  const reply = JSON.parse(json.stdout) as { access_token: string; expiry: string; token_type: string };
  assert.ok(emu.checkAccessToken(reply.access_token));
  assert.ok(Date.parse(reply.expiry) > Date.now());
  const header = await runCli(["print-token", "--header"], env);
  assert.match(header.stdout, /^Authorization: Bearer ya29\.\S+\n$/);
});

test("without FILE and nothing found: one coded line with where it looked, no sign-in; --help says so", async () => {
  const b = box();
  const r = await runCli(["print-token"], b.env);
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /^cred-auth: No credentials found \(no GOOGLE_APPLICATION_CREDENTIALS, gcloud ADC file, metadata server or cached sign-in\): run `cred-auth login FILE` and give FILE, or `gcloud auth application-default login`\. \(ERR_NO_CREDENTIALS\)\n$/,
  );
  assert.doesNotMatch(r.stderr, /authorize this application/);
  const help = await runCli(["print-token", "--help"], b.env);
  assert.match(help.stdout, /^Usage: cred-auth print-token \[FILE\] \[OPTIONS\]/);
  assert.match(
    help.stdout.replace(/\s+/g, " "),
    /without it, the credentials default\(\) would use: GOOGLE_APPLICATION_CREDENTIALS, gcloud's ADC file, the metadata server, the cached sign-in \(never a new sign-in\)/,
  );
});
