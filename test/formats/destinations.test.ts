// Where each kind of file may send what it holds (src/formats/destinations.ts): every URL a file
// names is judged by the URL policy after its universe was checked; defaults are Google's in the
// file's universe; a foreign token_info_url, revoke_url or cloud_resource_manager_url is refused
// although cred-auth itself sends nothing there.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ERROR_CODES } from "cred-auth";
import { credentialsTokenUrl, idTokenUrlOf } from "../../dist/formats/destinations.js";
import { credentialsRevokeUrl } from "../../dist/credentials/kinds/user/file.js";
import { externalAccountDestinations, parseExternalAccount } from "../../dist/credentials/kinds/federated/file.js";
import {
  impersonatedDestinations,
  impersonationDestination,
  parseImpersonatedFile,
} from "../../dist/credentials/kinds/impersonated/file.js";
import { parseWorkforceUserFile, workforceUserTokenUrl } from "../../dist/credentials/kinds/workforce-user/file.js";
import { trustedUniverse } from "../../dist/trust/urls.js";
import { keyModel, userFileFields, userModel } from "../support/files.ts";

const google = trustedUniverse({});
const emulated = trustedUniverse({ CRED_AUTH_EMULATOR_HOST: "127.0.0.1:9099" });
const tpc = trustedUniverse({ GOOGLE_CLOUD_UNIVERSE_DOMAIN: "tpc.example" });
const user = (extra: Record<string, unknown> = {}) => userModel(extra);
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
  assert.equal(credentialsTokenUrl(keyModel(), google), "https://oauth2.googleapis.com/token");
  assert.equal(credentialsTokenUrl(user({ universe_domain: "tpc.example" }), tpc), "https://oauth2.tpc.example/token");
  refusedWith(
    () => credentialsTokenUrl(user({ token_uri: "https://evil.example/token" }), google, "/x/adc.json"),
    ERROR_CODES.UNSAFE_TOKEN_URL,
    /^Credentials file "\/x\/adc\.json" names "https:\/\/evil\.example" as its token_uri/,
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
    ["token_url", "https://sts.attacker.example/v1/token", /names "https:\/\/sts\.attacker\.example" as its token_url/],
    [
      "service_account_impersonation_url",
      IAM.replace("googleapis.com", "attacker.example"),
      /as its service_account_impersonation_url/,
    ],
    [
      "cloud_resource_manager_url",
      "https://crm.attacker.example/v1/projects/",
      /names "https:\/\/crm\.attacker\.example" as its cloud_resource_manager_url/,
    ],
    [
      "token_info_url",
      "https://introspect.attacker.example/",
      /names "https:\/\/introspect\.attacker\.example" as its token_info_url/,
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
  assert.equal(workforceUserTokenUrl(parseWorkforceUserFile(json), google), "https://sts.googleapis.com/v1/oauthtoken");
  assert.equal(
    workforceUserTokenUrl(
      parseWorkforceUserFile({
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
      () => workforceUserTokenUrl(parseWorkforceUserFile({ ...json, [field]: "https://evil.example/x" }), google),
      ERROR_CODES.UNSAFE_TOKEN_URL,
      new RegExp(`names "https://evil\\.example" as its ${field}`),
    );
  refusedWith(
    () => workforceUserTokenUrl(parseWorkforceUserFile({ ...json, universe_domain: "x.example" }), google),
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
    /names "https:\/\/evil\.example" as its token_uri/,
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

test("a loopback URL receives a secret only when it is the file's own: every other field is refused without the emulator", () => {
  const local = "http://127.0.0.1:5";
  for (const [field, value] of [
    ["token_url", `${local}/v1/token`],
    ["service_account_impersonation_url", `${local}/v1/projects/-/serviceAccounts/${SA}:generateAccessToken`],
    ["cloud_resource_manager_url", `${local}/v1/projects/`],
    ["token_info_url", `${local}/v1/introspect`],
  ] as const) {
    refusedWith(
      () => externalAccountDestinations(wif({ [field]: value }), google, "/x/wif.json"),
      ERROR_CODES.UNSAFE_TOKEN_URL,
      new RegExp(
        `^Credentials file "/x/wif\\.json" names "http://127\\.0\\.0\\.1:5" as its ${field}, .* \\(http only with CRED_AUTH_EMULATOR_HOST set\\): `,
      ),
    );
  }
  const json = {
    type: "external_account_authorized_user",
    audience: "//iam.googleapis.com/locations/global/workforcePools/w/providers/p",
    client_id: "id",
    client_secret: "GOCSPX-x",
    refresh_token: "1//0g",
  };
  for (const field of ["token_url", "token_info_url", "revoke_url"])
    refusedWith(
      () => workforceUserTokenUrl(parseWorkforceUserFile({ ...json, [field]: `${local}/x` }), google),
      ERROR_CODES.UNSAFE_TOKEN_URL,
      new RegExp(`^The credentials file names "http://127\\.0\\.0\\.1:5" as its ${field}`),
    );
  const imp = parseImpersonatedFile(
    {
      type: "impersonated_service_account",
      service_account_impersonation_url: `${local}/v1/projects/-/serviceAccounts/${SA}:generateAccessToken`,
      source_credentials: userFileFields(),
    },
    "/x/imp.json",
  );
  refusedWith(
    () => impersonatedDestinations(imp, google, "/x/imp.json"),
    ERROR_CODES.UNSAFE_TOKEN_URL,
    /^Credentials file "\/x\/imp\.json" names "http:\/\/127\.0\.0\.1:5" as its service_account_impersonation_url/,
  );
  // The file's own refresh token (or key) may go to a local token server: the token_uri, and an impersonated file's source's.
  const own = parseImpersonatedFile(
    {
      type: "impersonated_service_account",
      service_account_impersonation_url: IAM,
      source_credentials: userFileFields({ token_uri: `${local}/token` }),
    },
    "/x/imp.json",
  );
  assert.deepEqual(impersonatedDestinations(own, google), { iamUrl: IAM, sourceTokenUrl: `${local}/token` });
  refusedWith(
    () =>
      impersonatedDestinations(
        { ...own, source: parseWorkforceUserFile({ ...json, token_url: `${local}/t` }) },
        google,
      ),
    ERROR_CODES.UNSAFE_TOKEN_URL,
    /names "http:\/\/127\.0\.0\.1:5" as its token_url/,
  );
  assert.deepEqual(
    impersonatedDestinations({ ...own, source: parseWorkforceUserFile(json) }, google),
    { iamUrl: IAM, sourceTokenUrl: "https://sts.googleapis.com/v1/oauthtoken" },
    "a workforce user source: STS's oauthtoken",
  );
});

test("external_account: an AWS source's IMDS URLs judged, only those the file names; a subject-token URL with user info refused", () => {
  const aws = (source: Record<string, unknown>) =>
    wif({
      subject_token_type: "urn:ietf:params:aws:token-type:aws4_request",
      credential_source: {
        environment_id: "aws1",
        regional_cred_verification_url:
          "https://sts.{region}.amazonaws.com?Action=GetCallerIdentity&Version=2011-06-15",
        ...source,
      },
    });
  const imds = "http://169.254.169.254/latest";
  const all = {
    region_url: `${imds}/meta-data/placement/availability-zone`,
    url: `${imds}/meta-data/iam/security-credentials`,
    imdsv2_session_token_url: `${imds}/api/token`,
  };
  assert.deepEqual(externalAccountDestinations(aws(all), google).aws, {
    regionUrl: all.region_url,
    credentialsUrl: all.url,
    sessionTokenUrl: all.imdsv2_session_token_url,
  });
  assert.deepEqual(externalAccountDestinations(aws({ url: all.url }), google).aws, { credentialsUrl: all.url });
  assert.deepEqual(externalAccountDestinations(aws({}), google).aws, {});
  assert.deepEqual(externalAccountDestinations(aws({ region_url: all.region_url }), emulated).aws, {
    regionUrl: "http://127.0.0.1:9099/aws-imds/latest/meta-data/placement/availability-zone",
  });
  assert.equal("aws" in externalAccountDestinations(wif(), google), false, "no AWS source: no IMDS URLs");
  for (const [field, name] of [
    ["region_url", "credential_source.region_url"],
    ["url", "credential_source.url"],
    ["imdsv2_session_token_url", "credential_source.imdsv2_session_token_url"],
  ] as const)
    refusedWith(
      () => externalAccountDestinations(aws({ [field]: "http://evil.example/x" }), google, "/x/aws.json"),
      ERROR_CODES.UNSAFE_TOKEN_URL,
      new RegExp(
        `^Credentials file "/x/aws\\.json" has a ${name.replace(".", "\\.")} at "http://evil\\.example", which is not AWS's instance metadata service`,
      ),
    );
  const subject = (url: string) => wif({ credential_source: { url } });
  assert.equal(
    externalAccountDestinations(subject("https://idp.example/token"), google).tokenUrl,
    "https://sts.googleapis.com/v1/token",
  );
  refusedWith(
    () => externalAccountDestinations(subject("https://me:pw@idp.example/token"), google, "/x/wif.json"),
    ERROR_CODES.UNSAFE_TOKEN_URL,
    /^Credentials file "\/x\/wif\.json" has a credential_source\.url with a user name or password in it \(at "https:\/\/idp\.example"\)/,
  );
});

test("credentialsRevokeUrl: Google's beside Google's token endpoint, the emulator's, a local token server's own", () => {
  assert.equal(credentialsRevokeUrl(user(), google), "https://oauth2.googleapis.com/revoke");
  assert.equal(
    credentialsRevokeUrl(user({ universe_domain: "tpc.example" }), tpc),
    "https://oauth2.tpc.example/revoke",
  );
  assert.equal(credentialsRevokeUrl(user(), emulated), "http://127.0.0.1:9099/revoke");
  assert.equal(
    credentialsRevokeUrl(user({ token_uri: "http://127.0.0.1:9099/some/token" }), emulated),
    "http://127.0.0.1:9099/revoke",
    "the emulator's token URL: the emulator's revoke",
  );
  assert.equal(
    credentialsRevokeUrl(user({ token_uri: "http://127.0.0.1:5/a/token" }), google),
    "http://127.0.0.1:5/revoke",
  );
  assert.equal(
    credentialsRevokeUrl(user({ token_uri: "http://127.0.0.1:5/a/token" }), emulated),
    "http://127.0.0.1:5/revoke",
    "another local token server: its own revoke, not the emulator's",
  );
  refusedWith(
    () => credentialsRevokeUrl(user({ token_uri: "https://evil.example/token" }), google, "/x/adc.json"),
    ERROR_CODES.UNSAFE_TOKEN_URL,
    /^Credentials file "\/x\/adc\.json" names "[^"]*" as its token_uri/,
  );
});

test("idTokenUrlOf: the same host and account, generateIdToken; anything but a generateAccessToken URL is a mistake", () => {
  assert.equal(idTokenUrlOf(IAM), IAM.replace(":generateAccessToken", ":generateIdToken"));
  assert.equal(
    idTokenUrlOf(`http://127.0.0.1:9099/v1/projects/-/serviceAccounts/${SA}:generateAccessToken`),
    `http://127.0.0.1:9099/v1/projects/-/serviceAccounts/${SA}:generateIdToken`,
  );
  for (const url of [IAM.replace(":generateAccessToken", ":signBlob"), `${IAM}/x`, "https://x/:generateAccessTokens"])
    assert.throws(
      () => idTokenUrlOf(url),
      (error: Error) => error instanceof TypeError && error.message === "not a judged generateAccessToken URL",
      url,
    );
});
