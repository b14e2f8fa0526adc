// accessTokenForFile (src/credentials/tokens/file-token.ts): the credentials layer's fast path that the
// CLI's print-token composes: any ADC file's token through the token cache, decided from the `env`
// it is given (emulator, universe, cache place), with its URLs judged first; describeCredentialsFile
// for the CLI's messages.
import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ERROR_CODES } from "cred-auth";
import { accessTokenForFile, describeCredentialsFile } from "../../dist/credentials/tokens/file-token.js";
import { testCredentialsFile, withEmulator } from "../support/emulator.ts";
import { tempDir } from "../support/files.ts";

const emu = await withEmulator();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";

test("a user file's token, cached where env says: the second call asks no server; scopes asked are reported as ignored", async (t) => {
  const dir = tempDir(t);
  const path = await testCredentialsFile(emu, join(dir, "u"), { scopes: [CLOUD], account: "alice@example.com" });
  const env = { CRED_AUTH_EMULATOR_HOST: emu.host, CRED_AUTH_TOKEN_CACHE: join(dir, "tokens") };
  const before = emu.stats().tokenRequests;
  const first = await accessTokenForFile(path, { env, scopes: ["https://www.googleapis.com/auth/drive"] });
  assert.equal(first.credentialsType, "authorized_user");
  assert.equal(first.tokenType, "Bearer");
  assert.equal(first.scopesIgnored, true);
  assert.ok(emu.checkAccessToken(first.accessToken));
  assert.ok(first.expiryDate > Date.now());
  const second = await accessTokenForFile(path, { env });
  assert.equal(second.accessToken, first.accessToken);
  assert.equal(second.scopesIgnored, false);
  assert.equal(emu.stats().tokenRequests, before + 1, "served from the cache env named");
  assert.equal(readdirSync(join(dir, "tokens")).filter((f) => f.endsWith(".json")).length, 1);
  const fresh = await accessTokenForFile(path, { env, fresh: true });
  assert.notEqual(fresh.accessToken, first.accessToken);
  const off = await accessTokenForFile(path, { env: { ...env, CRED_AUTH_TOKEN_CACHE: "off" } });
  assert.notEqual(off.accessToken, fresh.accessToken, "the cache off: a new token");
  assert.deepEqual(describeCredentialsFile(path), { credentialsType: "authorized_user" });
});

test("the universe is decided from env and the option: a file for another universe is refused before anything is asked", async (t) => {
  const dir = tempDir(t);
  const key = {
    ...emu.createServiceAccountKey(),
    universe_domain: "tpc.example",
    token_uri: "https://oauth2.tpc.example/token",
  };
  const path = join(dir, "key.json");
  writeFileSync(path, JSON.stringify(key));
  const before = emu.stats().tokenRequests;
  await assert.rejects(accessTokenForFile(path, { env: {} }), { code: ERROR_CODES.UNTRUSTED_UNIVERSE });
  await assert.rejects(accessTokenForFile(path, { env: { GOOGLE_CLOUD_UNIVERSE_DOMAIN: "other.example" } }), {
    code: ERROR_CODES.UNTRUSTED_UNIVERSE,
  });
  // Trusted by the option, the file's own token URL is judged and asked (it does not exist here).
  await assert.rejects(
    accessTokenForFile(path, { env: { CRED_AUTH_TOKEN_CACHE: "off" }, universeDomain: "tpc.example" }),
    (error: Error & { code?: string }) =>
      error.code !== ERROR_CODES.UNTRUSTED_UNIVERSE && error.code !== ERROR_CODES.UNSAFE_TOKEN_URL,
  );
  assert.equal(emu.stats().tokenRequests, before);
});

test("describeCredentialsFile: the account of a user file, the account an impersonated file acts as", (t) => {
  const dir = tempDir(t);
  const user = {
    type: "authorized_user",
    client_id: "c",
    client_secret: "s",
    refresh_token: "r",
    account: "bob@example.com",
  };
  const userPath = join(dir, "user.json");
  writeFileSync(userPath, JSON.stringify(user));
  assert.deepEqual(describeCredentialsFile(userPath), {
    credentialsType: "authorized_user",
    account: "bob@example.com",
  });
  const impersonated = join(dir, "imp.json");
  writeFileSync(
    impersonated,
    JSON.stringify({
      type: "impersonated_service_account",
      service_account_impersonation_url:
        "https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/sa@p.iam.gserviceaccount.com:generateAccessToken",
      source_credentials: user,
    }),
  );
  assert.deepEqual(describeCredentialsFile(impersonated), {
    credentialsType: "impersonated_service_account",
    account: "bob@example.com",
    actsAs: "sa@p.iam.gserviceaccount.com",
  });
});

test("a misspelt scope (print-token key.json --scopes …devstorage.readonlyy) is refused before any request; an unknown one noted", async (t) => {
  const dir = tempDir(t);
  const path = join(dir, "key.json");
  writeFileSync(path, JSON.stringify(emu.createServiceAccountKey()));
  const env = { CRED_AUTH_EMULATOR_HOST: emu.host, CRED_AUTH_TOKEN_CACHE: "off" };
  const before = emu.stats().tokenRequests;
  const typo = "https://www.googleapis.com/auth/devstorage.readonlyy";
  await assert.rejects(accessTokenForFile(path, { env, scopes: [typo] }), {
    code: ERROR_CODES.INVALID_SCOPE,
    message: `Google knows no scope ${typo} (did you mean https://www.googleapis.com/auth/devstorage.read_only?): correct it (newer than 2026-08-22? CRED_AUTH_SCOPE_CHECK=off).`,
  });
  await assert.rejects(accessTokenForFile(path, { env, scopes: ["devstorage.read_only"] }), {
    code: ERROR_CODES.INVALID_SCOPE,
  });
  assert.equal(emu.stats().tokenRequests, before, "nothing was asked");
  const unknown = "https://www.googleapis.com/auth/some.future.scope";
  const noted = await accessTokenForFile(path, { env, scopes: [unknown] });
  assert.match(
    noted.warnings.join("\n"),
    /some\.future\.scope is not among the scopes of Google's API discovery documents/,
  );
  const off = await accessTokenForFile(path, { env: { ...env, CRED_AUTH_SCOPE_CHECK: "off" }, scopes: [unknown] });
  assert.deepEqual(off.warnings, []);
});
