// Every token-cache key (src/formats/cache-keys.ts): two configurations that would get different
// tokens never share a key (for external accounts: audience, subject-token type, source and value,
// workforce user project, STS client, impersonation target and lifetime, token URL, scopes), and
// keys derive from secret material, never from public fields alone.
import assert from "node:assert/strict";
import { test } from "node:test";
import { externalCacheKey, impersonatedCacheKey, tokenCacheKey } from "../../dist/formats/cache-keys.js";
import { parseExternalAccount, parseExternalAuthorizedUser } from "../../dist/formats/external-account.js";
import { parseImpersonatedFile } from "../../dist/formats/impersonated-file.js";
import { tokenCacheKey as reExported } from "../../dist/access-token-cache/index.js";
import { sha256Hex } from "../../dist/util/sha256.js";
import { keyFileFields, userFileFields } from "../support/files.ts";

const STS = "https://sts.googleapis.com/v1/token";
const CLOUD = ["https://www.googleapis.com/auth/cloud-platform"];
const IAM = (sa: string) =>
  `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${sa}:generateAccessToken`;
const wifJson = {
  type: "external_account",
  audience: "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/q",
  subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
  credential_source: { file: "/var/run/token" },
};
const key = (
  json: Record<string, unknown>,
  subject = "eyJsubject.token",
  scopes = CLOUD,
  urls: { tokenUrl: string; impersonationUrl?: string } = { tokenUrl: STS },
) => externalCacheKey(parseExternalAccount(json), scopes, urls, subject);

test("external_account: every field that changes the token changes the key; the same configuration keeps it", () => {
  const baseline = key(wifJson);
  assert.match(baseline, /^[0-9a-f]{64}$/);
  assert.equal(key({ ...wifJson }), baseline, "stable");
  assert.equal(key(wifJson, "eyJsubject.token", [...CLOUD, ...CLOUD]), baseline, "scopes deduplicated");
  const variants: Array<[string, string]> = [
    ["audience", key({ ...wifJson, audience: `${wifJson.audience}2` })],
    ["subject_token_type", key({ ...wifJson, subject_token_type: "urn:ietf:params:oauth:token-type:saml2" })],
    ["source file", key({ ...wifJson, credential_source: { file: "/var/run/other" } })],
    [
      "source format",
      key({
        ...wifJson,
        credential_source: { file: "/var/run/token", format: { type: "json", subject_token_field_name: "t" } },
      }),
    ],
    ["source url", key({ ...wifJson, credential_source: { url: "https://idp.example/t" } })],
    ["source headers", key({ ...wifJson, credential_source: { url: "https://idp.example/t", headers: { a: "b" } } })],
    ["subject token", key(wifJson, "eyJrotated.token")],
    ["workforce user project", key({ ...wifJson, workforce_pool_user_project: "p1" })],
    ["workforce user project 2", key({ ...wifJson, workforce_pool_user_project: "p2" })],
    ["client id", key({ ...wifJson, client_id: "c", client_secret: "s" })],
    ["client secret", key({ ...wifJson, client_id: "c", client_secret: "s2" })],
    [
      "impersonation target",
      key({ ...wifJson, service_account_impersonation_url: IAM("a@p.iam.gserviceaccount.com") }, undefined, CLOUD, {
        tokenUrl: STS,
        impersonationUrl: IAM("a@p.iam.gserviceaccount.com"),
      }),
    ],
    [
      "impersonation target 2",
      key({ ...wifJson, service_account_impersonation_url: IAM("b@p.iam.gserviceaccount.com") }, undefined, CLOUD, {
        tokenUrl: STS,
        impersonationUrl: IAM("b@p.iam.gserviceaccount.com"),
      }),
    ],
    [
      "impersonation lifetime",
      key(
        {
          ...wifJson,
          service_account_impersonation_url: IAM("b@p.iam.gserviceaccount.com"),
          service_account_impersonation: { token_lifetime_seconds: 1200 },
        },
        undefined,
        CLOUD,
        { tokenUrl: STS, impersonationUrl: IAM("b@p.iam.gserviceaccount.com") },
      ),
    ],
    ["token url", key(wifJson, undefined, CLOUD, { tokenUrl: "http://127.0.0.1:9/v1/token" })],
    ["scopes", key(wifJson, undefined, ["https://www.googleapis.com/auth/bigquery"])],
  ];
  const seen = new Map<string, string>([[baseline, "baseline"]]);
  for (const [what, k] of variants) {
    assert.ok(!seen.has(k), `${what} collides with ${seen.get(k)}`);
    seen.set(k, what);
  }
});

test("external_account_authorized_user: the refresh token, the client and its secret, the token URL", () => {
  const json = {
    type: "external_account_authorized_user",
    audience: "//iam.googleapis.com/locations/global/workforcePools/w/providers/p",
    client_id: "id",
    client_secret: "GOCSPX-a",
    refresh_token: "1//0ga",
  };
  const k = (extra: Record<string, unknown> = {}, tokenUrl = STS) =>
    externalCacheKey(parseExternalAuthorizedUser({ ...json, ...extra }), CLOUD, { tokenUrl });
  const keys = [
    k(),
    k({ refresh_token: "1//0gb" }),
    k({ client_secret: "GOCSPX-b" }),
    k({ client_id: "id2" }),
    k({}, "http://127.0.0.1:1/t"),
    k({ audience: "x" }),
  ];
  assert.equal(new Set(keys).size, keys.length);
  assert.equal(k(), k());
  // An external_account and an authorized user never share a key, whatever their fields.
  assert.notEqual(key(wifJson), k());
});

const WORKFORCE_USER = {
  type: "external_account_authorized_user",
  audience: "//iam.googleapis.com/locations/global/workforcePools/pool/providers/idp",
  client_id: "workforce-client",
  client_secret: "GOCSPX-workforce",
  refresh_token: "1//0g-workforce-refresh",
};

test("impersonated: the source's secret, the chain, the URL and the scopes; public names alone find nothing", () => {
  const imp = (source: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    parseImpersonatedFile(
      {
        type: "impersonated_service_account",
        service_account_impersonation_url: IAM("t@p.iam.gserviceaccount.com"),
        source_credentials: source,
        ...extra,
      },
      "/x",
    );
  const user = userFileFields();
  const k = (file = imp(user), scopes = CLOUD, url = IAM("t@p.iam.gserviceaccount.com")) =>
    impersonatedCacheKey(file, scopes, url);
  const keys = [
    k(),
    k(imp({ ...user, refresh_token: "other-refresh-token" })),
    k(imp({ ...user, client_secret: "other-secret" })),
    k(imp(user, { delegates: ["d@p.iam.gserviceaccount.com"] })),
    k(imp(user, { service_account_impersonation_url: IAM("u@p.iam.gserviceaccount.com") })),
    k(imp(user), ["https://www.googleapis.com/auth/bigquery"]),
    k(imp(user), CLOUD, "http://127.0.0.1:1/x:generateAccessToken"),
    k(imp(keyFileFields())),
    k(imp(WORKFORCE_USER)),
    k(imp({ ...WORKFORCE_USER, refresh_token: "1//0g-another-workforce-token" })),
    k(imp({ ...WORKFORCE_USER, client_secret: "GOCSPX-another" })),
    k(imp({ ...WORKFORCE_USER, client_id: "another-client" })),
    k(imp({ ...WORKFORCE_USER, audience: "//iam.googleapis.com/locations/global/workforcePools/other/providers/x" })),
  ];
  assert.equal(new Set(keys).size, keys.length);
  assert.equal(k(), k(imp({ ...user })));
});

test("user and key files: the layout every earlier release wrote (a cached token survives the upgrade), one builder", () => {
  assert.equal(reExported, tokenCacheKey, "access-token-cache re-exports the one builder");
  const userKey = tokenCacheKey({ type: "authorized_user", client_id: "c", refresh_token: "r" }, ["b", "a", "a"], "u");
  assert.equal(
    userKey,
    tokenCacheKey({ type: "authorized_user", client_id: "c", refresh_token: "r", token_uri: "u" }, ["a", "b"]),
  );
  assert.notEqual(
    userKey,
    tokenCacheKey({ type: "authorized_user", client_id: "c", refresh_token: "r2" }, ["a", "b"], "u"),
  );
  assert.notEqual(
    tokenCacheKey({ type: "service_account", client_email: "e", private_key_id: "k", private_key: "P1" }, []),
    tokenCacheKey({ type: "service_account", client_email: "e", private_key_id: "k", private_key: "P2" }, []),
    "a forged key with the victim's public fields gets another key",
  );
});

test("user and key files: a sha256 of the secret identity, token URL and the set of scopes, laid out exactly", () => {
  const user = { type: "authorized_user" as const, client_id: "c.apps", refresh_token: "1//0gAbC+/=" };
  const key = tokenCacheKey(user, ["b", "a", "b"]);
  assert.match(key, /^[0-9a-f]{64}$/);
  assert.equal(
    key,
    sha256Hex(JSON.stringify(["cred-auth-token-v2", "authorized_user", "c.apps", "1//0gAbC+/=", "", ["a", "b"]])),
  );
  assert.equal(tokenCacheKey(user, ["a", "b"]), key);
  assert.notEqual(tokenCacheKey({ ...user, refresh_token: "1//0gOther" }, ["a", "b"]), key);
  assert.notEqual(tokenCacheKey(user, ["a", "b"], "http://127.0.0.1:9099/token"), key);
  assert.equal(
    tokenCacheKey({ ...user, token_uri: "https://t/" }, ["a", "b"]),
    tokenCacheKey(user, ["a", "b"], "https://t/"),
  );
  const sa = {
    type: "service_account" as const,
    client_email: "sa@p.iam",
    private_key_id: "kid",
    private_key: "PEM-1",
  };
  assert.equal(
    tokenCacheKey(sa, ["s"]),
    sha256Hex(
      JSON.stringify(["cred-auth-token-v2", "service_account", "sa@p.iam", "kid", sha256Hex("PEM-1"), "", ["s"]]),
    ),
  );
  assert.notEqual(tokenCacheKey({ ...sa, private_key: "PEM-2" }, ["s"]), tokenCacheKey(sa, ["s"]));
  const { private_key_id: _, ...noId } = sa;
  assert.equal(
    tokenCacheKey(noId, []),
    sha256Hex(JSON.stringify(["cred-auth-token-v2", "service_account", "sa@p.iam", "", sha256Hex("PEM-1"), "", []])),
  );
});
