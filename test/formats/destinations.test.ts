// Where each kind of file may send what it holds (src/formats/destinations.ts): every URL a file
// names is judged by the URL policy after its universe was checked; defaults are Google's in the
// file's universe; a foreign token_info_url, revoke_url or cloud_resource_manager_url is refused
// although cred-auth itself sends nothing there.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ERROR_CODES } from "cred-auth";
import {
  credentialsTokenUrl,
  externalAccountDestinations,
  externalAuthorizedUserTokenUrl,
  impersonatedDestinations,
} from "../../dist/formats/destinations.js";
import { parseExternalAccount, parseExternalAuthorizedUser } from "../../dist/formats/external-account.js";
import { impersonationDestination, parseImpersonatedFile } from "../../dist/formats/impersonated-file.js";
import { trustedUniverse } from "../../dist/trust/urls.js";
import { keyFileFields, userFileFields } from "../support/files.ts";

const google = trustedUniverse({});
const emulated = trustedUniverse({ CRED_AUTH_EMULATOR_HOST: "127.0.0.1:9099" });
const tpc = trustedUniverse({ GOOGLE_CLOUD_UNIVERSE_DOMAIN: "tpc.example" });
const user = (extra: Record<string, unknown> = {}) => userFileFields(extra) as never;
const SA = "sa@p.iam.gserviceaccount.com";
const IAM = `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${SA}:generateAccessToken`;
const wif = (extra: Record<string, unknown> = {}) =>
  parseExternalAccount({
    type: "external_account",
    audience: "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/q",
    subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
    credential_source: { file: "/t" },
    ...extra,
  });

function refusedWith(run: () => unknown, code: string, message: RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.equal((error as { code?: string }).code, code, String(error));
    assert.match((error as Error).message, message);
    return true;
  });
}

test("authorized_user and service_account: the token_uri, Google's by default, a local one allowed (the file's own secret)", () => {
  assert.equal(credentialsTokenUrl(user(), google), "https://oauth2.googleapis.com/token");
  assert.equal(credentialsTokenUrl(user(), emulated), "http://127.0.0.1:9099/token");
  assert.equal(
    credentialsTokenUrl(user({ token_uri: "https://oauth2.googleapis.com/token" }), emulated),
    "http://127.0.0.1:9099/token",
  );
  assert.equal(
    credentialsTokenUrl(user({ token_uri: "http://127.0.0.1:5/token" }), google),
    "http://127.0.0.1:5/token",
  );
  assert.equal(credentialsTokenUrl(keyFileFields() as never, google), "https://oauth2.googleapis.com/token");
  assert.equal(credentialsTokenUrl(user({ universe_domain: "tpc.example" }), tpc), "https://oauth2.tpc.example/token");
  refusedWith(
    () => credentialsTokenUrl(user({ token_uri: "https://evil.example/token" }), google, "/x/adc.json"),
    ERROR_CODES.UNSAFE_TOKEN_URL,
    /^Credentials file "\/x\/adc\.json" has a token_uri at "https:\/\/evil\.example"/,
  );
  refusedWith(
    () =>
      credentialsTokenUrl(
        user({ universe_domain: "attacker.example", token_uri: "https://oauth2.attacker.example/token" }),
        google,
      ),
    ERROR_CODES.UNTRUSTED_UNIVERSE,
    /is for the universe "attacker\.example", but cred-auth trusts "googleapis\.com"/,
  );
  refusedWith(() => credentialsTokenUrl(user(), tpc), ERROR_CODES.UNTRUSTED_UNIVERSE, /universe "googleapis\.com"/);
});

test("external_account: STS, IAM Credentials and Resource Manager judged; token_info_url judged though never asked", () => {
  assert.deepEqual(externalAccountDestinations(wif(), google), {
    tokenUrl: "https://sts.googleapis.com/v1/token",
    cloudResourceManagerUrl: "https://cloudresourcemanager.googleapis.com/v1/projects/",
  });
  assert.deepEqual(
    externalAccountDestinations(
      wif({ service_account_impersonation_url: IAM, token_info_url: "https://sts.googleapis.com/v1/introspect" }),
      emulated,
    ),
    {
      tokenUrl: "http://127.0.0.1:9099/v1/token",
      impersonationUrl: `http://127.0.0.1:9099/v1/projects/-/serviceAccounts/${SA}:generateAccessToken`,
      cloudResourceManagerUrl: "http://127.0.0.1:9099/v1/projects/",
    },
  );
  assert.deepEqual(externalAccountDestinations(wif({ universe_domain: "tpc.example" }), tpc), {
    tokenUrl: "https://sts.tpc.example/v1/token",
    cloudResourceManagerUrl: "https://cloudresourcemanager.tpc.example/v1/projects/",
  });
  for (const [field, value, message] of [
    ["token_url", "https://sts.attacker.example/v1/token", /has a token_url at "https:\/\/sts\.attacker\.example"/],
    [
      "service_account_impersonation_url",
      IAM.replace("googleapis.com", "attacker.example"),
      /has a service_account_impersonation_url at/,
    ],
    [
      "cloud_resource_manager_url",
      "https://crm.attacker.example/v1/projects/",
      /has a cloud_resource_manager_url at "https:\/\/crm\.attacker\.example"/,
    ],
    [
      "token_info_url",
      "https://introspect.attacker.example/",
      /has a token_info_url at "https:\/\/introspect\.attacker\.example"/,
    ],
  ] as const)
    refusedWith(
      () => externalAccountDestinations(wif({ [field]: value }), google, "/x/wif.json"),
      ERROR_CODES.UNSAFE_TOKEN_URL,
      message,
    );
  refusedWith(
    () =>
      externalAccountDestinations(
        wif({ universe_domain: "attacker.example", token_url: "https://sts.attacker.example/v1/token" }),
        google,
      ),
    ERROR_CODES.UNTRUSTED_UNIVERSE,
    /to trust "attacker\.example", set GOOGLE_CLOUD_UNIVERSE_DOMAIN=attacker\.example/,
  );
});

test("external_account_authorized_user: STS's oauthtoken; a foreign token_info_url or revoke_url is refused", () => {
  const json = {
    type: "external_account_authorized_user",
    audience: "//iam.googleapis.com/locations/global/workforcePools/w/providers/p",
    client_id: "id",
    client_secret: "GOCSPX-x",
    refresh_token: "1//0g",
  };
  assert.equal(
    externalAuthorizedUserTokenUrl(parseExternalAuthorizedUser(json), google),
    "https://sts.googleapis.com/v1/oauthtoken",
  );
  assert.equal(
    externalAuthorizedUserTokenUrl(
      parseExternalAuthorizedUser({
        ...json,
        token_info_url: "https://sts.googleapis.com/v1/introspect",
        revoke_url: "https://sts.googleapis.com/v1/oauthtoken/revoke",
      }),
      google,
    ),
    "https://sts.googleapis.com/v1/oauthtoken",
  );
  for (const field of ["token_info_url", "revoke_url", "token_url"])
    refusedWith(
      () =>
        externalAuthorizedUserTokenUrl(
          parseExternalAuthorizedUser({ ...json, [field]: "https://evil.example/x" }),
          google,
        ),
      ERROR_CODES.UNSAFE_TOKEN_URL,
      new RegExp(`has a ${field} at "https://evil\\.example"`),
    );
  refusedWith(
    () =>
      externalAuthorizedUserTokenUrl(parseExternalAuthorizedUser({ ...json, universe_domain: "x.example" }), google),
    ERROR_CODES.UNTRUSTED_UNIVERSE,
    /universe "x\.example"/,
  );
});

test("impersonated_service_account: IAM Credentials and the source's token URL; the option's URL in the trusted universe", () => {
  const file = (extra: Record<string, unknown> = {}, source = userFileFields()) =>
    parseImpersonatedFile(
      {
        type: "impersonated_service_account",
        service_account_impersonation_url: IAM,
        source_credentials: source,
        ...extra,
      },
      "/x/imp.json",
    );
  assert.deepEqual(impersonatedDestinations(file(), google), {
    iamUrl: IAM,
    sourceTokenUrl: "https://oauth2.googleapis.com/token",
  });
  assert.deepEqual(impersonatedDestinations(file(), emulated), {
    iamUrl: `http://127.0.0.1:9099/v1/projects/-/serviceAccounts/${SA}:generateAccessToken`,
    sourceTokenUrl: "http://127.0.0.1:9099/token",
  });
  refusedWith(
    () =>
      impersonatedDestinations(
        file({}, userFileFields({ token_uri: "https://evil.example/t" })),
        google,
        "/x/imp.json",
      ),
    ERROR_CODES.UNSAFE_TOKEN_URL,
    /has a token_uri at "https:\/\/evil\.example"/,
  );
  refusedWith(
    () => impersonatedDestinations(file({}, userFileFields({ universe_domain: "attacker.example" })), google),
    ERROR_CODES.UNTRUSTED_UNIVERSE,
    /universe "attacker\.example"/,
  );
  assert.equal(impersonationDestination(SA, google), IAM);
  assert.equal(
    impersonationDestination(SA, tpc),
    `https://iamcredentials.tpc.example/v1/projects/-/serviceAccounts/${SA}:generateAccessToken`,
  );
  assert.equal(
    impersonationDestination(SA, emulated),
    `http://127.0.0.1:9099/v1/projects/-/serviceAccounts/${SA}:generateAccessToken`,
  );
});
