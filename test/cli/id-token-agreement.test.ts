// The library's fetchIdToken() and `cred-auth print-identity-token` agree for the same file: the same
// includeEmail default (gcloud's: no e-mail unless asked), the same azp (the account's unique id,
// as gcloud and Python give), and so the same token-cache entry: one mints, the other reuses it.
// And every ID token's `aud` is checked against the audience asked: a token server that honours
// only the refresh grant's `target_audience` (google-auth-library 11's) still gives the right
// token, and one that honours neither parameter is refused with ERR_ID_TOKEN_WRONG_AUDIENCE by
// both paths, never printed.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as credAuth from "cred-auth";
import { DEMO_CLIENT, type Emulator, type EmulatorOptions } from "cred-auth/emulator";
import { withEnv } from "../credentials/support.ts";
import { testCredentialsFile, withEmulator } from "../support/emulator.ts";
import { verifyIdToken } from "../support/id-tokens.ts";
import { runCli, type Sandbox, sandbox } from "./support.ts";

const ID_SCOPES = [
  "openid",
  "https://www.googleapis.com/auth/userinfo.email",
  "https://www.googleapis.com/auth/cloud-platform",
];
const IAP_CLIENT = "iap-agree.apps.emulator.invalid";
const TARGET = "agree@agree-project.iam.gserviceaccount.com";
const noSignIn = { credentialsCache: credAuth.cache.NOOP, hosted: false } as const;

async function emulatorWith(options: EmulatorOptions = {}): Promise<Emulator> {
  const emu = await withEmulator(options);
  emu.addClient({
    clientId: IAP_CLIENT,
    clientSecret: "GOCSPX-iap/agree+x=",
    type: "web",
    project: "emulator-project",
  });
  emu.addServiceAccount({ email: TARGET, tokenCreators: ["user:alice@example.com"] });
  return emu;
}

const emu = await emulatorWith();
const HELLO = emu.addRunService({ name: "hello" });

function aliceFile(target: Emulator, b: Sandbox, name: string): Promise<string> {
  return testCredentialsFile(target, b.dir, { scopes: ID_SCOPES, account: "alice@example.com", filename: name });
}

function impersonatedFile(b: Sandbox, source: string): string {
  const path = join(b.dir, "impersonated.json");
  const file = {
    type: "impersonated_service_account",
    delegates: [],
    service_account_impersonation_url: `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${TARGET}:generateAccessToken`,
    source_credentials: JSON.parse(readFileSync(source, "utf8")),
  };
  writeFileSync(path, JSON.stringify(file), { mode: 0o600 });
  return path;
}

/** The library's fetchIdToken with the file as GOOGLE_APPLICATION_CREDENTIALS, in the sandbox's environment. */
function libraryToken(b: Sandbox, path: string, audience: string, includeEmail?: boolean): Promise<string> {
  const env = { ...b.env, GOOGLE_APPLICATION_CREDENTIALS: path, CRED_AUTH_HOSTED: "off" };
  const options = includeEmail === undefined ? noSignIn : { ...noSignIn, includeEmail };
  return withEnv(env, () => credAuth.fetchIdToken(audience, options));
}

async function cliToken(b: Sandbox, args: string[]): Promise<string> {
  const r = await runCli(["print-identity-token", ...args], b.env);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim();
}

test("an impersonated file: library and CLI give the same claims by default and with the e-mail, through one cache entry", async () => {
  const b = sandbox(emu);
  const path = impersonatedFile(b, await aliceFile(emu, b, "source.json"));
  for (const includeEmail of [undefined, true]) {
    const flags = includeEmail ? ["--include-email"] : [];
    const generated = () => emu.stats().idTokensBySource.generateIdToken ?? 0;
    const minted = generated();
    const fromLibrary = await libraryToken(b, path, HELLO, includeEmail);
    const fromCli = await cliToken(b, [path, "--audiences", HELLO, ...flags]);
    assert.equal(fromCli, fromLibrary, `includeEmail ${includeEmail}: the CLI reuses the library's token`);
    assert.equal(generated(), minted + 1, "one generateIdToken for both");
    const claims = await verifyIdToken(emu, fromLibrary, HELLO);
    assert.equal(claims.email, includeEmail ? TARGET : undefined, "the e-mail only when asked, as gcloud");
    assert.equal(claims.azp, claims.sub, "azp is the account's unique id, as gcloud's and Python's");
  }
});

test("a user file: library and CLI share the IAP client's token; the library reuses the CLI's", async () => {
  const b = sandbox(emu);
  const path = await aliceFile(emu, b, "user.json");
  const fromCli = await cliToken(b, [path, "--audiences", IAP_CLIENT]);
  // A user's tokens differ by their at_hash: the same string is the same cache entry.
  assert.equal(await libraryToken(b, path, IAP_CLIENT), fromCli);
  assert.equal((await verifyIdToken(emu, fromCli, IAP_CLIENT)).azp, DEMO_CLIENT.clientId);
});

test("a token server that honours only target_audience: both paths get the IAP client's token", async () => {
  const only = await emulatorWith({ refreshGrantAudienceParameters: ["target_audience"] });
  const b = sandbox(only, { CRED_AUTH_TOKEN_CACHE: "off" });
  const path = await aliceFile(only, b, "user.json");
  const fromCli = await cliToken(b, [path, "--audiences", IAP_CLIENT]);
  assert.equal((await verifyIdToken(only, fromCli, IAP_CLIENT)).aud, IAP_CLIENT);
  const fromLibrary = await libraryToken(b, path, IAP_CLIENT);
  assert.equal((await verifyIdToken(only, fromLibrary, IAP_CLIENT)).aud, IAP_CLIENT);
});

test("a token server that honours neither parameter: ERR_ID_TOKEN_WRONG_AUDIENCE on both paths, naming what came back", async () => {
  const deaf = await emulatorWith({ refreshGrantAudienceParameters: [] });
  const b = sandbox(deaf, { CRED_AUTH_TOKEN_CACHE: "off" });
  const path = await aliceFile(deaf, b, "user.json");
  const r = await runCli(["print-identity-token", path, "--audiences", IAP_CLIENT], b.env);
  assert.notEqual(r.code, 0);
  assert.equal(r.stdout, "", "no token printed");
  assert.match(r.stderr, /ERR_ID_TOKEN_WRONG_AUDIENCE|another audience/);
  assert.ok(r.stderr.includes(`asked for "${IAP_CLIENT}", its aud is "${DEMO_CLIENT.clientId}"`), r.stderr);
  assert.equal(r.stderr.trim().split("\n").length, 1, "one line");
  await assert.rejects(libraryToken(b, path, IAP_CLIENT), (error: credAuth.CredAuthError) => {
    assert.equal(error.code, credAuth.ERROR_CODES.ID_TOKEN_WRONG_AUDIENCE);
    assert.ok(error instanceof credAuth.CredCredentialsError);
    assert.ok(error.message.includes(`its aud is "${DEMO_CLIENT.clientId}"`));
    const refreshToken = (JSON.parse(readFileSync(path, "utf8")) as { refresh_token: string }).refresh_token;
    for (const secret of [refreshToken, DEMO_CLIENT.clientSecret]) assert.ok(!error.message.includes(secret));
    return true;
  });
  // Its own client's token asks for no audience: still fine.
  assert.equal((await verifyIdToken(deaf, await cliToken(b, [path]), DEMO_CLIENT.clientId)).aud, DEMO_CLIENT.clientId);
});
