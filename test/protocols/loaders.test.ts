import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { inspect } from "node:util";
import { afterEach, test } from "node:test";
import type { TestContext } from "node:test";
import {
  type CredAuthError,
  CredConnectionError,
  CredCredentialsError,
  ERROR_CODES,
  loadServiceAccountCredentials,
  loadUserCredentials,
} from "cred-auth";
import { GoogleAuth, JWT, UserRefreshClient } from "google-auth-library";
import { getCredentialInfo } from "../../dist/protocols/info.js";
import { writeUserCredentialsFile } from "../../dist/stores/credentials-file.js";
import { testCredentialsFile, withEmulator } from "../support/emulator.ts";
import { assertNoSecrets, tempDir } from "../support/files.ts";
import { closedPort } from "../support/net.ts";

const SCOPES = ["https://www.googleapis.com/auth/cloud-platform"];
const emu = await withEmulator();
afterEach(() => emu.reset());

/** Sets environment variables for one test. */
function withEnv(t: TestContext, vars: Record<string, string | undefined>): void {
  const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  apply(vars);
  t.after(() => apply(saved));
}

async function userFile(
  t: TestContext,
  extra: Record<string, unknown> = {},
  scopes = SCOPES,
): Promise<{ path: string; json: Record<string, unknown> }> {
  const dir = tempDir(t);
  const path = await testCredentialsFile(emu, dir, { scopes });
  const { readFileSync } = await import("node:fs");
  const json = { ...JSON.parse(readFileSync(path, "utf8")), ...extra };
  for (const [name, value] of Object.entries(extra)) if (value === undefined) delete json[name];
  writeFileSync(path, JSON.stringify(json));
  return { path, json };
}

function keyFile(t: TestContext, key: Record<string, string>): string {
  const path = join(tempDir(t), "key.json");
  writeFileSync(path, JSON.stringify(key));
  return path;
}

/** Asserts `promise` rejects with `type`, a message matching `pattern`, the file named and no secret. */
async function assertFails(
  promise: Promise<unknown>,
  type: typeof CredCredentialsError | typeof CredConnectionError,
  code: string | undefined,
  pattern: RegExp,
  secrets: unknown[] = [],
): Promise<void> {
  await assert.rejects(promise, (error: Error) => {
    assert.ok(error instanceof type, `expected ${type.name}, got ${error.name}: ${error.message}`);
    if (code !== undefined) assert.equal((error as CredAuthError).code, code, error.message);
    assert.match(error.message, pattern);
    assertNoSecrets(error.message);
    for (const secret of secrets) assert.ok(!error.message.includes(String(secret)), "message leaks a secret");
    return true;
  });
}

test("loadUserCredentials returns a working UserRefreshClient from the file's token_uri", async (t) => {
  const { path, json } = await userFile(t);
  const before = emu.stats().tokenRequests;
  const client = await loadUserCredentials(path);
  assert.ok(client instanceof UserRefreshClient);
  assert.equal(emu.stats().tokenRequests, before + 1, "one token request proves the credentials");
  const token = client.credentials.access_token;
  assert.ok(token);
  assert.deepEqual(emu.checkAccessToken(token)?.scopes, SCOPES);
  const info = getCredentialInfo(client);
  assert.deepEqual(info?.scopes, SCOPES);
  assert.equal(info?.clientId, json.client_id);
  assert.equal(info?.tokenUrl, `${emu.url}/token`);
  assert.equal(info?.path, path);
  // A later request through the client is authorized with the same token.
  const headers = await client.getRequestHeaders();
  assert.equal(headers.get("authorization"), `Bearer ${token}`);
});

test("without a token_uri, an active emulator (CRED_AUTH_EMULATOR_HOST) is the token server", async (t) => {
  const { path } = await userFile(t, { token_uri: undefined });
  withEnv(t, { CRED_AUTH_EMULATOR_HOST: emu.host });
  const client = await loadUserCredentials(path);
  assert.equal(getCredentialInfo(client)?.tokenUrl, `${emu.url}/token`);
});

test("Google's token_uri is replaced by an active emulator, like every Google endpoint", async (t) => {
  const { path } = await userFile(t, { token_uri: "https://oauth2.googleapis.com/token" });
  withEnv(t, { CRED_AUTH_EMULATOR_HOST: emu.host });
  const client = await loadUserCredentials(path);
  assert.ok(emu.checkAccessToken(client.credentials.access_token!));
});

test("a revoked refresh token: CredCredentialsError invalid_grant", async (t) => {
  const { path, json } = await userFile(t);
  emu.revokeRefreshToken(String(json.refresh_token));
  await assert.rejects(loadUserCredentials(path), (error: Error) => {
    assert.ok(error.cause, "the original error is kept as cause");
    assert.equal((error as CredAuthError).error, "invalid_grant", "the OAuth error, to branch on");
    assert.equal((error as CredAuthError).status, 400, "the HTTP status");
    const deep = inspect(error, { depth: 20 });
    assert.ok(
      !deep.includes(String(json.refresh_token)) && !deep.includes(String(json.client_secret)),
      "not even the cause holds the refresh token or secret",
    );
    return true;
  });
  await assertFails(
    loadUserCredentials(path),
    CredCredentialsError,
    ERROR_CODES.INVALID_GRANT,
    /invalid_grant: the refresh token is expired or revoked; sign in again/,
    [json.refresh_token],
  );
});

test("a wrong client secret: CredCredentialsError invalid_client", async (t) => {
  const { path } = await userFile(t, { client_secret: "wrong-secret-value" });
  await assertFails(loadUserCredentials(path), CredCredentialsError, ERROR_CODES.INVALID_CLIENT, /invalid_client/, [
    "wrong-secret-value",
  ]);
});

test("a token server failing with 503 (after gaxios' retries): CredConnectionError", async (t) => {
  const { path } = await userFile(t);
  emu.failNext(10, { kind: "status", status: 503 });
  await assertFails(
    loadUserCredentials(path),
    CredConnectionError,
    ERROR_CODES.SERVER_ERROR,
    /answered 503.*try again later/,
  );
  assert.ok(emu.stats().tokenRequests >= 2, "gaxios retried");
});

test("a token server answering Google's HTML 502 page: CredConnectionError", async (t) => {
  const { path } = await userFile(t);
  emu.failNext(10, { kind: "html" });
  await assertFails(loadUserCredentials(path), CredConnectionError, ERROR_CODES.SERVER_ERROR, /HTTP 502/);
});

test("a token server that refuses connections: CredConnectionError ECONNREFUSED; the emulator named only when it is the emulator", async (t) => {
  const port = await closedPort();
  const { path } = await userFile(t, { token_uri: `http://127.0.0.1:${port}/token` });
  // A token_uri on this machine without the emulator variable is the file's own server, not "the emulator".
  await assertFails(
    loadUserCredentials(path),
    CredConnectionError,
    ERROR_CODES.UNREACHABLE,
    new RegExp(
      `failed: nothing answers at http://127\\.0\\.0\\.1:${port}, on this machine \\(ECONNREFUSED\\): start the token server it names`,
    ),
  );
  const saved = process.env.CRED_AUTH_EMULATOR_HOST;
  process.env.CRED_AUTH_EMULATOR_HOST = `127.0.0.1:${port}`;
  t.after(() => {
    if (saved === undefined) delete process.env.CRED_AUTH_EMULATOR_HOST;
    else process.env.CRED_AUTH_EMULATOR_HOST = saved;
  });
  // Exactly the emulator's host and port: it is named, with how to start it.
  await assertFails(
    loadUserCredentials(path),
    CredConnectionError,
    ERROR_CODES.UNREACHABLE,
    new RegExp(
      `failed: nothing answers at the emulator's address http://127\\.0\\.0\\.1:${port} \\(CRED_AUTH_EMULATOR_HOST; ECONNREFUSED\\): start it with \`cred-auth emulator --port ${port}\`, or unset CRED_AUTH_EMULATOR_HOST to use Google\\.$`,
    ),
  );
});

test("a token server that resets the connection: CredConnectionError", async (t) => {
  const { path } = await userFile(t);
  emu.failNext(10, { kind: "reset" });
  await assertFails(
    loadUserCredentials(path),
    CredConnectionError,
    ERROR_CODES.UNREACHABLE,
    /could not reach the token server \(ECONNRESET\)/,
  );
});

test("a token server that never answers: CredConnectionError after the timeout", async (t) => {
  const { path } = await userFile(t);
  emu.failNext(10, { kind: "hang" });
  await assertFails(
    loadUserCredentials(path, { timeoutMs: 150 }),
    CredConnectionError,
    ERROR_CODES.TIMEOUT,
    /did not answer in time/,
  );
});

test("a slow token server within the timeout still works", async (t) => {
  const { path } = await userFile(t);
  emu.failNext(1, { kind: "slow", delayMs: 100 });
  const client = await loadUserCredentials(path, { timeoutMs: 5000 });
  assert.ok(emu.checkAccessToken(client.credentials.access_token!));
});

test("a token server sending garbage or a truncated reply: CredConnectionError", async (t) => {
  for (const kind of ["garbage", "truncated"] as const) {
    const { path } = await userFile(t);
    emu.failNext(10, { kind });
    await assertFails(loadUserCredentials(path), CredConnectionError, ERROR_CODES.SERVER_ERROR, /token server/);
    emu.reset();
  }
});

test("a malformed file fails before any request", async (t) => {
  const path = join(tempDir(t), "creds.json");
  writeFileSync(path, "{}");
  const before = emu.stats().tokenRequests;
  await assertFails(loadUserCredentials(path), CredCredentialsError, ERROR_CODES.FILE_INVALID, /has no "type" field/);
  assert.equal(emu.stats().tokenRequests, before);
});

test("loadServiceAccountCredentials returns a JWT with the key's projectId and a token from the key's token_uri", async (t) => {
  const key = emu.createServiceAccountKey({ projectId: "sa-project" });
  const path = keyFile(t, key);
  const scopes = ["https://www.googleapis.com/auth/bigquery"];
  const credentials = await loadServiceAccountCredentials(path, scopes);
  assert.ok(credentials instanceof JWT);
  assert.equal(credentials.projectId, "sa-project");
  const token = credentials.credentials.access_token!;
  const held = emu.checkAccessToken(token);
  assert.equal(held?.account, key.client_email);
  assert.deepEqual(held?.scopes, scopes);
  assert.deepEqual(getCredentialInfo(credentials)?.scopes, scopes);
  assert.equal(emu.stats().byGrant["urn:ietf:params:oauth:grant-type:jwt-bearer"], 1);
});

test("service account scopes default to cloud-platform", async (t) => {
  const credentials = await loadServiceAccountCredentials(keyFile(t, emu.createServiceAccountKey()));
  assert.deepEqual(emu.checkAccessToken(credentials.credentials.access_token!)?.scopes, SCOPES);
});

test("a real key file (Google's token_uri) goes to an active emulator", async (t) => {
  const key = { ...emu.createServiceAccountKey(), token_uri: "https://oauth2.googleapis.com/token" };
  withEnv(t, { CRED_AUTH_EMULATOR_HOST: emu.host });
  const credentials = await loadServiceAccountCredentials(keyFile(t, key));
  assert.ok(emu.checkAccessToken(credentials.credentials.access_token!));
});

test("a key the token server does not know: CredCredentialsError, the key never quoted", async (t) => {
  const other = await withEmulator();
  const key = { ...other.createServiceAccountKey(), token_uri: `${emu.url}/token` };
  await assertFails(
    loadServiceAccountCredentials(keyFile(t, key)),
    CredCredentialsError,
    undefined,
    /invalid_grant|invalid_client|unauthorized_client/,
  );
});

test("service account token server errors: 503 and timeouts are CredConnectionError", async (t) => {
  const path = keyFile(t, emu.createServiceAccountKey());
  emu.failNext(10, { kind: "status", status: 500 });
  await assertFails(loadServiceAccountCredentials(path), CredConnectionError, ERROR_CODES.SERVER_ERROR, /answered 500/);
  emu.reset();
  emu.failNext(10, { kind: "hang" });
  await assertFails(
    loadServiceAccountCredentials(path, undefined, { timeoutMs: 150 }),
    CredConnectionError,
    ERROR_CODES.TIMEOUT,
    /did not answer in time/,
  );
});

test("a saved user file works as GOOGLE_APPLICATION_CREDENTIALS for google-auth-library's GoogleAuth", async (t) => {
  const path = join(tempDir(t), "adc.json");
  const refreshToken = emu.issueRefreshToken({ scopes: SCOPES });
  const { DEMO_CLIENT } = await import("cred-auth/emulator");
  await writeUserCredentialsFile(path, {
    type: "authorized_user",
    clientId: DEMO_CLIENT.clientId,
    clientSecret: DEMO_CLIENT.clientSecret,
    refreshToken: refreshToken,
    tokenUrl: `${emu.url}/token`,
    scopes: SCOPES,
  });
  withEnv(t, { GOOGLE_APPLICATION_CREDENTIALS: path });
  const plain = await new GoogleAuth({ scopes: SCOPES }).getClient();
  assert.equal(
    String((plain as UserRefreshClient).endpoints.oauth2TokenUrl),
    "https://oauth2.googleapis.com/token",
    "GoogleAuth ignores token_uri (FACTS)",
  );
  // google-auth-library ignores token_uri (it always uses Google's), so point it at the emulator the documented way.
  const auth = new GoogleAuth({ scopes: SCOPES, clientOptions: { endpoints: { oauth2TokenUrl: `${emu.url}/token` } } });
  const client = await auth.getClient();
  assert.ok(client instanceof UserRefreshClient);
  const { token } = await client.getAccessToken();
  assert.ok(token && emu.checkAccessToken(token), "GoogleAuth refreshed the saved file against the emulator");
});
