// Every token-cache key (src/formats/cache-keys.ts): two configurations that would get different
// tokens never share a key (for external accounts: audience, subject-token type, source and value,
// workforce user project, STS client, impersonation target and lifetime, token URL, scopes), and
// keys derive from secret material, never from public fields alone.
import assert from "node:assert/strict";
import { test } from "node:test";
import { idTokenCacheKey, idTokenKeyOwner, tokenCacheKey } from "../../dist/formats/cache-keys.js";
import {
  federatedTokenKey as externalCacheKey,
  parseExternalAccount,
} from "../../dist/credentials/kinds/federated/file.js";
import { impersonatedCacheKey, parseImpersonatedFile } from "../../dist/credentials/kinds/impersonated/file.js";
import { parseWorkforceUserFile, workforceUserTokenKey } from "../../dist/credentials/kinds/workforce-user/file.js";
import { tokenCacheKey as reExported } from "../../dist/token-cache/index.js";
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
    workforceUserTokenKey(parseWorkforceUserFile({ ...json, ...extra }), tokenUrl);
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
  assert.equal(reExported, tokenCacheKey, "token-cache re-exports the one builder");
  const userKey = tokenCacheKey({ type: "authorized_user", clientId: "c", refreshToken: "r" }, ["b", "a", "a"], "u");
  assert.equal(
    userKey,
    tokenCacheKey({ type: "authorized_user", clientId: "c", refreshToken: "r", tokenUrl: "u" }, ["a", "b"]),
  );
  assert.notEqual(
    userKey,
    tokenCacheKey({ type: "authorized_user", clientId: "c", refreshToken: "r2" }, ["a", "b"], "u"),
  );
  assert.notEqual(
    tokenCacheKey({ type: "service_account", clientEmail: "e", privateKeyId: "k", privateKey: "P1" }, []),
    tokenCacheKey({ type: "service_account", clientEmail: "e", privateKeyId: "k", privateKey: "P2" }, []),
    "a forged key with the victim's public fields gets another key",
  );
});

test("user and key files: a sha256 of the secret identity, token URL and the set of scopes, laid out exactly", () => {
  const user = { type: "authorized_user" as const, clientId: "c.apps", refreshToken: "1//0gAbC+/=" };
  const key = tokenCacheKey(user, ["b", "a", "b"]);
  assert.match(key, /^[0-9a-f]{64}$/);
  assert.equal(
    key,
    sha256Hex(JSON.stringify(["cred-auth-token-v2", "authorized_user", "c.apps", "1//0gAbC+/=", "", ["a", "b"]])),
  );
  assert.equal(tokenCacheKey(user, ["a", "b"]), key);
  assert.notEqual(tokenCacheKey({ ...user, refreshToken: "1//0gOther" }, ["a", "b"]), key);
  assert.notEqual(tokenCacheKey(user, ["a", "b"], "http://127.0.0.1:9099/token"), key);
  assert.equal(
    tokenCacheKey({ ...user, tokenUrl: "https://t/" }, ["a", "b"]),
    tokenCacheKey(user, ["a", "b"], "https://t/"),
  );
  const sa = {
    type: "service_account" as const,
    clientEmail: "sa@p.iam",
    privateKeyId: "kid",
    privateKey: "PEM-1",
  };
  assert.equal(
    tokenCacheKey(sa, ["s"]),
    sha256Hex(
      JSON.stringify(["cred-auth-token-v2", "service_account", "sa@p.iam", "kid", sha256Hex("PEM-1"), "", ["s"]]),
    ),
  );
  assert.notEqual(tokenCacheKey({ ...sa, privateKey: "PEM-2" }, ["s"]), tokenCacheKey(sa, ["s"]));
  const { privateKeyId: _, ...noId } = sa;
  assert.equal(
    tokenCacheKey(noId, []),
    sha256Hex(JSON.stringify(["cred-auth-token-v2", "service_account", "sa@p.iam", "", sha256Hex("PEM-1"), "", []])),
  );
});

const LAYOUT = "cred-auth-token-v2";
const digest = (parts: unknown[]) => sha256Hex(JSON.stringify(parts));

test("external keys, laid out exactly: absent fields are empty strings, present ones are themselves", () => {
  const file = parseExternalAccount(wifJson);
  const source = JSON.stringify(file.source);
  assert.equal(
    externalCacheKey(file, ["b", "a"], { tokenUrl: STS }, "subject"),
    digest([
      LAYOUT,
      "external_account",
      wifJson.audience,
      wifJson.subject_token_type,
      source,
      sha256Hex("subject"),
      "",
      "",
      sha256Hex(""),
      "",
      "",
      STS,
      ["a", "b"],
    ]),
  );
  const full = parseExternalAccount({
    ...wifJson,
    workforce_pool_user_project: "wp",
    client_id: "cid",
    client_secret: "cs",
    service_account_impersonation_url: IAM("a@p.iam.gserviceaccount.com"),
    service_account_impersonation: { token_lifetime_seconds: 1200 },
  });
  const urls = { tokenUrl: STS, impersonationUrl: IAM("a@p.iam.gserviceaccount.com") };
  assert.equal(
    externalCacheKey(full, [], urls, "subject"),
    digest([
      LAYOUT,
      "external_account",
      wifJson.audience,
      wifJson.subject_token_type,
      source,
      sha256Hex("subject"),
      "wp",
      "cid",
      sha256Hex("cs"),
      urls.impersonationUrl,
      "1200",
      STS,
      [],
    ]),
  );
  const user = parseWorkforceUserFile(WORKFORCE_USER);
  assert.equal(
    workforceUserTokenKey(user, STS),
    digest([
      LAYOUT,
      "external_account_authorized_user",
      WORKFORCE_USER.audience,
      "workforce-client",
      sha256Hex("GOCSPX-workforce"),
      sha256Hex(WORKFORCE_USER.refresh_token),
      STS,
      CLOUD,
    ]),
  );
});

const impersonated = (source: Record<string, unknown>, target = "t@p.iam.gserviceaccount.com") =>
  parseImpersonatedFile(
    {
      type: "impersonated_service_account",
      service_account_impersonation_url: IAM(target),
      source_credentials: source,
      delegates: ["d@p.iam.gserviceaccount.com"],
    },
    "/x",
  );

test("impersonated keys, laid out exactly: a service account source is keyed by its private key, not its name alone", () => {
  const key = keyFileFields();
  const url = IAM("t@p.iam.gserviceaccount.com");
  assert.equal(
    impersonatedCacheKey(impersonated(key), ["s"], url),
    digest([
      LAYOUT,
      "impersonated_service_account",
      "service_account",
      key.client_email,
      sha256Hex(String(key.private_key)),
      "t@p.iam.gserviceaccount.com",
      JSON.stringify(["d@p.iam.gserviceaccount.com"]),
      url,
      ["s"],
    ]),
  );
  // A forged file naming the victim's account with another private key finds none of the victim's tokens.
  const real = impersonated(key);
  const forged = { ...real, source: { ...real.source, privateKey: "a forger's key" } } as typeof real;
  assert.notEqual(impersonatedCacheKey(forged, ["s"], url), impersonatedCacheKey(impersonated(key), ["s"], url));
  const user = userFileFields();
  assert.equal(
    impersonatedCacheKey(impersonated(user), [], url),
    digest([
      LAYOUT,
      "impersonated_service_account",
      "authorized_user",
      user.client_id,
      sha256Hex(String(user.client_secret)),
      sha256Hex(String(user.refresh_token)),
      "t@p.iam.gserviceaccount.com",
      JSON.stringify(["d@p.iam.gserviceaccount.com"]),
      url,
      [],
    ]),
  );
  assert.equal(
    impersonatedCacheKey(impersonated(WORKFORCE_USER), [], url),
    digest([
      LAYOUT,
      "impersonated_service_account",
      "external_account_authorized_user",
      WORKFORCE_USER.audience,
      "workforce-client",
      sha256Hex("GOCSPX-workforce"),
      sha256Hex(WORKFORCE_USER.refresh_token),
      "t@p.iam.gserviceaccount.com",
      JSON.stringify(["d@p.iam.gserviceaccount.com"]),
      url,
      [],
    ]),
  );
});

const ID_LAYOUT = "cred-auth-id-token-v1";

test("idTokenKeyOwner: the credentials' access-token key without scopes, under the ID-token layout, for each kind", () => {
  const user = { type: "authorized_user" as const, clientId: "c", refreshToken: "r" };
  const url = IAM("t@p.iam.gserviceaccount.com");
  const file = impersonated(keyFileFields());
  const wif = parseExternalAccount(wifJson);
  const urls = { tokenUrl: STS, impersonationUrl: url };
  const accessKeys = [
    tokenCacheKey(user, [], "https://t/"),
    impersonatedCacheKey(file, [], url),
    externalCacheKey(wif, [], urls, "s"),
  ];
  for (const accessKey of accessKeys) assert.equal(idTokenKeyOwner(accessKey), digest([ID_LAYOUT, accessKey]));
  // Each kind's owner depends on its own secret: two files of one kind never share an owner.
  const pairs = [
    [accessKeys[0], tokenCacheKey({ ...user, refreshToken: "r2" }, [], "https://t/")],
    [
      accessKeys[1],
      impersonatedCacheKey({ ...file, source: { ...file.source, privateKey: "other" } } as typeof file, [], url),
    ],
    [accessKeys[1], impersonatedCacheKey(impersonated(keyFileFields(), "u@p.iam.gserviceaccount.com"), [], url)],
    [accessKeys[2], externalCacheKey(wif, [], urls, "s2")],
    [accessKeys[2], externalCacheKey(parseExternalAccount({ ...wifJson, audience: "//other" }), [], urls, "s")],
  ] as const;
  for (const [a, b] of pairs) assert.notEqual(idTokenKeyOwner(a ?? ""), idTokenKeyOwner(b));
});

test("idTokenCacheKey: OWNER-REQUEST, the request's audience (none: null) and e-mail claim", () => {
  const accessKey = tokenCacheKey({ type: "service_account", clientEmail: "e", privateKey: "P" }, [], "u");
  const ownerKey = idTokenKeyOwner(accessKey);
  const asked = (audience: string | null, includeEmail: boolean) =>
    digest([ID_LAYOUT, audience, includeEmail]).slice(0, 32);
  assert.equal(
    idTokenCacheKey(accessKey, { audience: "https://a", includeEmail: true }),
    `${ownerKey}-${asked("https://a", true)}`,
  );
  assert.equal(idTokenCacheKey(accessKey, { includeEmail: false }), `${ownerKey}-${asked(null, false)}`);
  assert.equal(idTokenCacheKey(accessKey, { audience: "", includeEmail: false }), `${ownerKey}-${asked("", false)}`);
  assert.match(idTokenCacheKey(accessKey, { includeEmail: false }), /^[0-9a-f]{64}-[0-9a-f]{32}$/);
});
