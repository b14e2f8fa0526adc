// Attacker: another local user listens on a loopback port while CRED_AUTH_EMULATOR_HOST names the
// emulator's. A crafted credentials file that names that port (STS's token_url, the impersonation
// URL, an IMDS URL) is refused: with the emulator, plain http goes to exactly its host and port.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_WORKLOAD_AUDIENCE } from "cred-auth/emulator";
import { testCredentialsFile, withEmulator, workloadFileJson } from "../support/emulator.ts";
import { CLOUD_PLATFORM, runCli, sandbox } from "../cli/support.ts";
import { startRecorder } from "./recorder.ts";

const emu = await withEmulator();
const other = await startRecorder(() => ({ body: JSON.stringify({ access_token: "ya29.stolen", expires_in: 3600 }) }));

test("a crafted external_account file naming another loopback port gets nothing sent there", async () => {
  const box = sandbox(emu);
  const subject = emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE });
  const tokenFile = join(box.dir, "subject.jwt");
  writeFileSync(tokenFile, subject);
  const impersonate = `${other.url}/v1/projects/-/serviceAccounts/sa@p.iam.gserviceaccount.com:generateAccessToken`;
  for (const extra of [
    { token_url: `${other.url}/v1/token` },
    { service_account_impersonation_url: impersonate },
    { token_url: `http://localhost:${emu.host.split(":")[1]}/v1/token` },
  ]) {
    const file = join(box.dir, "wif.json");
    writeFileSync(file, JSON.stringify(workloadFileJson(tokenFile, extra)));
    const result = await runCli(["print-token", file], box.env);
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      /\(http only to the emulator, http:\/\/[^)]*\): no token goes there.*\(ERR_UNSAFE_TOKEN_URL\)\n$/,
    );
    assert.ok(!result.stderr.includes(subject));
  }
  assert.equal(other.requests.length, 0, "the other user's port got no request");
});

test("an impersonated file whose source is the user's gcloud credentials sends no token to another port", async () => {
  const box = sandbox(emu);
  const gcloud = await testCredentialsFile(emu, box.dir, { scopes: [CLOUD_PLATFORM], filename: "gcloud.json" });
  const source = JSON.parse(readFileSync(gcloud, "utf8")) as Record<string, unknown>;
  const file = join(box.dir, "impersonated.json");
  writeFileSync(
    file,
    JSON.stringify({
      type: "impersonated_service_account",
      source_credentials: source,
      service_account_impersonation_url: `${other.url}/v1/projects/-/serviceAccounts/sa@p.iam.gserviceaccount.com:generateAccessToken`,
      delegates: [],
    }),
  );
  const result = await runCli(["print-token", file], box.env);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /names "http:\/\/127\.0\.0\.1:\d+" as its service_account_impersonation_url/);
  assert.ok(!other.seen().includes(String(source.refresh_token)));
  assert.equal(other.requests.length, 0);
});
