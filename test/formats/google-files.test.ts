// Google's real files still work everywhere in the default universe (issue 24): what gcloud writes,
// and google-auth-library-nodejs's and -python's own fixtures for the five ADC types
// (test/fixtures/google/README.md names each source). Each is parsed, every URL it names is judged
// Google's (the emulator's with CRED_AUTH_EMULATOR_HOST); those holding their own secrets are taken
// by print-token and default() all the way to the token server (the emulator, which then refuses
// their made-up secrets); the files of another universe are refused unless the user trusts it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { ERROR_CODES } from "cred-auth";
import { readAdcFile } from "../../dist/credentials/kinds/table.js";
import { credentialsTokenUrl } from "../../dist/formats/destinations.js";
import { externalAccountDestinations } from "../../dist/credentials/kinds/federated/file.js";
import { impersonatedDestinations } from "../../dist/credentials/kinds/impersonated/file.js";
import { workforceUserTokenUrl } from "../../dist/credentials/kinds/workforce-user/file.js";
import { trustedUniverse } from "../../dist/trust/urls.js";
import { withEmulator } from "../support/emulator.ts";
import { tempDir } from "../support/files.ts";
import { ROOT, isolatedEnv, runCli, runNode } from "../reliability/support.ts";

const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));
const fixture = (name: string) => join(FIXTURES, name);
const emu = await withEmulator();
const google = trustedUniverse({});
const emulated = trustedUniverse({ CRED_AUTH_EMULATOR_HOST: emu.host });

/** Every Google file, its type, and whether it holds all its secrets (then it can be run against the emulator). */
const FILES: Array<[string, string, "own-secrets" | "subject-token"]> = [
  ["gcloud-adc.json", "authorized_user", "own-secrets"],
  ["google/gcloud/wif-file.json", "external_account", "subject-token"],
  ["google/gcloud/wif-url-impersonated.json", "external_account", "subject-token"],
  ["google/gcloud/workforce-file.json", "external_account", "subject-token"],
  ["google/nodejs/refresh.json", "authorized_user", "own-secrets"],
  ["google/nodejs/config-with-quota-application_default_credentials.json", "authorized_user", "own-secrets"],
  ["google/nodejs/external-account-cred.json", "external_account", "subject-token"],
  ["google/nodejs/external-account-authorized-user-cred.json", "external_account_authorized_user", "own-secrets"],
  ["google/nodejs/impersonated_application_default_credentials.json", "impersonated_service_account", "own-secrets"],
  ["google/nodejs/impersonated-with-scopes.json", "impersonated_service_account", "own-secrets"],
  ["google/python/authorized_user.json", "authorized_user", "own-secrets"],
  ["google/python/authorized_user_cloud_sdk_with_quota_project_id.json", "authorized_user", "own-secrets"],
  ["google/python/authorized_user_with_rapt_token.json", "authorized_user", "own-secrets"],
  ["google/python/external_account_authorized_user.json", "external_account_authorized_user", "own-secrets"],
  [
    "google/python/impersonated_service_account_authorized_user_source.json",
    "impersonated_service_account",
    "own-secrets",
  ],
  [
    "google/python/impersonated_service_account_service_account_source.json",
    "impersonated_service_account",
    "own-secrets",
  ],
  ["google/python/impersonated_service_account_with_quota_project.json", "impersonated_service_account", "own-secrets"],
  ["google/python/service_account.json", "service_account", "own-secrets"],
];

/** Every URL a file would send something to, judged in `universe`. */
function urlsOf(path: string, universe: ReturnType<typeof trustedUniverse>): string[] {
  const file = readAdcFile(path);
  if (file.type === "external_account") {
    const d = externalAccountDestinations(file, universe, path);
    return [d.tokenUrl, d.impersonationUrl, d.cloudResourceManagerUrl].filter((u): u is string => u !== undefined);
  }
  if (file.type === "external_account_authorized_user") return [workforceUserTokenUrl(file, universe, path)];
  if (file.type === "impersonated_service_account") {
    const d = impersonatedDestinations(file, universe, path);
    return [d.iamUrl, d.sourceTokenUrl];
  }
  return [credentialsTokenUrl(file, universe, path)];
}

test("each of Google's files parses as its type; every URL it names is Google's, or the emulator's with the variable", () => {
  for (const [name, type] of FILES) {
    const path = fixture(name);
    assert.equal(readAdcFile(path).type, type, name);
    for (const url of urlsOf(path, google))
      assert.match(
        new URL(url).host,
        /^(sts|iamcredentials|oauth2|cloudresourcemanager)\.googleapis\.com$|^accounts\.google\.com$/,
        `${name}: ${url}`,
      );
    for (const url of urlsOf(path, emulated)) assert.ok(url.startsWith(`${emu.url}/`), `${name}: ${url}`);
  }
});

test("print-token and default() take each self-contained file to the token server (the emulator refuses its made-up secrets)", async (t) => {
  const home = tempDir(t);
  const env = isolatedEnv(home, { CRED_AUTH_EMULATOR_HOST: emu.host, CRED_AUTH_TOKEN_CACHE: "off" });
  const boundary = new RegExp(
    `${ERROR_CODES.FILE_INVALID}|${ERROR_CODES.UNSAFE_TOKEN_URL}|${ERROR_CODES.UNTRUSTED_UNIVERSE}`,
  );
  for (const [name, , secrets] of FILES) {
    if (secrets !== "own-secrets") continue;
    const path = fixture(name);
    const asked = () => emu.stats().tokenRequests + emu.stats().iamRequests;
    const before = asked();
    const cli = await runCli(["print-token", path], { env, killAfterMs: 30_000 });
    assert.equal(cli.code, 1, `${name}: ${cli.stderr}`);
    assert.match(cli.stderr, /invalid_grant|invalid_client|not accepted|refused/, `${name}: ${cli.stderr}`);
    // (python's workforce file names /v1/oauth/token, a path the emulator does not serve: its 404 is STS's answer)
    const answered =
      asked() > before || /Security Token Service refused the token request: server_error/.test(cli.stderr);
    assert.ok(answered, `${name}: print-token reached the token server: ${cli.stderr}`);
    const script = `
      const credAuth = await import(${JSON.stringify(join(ROOT, "dist", "index.mjs"))});
      try { await credAuth.default(["https://www.googleapis.com/auth/cloud-platform"], { hosted: false }); console.log("OK"); }
      catch (e) { console.log(e.code + " " + e.message); }`;
    const reached = asked();
    const lib = await runNode(["--input-type=module", "-e", script], {
      env: { ...env, GOOGLE_APPLICATION_CREDENTIALS: path },
      killAfterMs: 30_000,
    });
    assert.ok(
      asked() > reached || /HTTP 404|Not Found|404/.test(lib.stdout),
      `${name}: default() reached the token server: ${lib.stdout}`,
    );
    assert.doesNotMatch(lib.stdout, boundary, `${name}: ${lib.stdout}`);
  }
});

test("files whose subject token comes from elsewhere pass every check up to reading it", async (t) => {
  const home = tempDir(t);
  const env = isolatedEnv(home, { CRED_AUTH_EMULATOR_HOST: emu.host, CRED_AUTH_TOKEN_CACHE: "off" });
  for (const name of ["google/gcloud/wif-file.json", "google/gcloud/workforce-file.json"]) {
    const cli = await runCli(["print-token", fixture(name)], { env, killAfterMs: 30_000 });
    assert.equal(cli.code, 1, name);
    assert.match(cli.stderr, /The subject-token file "\/var\/run\/secrets\/token" could not be read \(ENOENT\)/, name);
  }
});

test("Google's files of another universe are refused by default and judged in that universe when the user chooses it", () => {
  const nonGdu = fixture("google/python/service_account_non_gdu.json");
  assert.throws(() => urlsOf(nonGdu, google), { code: ERROR_CODES.UNTRUSTED_UNIVERSE });
  assert.deepEqual(urlsOf(nonGdu, trustedUniverse({ GOOGLE_CLOUD_UNIVERSE_DOMAIN: "universe.foo" })), [
    "https://oauth2.universe.foo/token",
  ]);
  assert.throws(() => urlsOf(fixture("google/python/external_account_authorized_user_non_gdu.json"), google), {
    code: ERROR_CODES.UNTRUSTED_UNIVERSE,
  });
});
