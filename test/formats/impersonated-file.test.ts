// impersonated_service_account files as gcloud writes them: parsed with their source of either
// type, refused field by field with a coded one-line error naming the file and no secret; the
// file cred-auth writes is gcloud's shape and reads back; the IAM Credentials URL is checked.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { CredCredentialsError, ERROR_CODES } from "cred-auth";
import { assertNoSecrets, keyFileFields, tempDir, userFileFields, userModel } from "../support/files.ts";

import { readAdcFile } from "../../dist/credentials/kinds/table.js";
import {
  impersonatedDestinations,
  impersonatedFileJson,
  parseImpersonatedFile,
} from "../../dist/credentials/kinds/impersonated/file.js";
import { trustedUniverse } from "../../dist/trust/urls.js";

const SA = "deployer@my-project.iam.gserviceaccount.com";
const URL_OF_SA = `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${SA}:generateAccessToken`;

/** What `gcloud auth application-default login --impersonate-service-account A,SA` writes (keys sorted). */
function gcloudFile(source: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    delegates: ["a@my-project.iam.gserviceaccount.com"],
    service_account_impersonation_url: URL_OF_SA,
    source_credentials: source,
    type: "impersonated_service_account",
    ...extra,
  };
}

test("a gcloud file with a user source: target from the URL, delegates, universe, no scopes", () => {
  const file = parseImpersonatedFile(gcloudFile(userFileFields()), "/x/adc.json");
  assert.equal(file.type, "impersonated_service_account");
  assert.equal(file.target, SA);
  assert.deepEqual(file.delegates, ["a@my-project.iam.gserviceaccount.com"]);
  assert.equal(file.source.type, "authorized_user");
  assert.equal(file.impersonationUrl, URL_OF_SA);
  assert.equal(file.universeDomain, "googleapis.com");
  assert.equal(file.scopes, undefined);
  assert.equal(file.quotaProjectId, undefined);
});

test("a service-account source, no delegates, a URL-encoded target, quota project and scopes", () => {
  const encoded = URL_OF_SA.replace("@", "%40");
  const file = parseImpersonatedFile(
    {
      type: "impersonated_service_account",
      service_account_impersonation_url: encoded,
      source_credentials: keyFileFields(),
      quota_project_id: "billing-project",
      scopes: ["https://www.googleapis.com/auth/bigquery"],
    },
    "/x/adc.json",
  );
  assert.equal(file.source.type, "service_account");
  assert.equal(file.target, SA);
  assert.deepEqual(file.delegates, []);
  assert.equal(file.quotaProjectId, "billing-project");
  assert.deepEqual(file.scopes, ["https://www.googleapis.com/auth/bigquery"]);
});

/** A workforce user's file, as `gcloud auth application-default login --login-config` writes it. */
const WORKFORCE_USER = {
  type: "external_account_authorized_user",
  audience: "//iam.googleapis.com/locations/global/workforcePools/pool/providers/idp",
  client_id: "workforce-client",
  client_secret: "GOCSPX-workforce/secret+with=",
  refresh_token: "1//0g-workforce-refresh/token+x=",
  token_url: "https://sts.googleapis.com/v1/oauthtoken",
  universe_domain: "googleapis.com",
};

test("a workforce user's source (external_account_authorized_user), as google-auth-library and Python accept it", () => {
  const file = parseImpersonatedFile(gcloudFile(WORKFORCE_USER), "/x/adc.json");
  assert.equal(file.source.type, "external_account_authorized_user");
  assert.equal(file.target, SA);
  assert.equal(file.universeDomain, "googleapis.com");
  const other = parseImpersonatedFile(gcloudFile({ ...WORKFORCE_USER, universe_domain: "example-universe.com" }), "/x");
  assert.equal(other.universeDomain, "example-universe.com", "the source's universe is the file's");
  assert.throws(
    () => parseImpersonatedFile(gcloudFile({ ...WORKFORCE_USER, refresh_token: "" }), "/x/adc.json"),
    (error: unknown) =>
      error instanceof CredCredentialsError &&
      error.code === ERROR_CODES.FILE_INVALID &&
      /"\/x\/adc\.json" has no "refresh_token" string/.test(error.message),
  );
  assert.throws(
    () => parseImpersonatedFile(gcloudFile({ ...WORKFORCE_USER, type: "external_account" }), "/x/adc.json"),
    (error: unknown) => error instanceof CredCredentialsError && error.code === ERROR_CODES.FILE_INVALID,
    "an external_account (workload) source is not one gcloud writes",
  );
  const emulated = trustedUniverse({ CRED_AUTH_EMULATOR_HOST: "127.0.0.1:9099" });
  assert.equal(impersonatedDestinations(file, emulated).sourceTokenUrl, "http://127.0.0.1:9099/v1/oauthtoken");
  assert.equal(
    impersonatedDestinations(file, trustedUniverse({})).sourceTokenUrl,
    "https://sts.googleapis.com/v1/oauthtoken",
  );
  assert.throws(
    () =>
      impersonatedDestinations(
        parseImpersonatedFile(gcloudFile({ ...WORKFORCE_USER, token_url: "https://sts.evil.example/t" }), "/x"),
        trustedUniverse({}),
      ),
    (error: unknown) => (error as { code?: string }).code === ERROR_CODES.UNSAFE_TOKEN_URL,
  );
});

test("each broken field: CredCredentialsError, FILE_INVALID, the file named, one line, no secret", () => {
  const path = "/home/me/adc.json";
  const broken: Array<[string, Record<string, unknown>, RegExp]> = [
    ["no source", gcloudFile(userFileFields(), { source_credentials: undefined }), /"source_credentials" object/],
    ["source a list", gcloudFile(userFileFields(), { source_credentials: [] }), /"source_credentials" object/],
    ["source without secret", gcloudFile(userFileFields({ client_secret: undefined })), /client_secret/],
    ["source of another type", gcloudFile({ type: "external_account" }), /external_account/],
    ["no URL", gcloudFile(userFileFields(), { service_account_impersonation_url: undefined }), /impersonation_url/],
    [
      "URL without the method",
      gcloudFile(userFileFields(), {
        service_account_impersonation_url: URL_OF_SA.replace(":generateAccessToken", ""),
      }),
      /ACCOUNT:generateAccessToken/,
    ],
    [
      "URL over 256 characters",
      gcloudFile(userFileFields(), {
        service_account_impersonation_url: `${"x".repeat(250)}/${SA}:generateAccessToken`,
      }),
      /impersonation_url/,
    ],
    ["delegates a string", gcloudFile(userFileFields(), { delegates: SA }), /"delegates"/],
    ["a delegate empty", gcloudFile(userFileFields(), { delegates: [" "] }), /"delegates"/],
    ["a delegate a number", gcloudFile(userFileFields(), { delegates: [7] }), /"delegates"/],
    ["quota project a number", gcloudFile(userFileFields(), { quota_project_id: 7 }), /quota_project_id/],
    ["scopes a string", gcloudFile(userFileFields(), { scopes: "x" }), /"scopes"/],
    ["a scope empty", gcloudFile(userFileFields(), { scopes: [""] }), /"scopes"/],
  ];
  for (const [what, json, problem] of broken) {
    assert.throws(
      () => parseImpersonatedFile(json, path),
      (error: unknown) => {
        assert.ok(error instanceof CredCredentialsError, `${what}: ${String(error)}`);
        assert.equal(error.code, ERROR_CODES.FILE_INVALID, what);
        assert.match(error.message, problem, what);
        assert.ok(error.message.includes(JSON.stringify(path)), `${what}: names the file: ${error.message}`);
        assert.ok(!error.message.includes("\n"), what);
        assertNoSecrets(error.message);
        return true;
      },
    );
  }
});

test("the file cred-auth writes is gcloud's shape, reads back through readAdcFile, keeps scopes when given", (t) => {
  const source = userModel({ token_uri: "https://oauth2.googleapis.com/token", account: "alice@example.com" });
  const chain = {
    target: SA,
    delegates: ["a@my-project.iam.gserviceaccount.com", "b@my-project.iam.gserviceaccount.com"],
  };
  const text = impersonatedFileJson(source, chain);
  const json = JSON.parse(text) as Record<string, unknown>;
  assert.deepEqual(Object.keys(json), "delegates service_account_impersonation_url source_credentials type".split(" "));
  assert.equal(json.service_account_impersonation_url, URL_OF_SA);
  assert.deepEqual(json.delegates, chain.delegates);
  assert.equal((json.source_credentials as Record<string, unknown>).refresh_token, source.refreshToken);
  const path = join(tempDir(t), "adc.json");
  writeFileSync(path, text);
  const read = readAdcFile(path);
  assert.equal(read.type, "impersonated_service_account");
  assert.ok(read.type === "impersonated_service_account" && read.target === SA);

  const scoped = JSON.parse(impersonatedFileJson(source, chain, ["https://www.googleapis.com/auth/drive"]));
  assert.deepEqual(scoped.scopes, ["https://www.googleapis.com/auth/drive"]);
});

test("the IAM Credentials URL: Google's passes, the emulator stands in for it, any other host is refused", () => {
  const iamUrl = (url: string, env: NodeJS.ProcessEnv) =>
    impersonatedDestinations(
      parseImpersonatedFile(gcloudFile(userFileFields(), { service_account_impersonation_url: url }), "/x/adc.json"),
      trustedUniverse(env),
      "/x/adc.json",
    ).iamUrl;
  assert.equal(iamUrl(URL_OF_SA, {}), URL_OF_SA);
  const env = { CRED_AUTH_EMULATOR_HOST: "127.0.0.1:9099" };
  assert.equal(iamUrl(URL_OF_SA, env), `http://127.0.0.1:9099/v1/projects/-/serviceAccounts/${SA}:generateAccessToken`);
  const refused = [
    [URL_OF_SA.replace("iamcredentials", "sts"), {}],
    [
      URL_OF_SA.replace("https://iamcredentials.googleapis.com", "https://iamcredentials.googleapis.com.evil.example"),
      {},
    ],
    [URL_OF_SA.replace("https:", "http:"), {}],
    [URL_OF_SA.replace("https://", "https://user@"), {}],
    [URL_OF_SA.replace("googleapis.com", "googleapis.com:8443"), {}],
    [`http://127.0.0.1:9099/v1/${SA}:generateAccessToken`, {}],
    [`http://10.0.0.1:9099/v1/${SA}:generateAccessToken`, env],
  ] as const;
  for (const [url, withEnv] of refused) {
    assert.throws(
      () => iamUrl(url, withEnv),
      (error: unknown) =>
        (error as { code?: string }).code === ERROR_CODES.UNSAFE_TOKEN_URL &&
        /service_account_impersonation_url/.test((error as Error).message),
      url,
    );
  }
});
