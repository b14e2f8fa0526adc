// Examples that sign a person in: the first run shows a sign-in (approved here on the emulator's
// consent page, as a person would), later runs use the cached credentials. Serial: the loopback
// receiver binds the default ports 8080-8089.
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { withEmulator } from "../support/emulator.ts";
import { exampleEnv, runExample, runExampleWithSignIn, tempDir } from "./support.ts";
import type { RunResult } from "./support.ts";

const ACME = {
  clientId: "acme-report.apps.example.test",
  clientSecret: "acme-report-desktop-secret",
  name: "Acme Report",
};
const emulator = await withEmulator({ clients: [{ ...ACME, type: "installed" }] });
const stranger = await withEmulator();
const HELLO = "Hello from the cred-auth emulator!\n";

function exitedWith(run: RunResult, code: number): void {
  assert.equal(run.code, code, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  assert.doesNotMatch(run.stdout + run.stderr, /ya29\.emu\.|1\/\/emu\./, "a token appeared in the output");
}

/** A cache file holds a refresh token: it must be private. */
function assertPrivateFile(path: string): Record<string, unknown> {
  assert.ok(existsSync(path), `${path} was not written`);
  assert.equal(statSync(path).mode & 0o077, 0, `${path} is readable by others`);
  return JSON.parse(readFileSync(path, "utf8"));
}

test("storage-list-download.ts signs in once, then uses the cached credentials", async () => {
  const home = tempDir();
  const env = exampleEnv(home, emulator);
  const args = ["demo-bucket", "hello.txt"];
  const before = emulator.stats().authorizations;

  const first = await runExampleWithSignIn("storage-list-download.ts", args, env, "carol@example.com");
  exitedWith(first, 0);
  assert.equal(first.stdout, `gs://demo-bucket/hello.txt (35 bytes)\n${HELLO}`);
  assert.equal(
    new URL(first.authUrl).searchParams.get("scope"),
    // The account scopes come along by default, so the file and the faces can name the account.
    "https://www.googleapis.com/auth/devstorage.read_only openid https://www.googleapis.com/auth/userinfo.email",
  );
  assert.equal(emulator.stats().authorizations, before + 1);
  const cached = assertPrivateFile(join(home, ".config", "cred", "cred_credentials.json"));
  assert.equal(cached.type, "authorized_user");

  const second = await runExample("storage-list-download.ts", args, env);
  exitedWith(second, 0);
  assert.equal(second.stdout, first.stdout);
  assert.equal(emulator.stats().authorizations, before + 1, "the second run signed in again");

  const rejected = await runExample("storage-list-download.ts", args, { ...env, EXAMPLE_API_URL: stranger.url });
  exitedWith(rejected, 1);
  assert.match(rejected.stderr, /storage-list-download failed: .*invalid authentication credentials/);
});

test("tool-author-client.ts signs in with the tool's own client, scopes and cache file", async () => {
  const home = tempDir();
  const env = exampleEnv(home, emulator, { ACME_CLIENT_ID: ACME.clientId, ACME_CLIENT_SECRET: ACME.clientSecret });

  const first = await runExampleWithSignIn("tool-author-client.ts", [], env, "bob@example.com");
  exitedWith(first, 0);
  assert.equal(first.stdout, "acme-report: signed in as bob@example.com\n");
  const params = new URL(first.authUrl).searchParams;
  assert.equal(params.get("client_id"), ACME.clientId, "the sign-in did not use the tool's client");
  assert.equal(
    params.get("scope"),
    "https://www.googleapis.com/auth/bigquery openid https://www.googleapis.com/auth/userinfo.email",
  );
  const consentPage = await (await fetch(first.authUrl)).text();
  assert.match(consentPage, new RegExp(ACME.name), "the consent page does not name the tool");

  const cached = assertPrivateFile(join(home, ".config", "acme-report", "credentials.json"));
  assert.equal(cached.client_id, ACME.clientId);
  assert.ok(
    !existsSync(join(home, ".config", "cred", "cred_credentials.json")),
    "the tool wrote cred-auth's default cache",
  );

  const second = await runExample("tool-author-client.ts", [], env);
  exitedWith(second, 0);
  assert.equal(second.stdout, first.stdout);

  const rejected = await runExample("tool-author-client.ts", [], { ...env, EXAMPLE_API_URL: stranger.url });
  exitedWith(rejected, 1);
  assert.match(rejected.stderr, /acme-report failed: .*invalid authentication credentials/);
});

test("tool-author-client.ts refuses to run without the tool's client", async () => {
  const run = await runExample("tool-author-client.ts", [], exampleEnv(tempDir(), emulator));
  exitedWith(run, 2);
  assert.match(run.stderr, /Set ACME_CLIENT_ID and ACME_CLIENT_SECRET/);
});
