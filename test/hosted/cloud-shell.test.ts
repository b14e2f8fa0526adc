// Cloud Shell: the metadata server first, the legacy devshell TCP port as a fallback.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { CredConnectionError, CredCredentialsError } from "cred-auth";
import { cloudShellEnvironment, cloudShellPlatform } from "../../dist/hosted/cloud-shell.js";
import { tryHosted } from "../../dist/hosted/registry.js";
import { withEmulator } from "../support/emulator.ts";
import { deadPort, isolateHome, startFakeDevshell } from "./support.ts";

isolateHome();
delete process.env.GCE_METADATA_HOST;
delete process.env.GCE_METADATA_IP;

const SCOPES = ["https://www.googleapis.com/auth/cloud-platform"];
const emu = await withEmulator({ metadata: { projectId: "shell-meta-project", email: "shell-user@example.com" } });
const devshell = await startFakeDevshell("shell-user@example.com", "shell-project");
after(() => devshell.close());
const deadMetadata = `127.0.0.1:${await deadPort()}`;

function reset(): void {
  devshell.mode = "ok";
  devshell.expiresIn = 3600;
  devshell.requests.length = 0;
}

test("with a metadata server, Cloud Shell uses it and leaves the devshell port alone", async () => {
  reset();
  const { result } = await tryHosted(SCOPES, true, {
    CLOUD_SHELL: "true",
    GCE_METADATA_HOST: emu.host,
    DEVSHELL_CLIENT_PORT: String(devshell.port),
  });
  assert.equal(result?.name, "cloud-shell");
  assert.equal(result.projectId, "shell-meta-project");
  assert.ok(emu.checkAccessToken((await result.credentials.getAccessToken()).token ?? ""));
  assert.deepEqual(devshell.requests, []);
});

test("when the metadata server fails, the devshell port gives the token and project", async () => {
  reset();
  const { result, attempts } = await tryHosted(SCOPES, true, {
    CLOUD_SHELL: "true",
    GCE_METADATA_HOST: deadMetadata,
    DEVSHELL_CLIENT_PORT: String(devshell.port),
  });
  assert.deepEqual(attempts, []);
  assert.equal(result?.name, "cloud-shell");
  assert.equal(result.projectId, "shell-project");
  assert.deepEqual(devshell.requests, ["2\n[]"], "the documented request: length line, then an empty JSON array");
  const { token } = await result.credentials.getAccessToken();
  assert.ok(devshell.accepts(token ?? ""));
  assert.equal(devshell.requests.length, 1, "the proving token is the one used");
});

test("the legacy port alone (no CLOUD_SHELL) goes straight to devshell; GOOGLE_CLOUD_PROJECT wins", async () => {
  reset();
  const { result } = await tryHosted(SCOPES, true, {
    DEVSHELL_CLIENT_PORT: String(devshell.port),
    GOOGLE_CLOUD_PROJECT: "picked",
  });
  assert.equal(result?.name, "cloud-shell");
  assert.equal(result.projectId, "picked");
  assert.equal(devshell.requests.length, 1);
});

test("devshell tokens are fetched again before they expire", async () => {
  reset();
  devshell.expiresIn = 60;
  const { result } = await tryHosted(SCOPES, true, { DEVSHELL_CLIENT_PORT: String(devshell.port) });
  const first = (await result!.credentials.getAccessToken()).token;
  const second = (await result!.credentials.getAccessToken()).token;
  assert.notEqual(first, second);
  assert.ok(devshell.accepts(second!));
  assert.equal(devshell.requests.length, 3);
});

const FAILURES: { mode: typeof devshell.mode; kind: typeof CredCredentialsError; message: RegExp }[] = [
  {
    mode: "no-token",
    kind: CredCredentialsError,
    message:
      /^Cloud Shell: the devshell port \d+ gave no access token; sign in with `gcloud auth login` in Cloud Shell\.$/,
  },
  {
    mode: "malformed",
    kind: CredConnectionError,
    message: /^Cloud Shell: the devshell port \d+ sent an unreadable reply \(not JSON\)\.$/,
  },
  {
    mode: "close-early",
    kind: CredConnectionError,
    message:
      /^Cloud Shell: the devshell port \d+ sent an unreadable reply \(the connection closed before a whole reply\)\.$/,
  },
];

for (const failure of FAILURES) {
  test(`a devshell port answering "${failure.mode}" is a ${failure.kind.name}`, async () => {
    reset();
    devshell.mode = failure.mode;
    const { result, attempts } = await tryHosted(SCOPES, true, { DEVSHELL_CLIENT_PORT: String(devshell.port) });
    assert.equal(result, undefined);
    const error = attempts[0]?.error;
    assert.ok(error instanceof failure.kind, String(error));
    assert.match(error.message, failure.message);
    reset();
  });
}

test("a silent devshell port times out", async () => {
  reset();
  devshell.mode = "slow";
  const quick = cloudShellEnvironment(cloudShellPlatform, 300);
  await assert.rejects(quick.credentials(SCOPES, { DEVSHELL_CLIENT_PORT: String(devshell.port) }), (error: Error) => {
    assert.ok(error instanceof CredConnectionError);
    assert.equal(error.message, `Cloud Shell: the devshell port ${devshell.port} did not answer within 300 ms.`);
    return true;
  });
  reset();
});

test("when both sources fail, one error gives both reasons", async () => {
  const port = await deadPort();
  const { attempts } = await tryHosted(SCOPES, true, {
    CLOUD_SHELL: "true",
    GCE_METADATA_HOST: deadMetadata,
    DEVSHELL_CLIENT_PORT: String(port),
  });
  const error = attempts[0]?.error;
  assert.ok(error instanceof CredConnectionError, String(error));
  assert.equal(
    error.message,
    `Cloud Shell: neither the metadata server nor the devshell port gave a token: could not reach the metadata server (ECONNREFUSED). / could not reach the devshell port ${port} (ECONNREFUSED).`,
  );
  assert.ok(error.cause instanceof AggregateError);

  reset();
  devshell.mode = "no-token";
  const mixed = await tryHosted(SCOPES, true, {
    CLOUD_SHELL: "true",
    GCE_METADATA_HOST: deadMetadata,
    DEVSHELL_CLIENT_PORT: String(devshell.port),
  });
  assert.ok(
    mixed.attempts[0]?.error instanceof CredCredentialsError,
    "a credentials problem on either side makes it a credentials error",
  );
  reset();
});

test("without a devshell port, Cloud Shell's metadata error stands alone", async () => {
  emu.setMetadata(null);
  const { attempts } = await tryHosted(SCOPES, true, { CLOUD_SHELL: "true", GCE_METADATA_HOST: emu.host });
  assert.ok(attempts[0]?.error instanceof CredCredentialsError);
  assert.match(attempts[0]!.error.message, /^Cloud Shell: the metadata server has no token .*gcloud auth login/);
});
