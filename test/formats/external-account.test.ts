// The shapes of external_account and external_account_authorized_user files (src/formats/external-account.ts):
// every field read and checked, defaults in the file's own universe, every malformed field a coded
// one-line FILE_INVALID naming the file (escaped) and no secret. Google's real files: test/formats/google-files.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CredCredentialsError, ERROR_CODES } from "cred-auth";
import { isObject } from "../../dist/formats/fields.js";
import { parseExternalAccount } from "../../dist/credentials/kinds/federated/file.js";
import { parseWorkforceUserFile } from "../../dist/credentials/kinds/workforce-user/file.js";

const AUDIENCE = "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/q";
const JWT = "urn:ietf:params:oauth:token-type:jwt";
const SA_URL =
  "https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/sa@p.iam.gserviceaccount.com:generateAccessToken";
const base = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: "external_account",
  audience: AUDIENCE,
  subject_token_type: JWT,
  credential_source: { file: "/var/run/token" },
  ...extra,
});

function refused(run: () => unknown, problem: RegExp, path?: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof CredCredentialsError, String(error));
    assert.equal(error.code, ERROR_CODES.FILE_INVALID);
    assert.match(error.message, problem);
    assert.ok(error.message.endsWith("; write it again with gcloud or your administrator's config."), error.message);
    const prefix = path === undefined ? "Credentials file has" : `Credentials file "${path}" `;
    assert.ok(error.message.startsWith(prefix), `${prefix}: ${error.message}`);
    assert.ok(!["\r", "\n", "\u001b"].some((c) => error.message.includes(c)), "one line, no control character");
    return true;
  });
}

test("a minimal file: the defaults are Google's STS in the file's universe, nothing else set", () => {
  assert.deepEqual(parseExternalAccount(base()), {
    type: "external_account",
    audience: AUDIENCE,
    subjectTokenType: JWT,
    tokenUrl: "https://sts.googleapis.com/v1/token",
    source: { kind: "file", file: "/var/run/token" },
    universeDomain: "googleapis.com",
  });
  const other = parseExternalAccount(base({ universe_domain: "tpc.example" }));
  assert.equal(other.tokenUrl, "https://sts.tpc.example/v1/token");
  assert.equal(other.universeDomain, "tpc.example");
});

test("every field cred-auth reads is kept, each checked; null optional fields are absent", () => {
  const file = parseExternalAccount(
    base({
      token_url: "https://sts.googleapis.com/v1/oauthtoken",
      service_account_impersonation_url: SA_URL,
      service_account_impersonation: { token_lifetime_seconds: 600 },
      workforce_pool_user_project: "my-project",
      client_id: "client-id",
      client_secret: "GOCSPX-client/secret+=",
      cloud_resource_manager_url: "https://cloudresourcemanager.googleapis.com/v1/projects/",
      token_info_url: "https://sts.googleapis.com/v1/introspect",
      quota_project_id: "quota",
      universe_domain: "googleapis.com",
      credential_source: {
        url: "http://169.254.169.254/token",
        headers: { Metadata: "True" },
        format: { type: "json", subject_token_field_name: "access_token" },
      },
      ignored_field: "not read",
    }),
    "/x/wif.json",
  );
  assert.deepEqual(file, {
    type: "external_account",
    audience: AUDIENCE,
    subjectTokenType: JWT,
    tokenUrl: "https://sts.googleapis.com/v1/oauthtoken",
    source: {
      kind: "url",
      url: "http://169.254.169.254/token",
      headers: { Metadata: "True" },
      jsonField: "access_token",
    },
    universeDomain: "googleapis.com",
    serviceAccountImpersonationUrl: SA_URL,
    impersonationTarget: "sa@p.iam.gserviceaccount.com",
    impersonationLifetimeSec: 600,
    workforcePoolUserProject: "my-project",
    clientId: "client-id",
    clientSecret: "GOCSPX-client/secret+=",
    cloudResourceManagerUrl: "https://cloudresourcemanager.googleapis.com/v1/projects/",
    tokenInfoUrl: "https://sts.googleapis.com/v1/introspect",
    quotaProjectId: "quota",
  });
  const nulls = parseExternalAccount(base({ token_info_url: null, quota_project_id: null, client_id: null }));
  assert.equal("tokenInfoUrl" in nulls || "quotaProjectId" in nulls || "clientId" in nulls, false);
  assert.equal(
    parseExternalAccount(base({ service_account_impersonation: { token_lifetime_seconds: 43200 } }))
      .impersonationLifetimeSec,
    undefined,
    "a lifetime without impersonation means nothing",
  );
  assert.deepEqual(
    parseExternalAccount(base({ service_account_impersonation_url: SA_URL, service_account_impersonation: {} })),
    {
      ...parseExternalAccount(base()),
      serviceAccountImpersonationUrl: SA_URL,
      impersonationTarget: "sa@p.iam.gserviceaccount.com",
    },
    "no lifetime asked: none kept, not even as undefined",
  );
  assert.equal(
    parseExternalAccount(
      base({
        service_account_impersonation_url: SA_URL,
        service_account_impersonation: { token_lifetime_seconds: 43200 },
      }),
    ).impersonationLifetimeSec,
    43200,
  );
});

test("subject-token sources: a file or an http(s) URL, text or JSON; a text format names no field", () => {
  assert.deepEqual(parseExternalAccount(base({ credential_source: { file: "/t", format: { type: "text" } } })).source, {
    kind: "file",
    file: "/t",
  });
  assert.deepEqual(
    parseExternalAccount(
      base({ credential_source: { file: "/t", format: { type: "json", subject_token_field_name: "id_token" } } }),
    ).source,
    { kind: "file", file: "/t", jsonField: "id_token" },
  );
  assert.deepEqual(
    parseExternalAccount(base({ credential_source: { url: "https://idp.example/token" } })).source,
    { kind: "url", url: "https://idp.example/token", headers: {} },
    "no headers: none sent",
  );
  assert.deepEqual(
    parseExternalAccount(
      base({ credential_source: { file: "", url: "https://idp.example/t", format: { type: "text" } } }),
    ).source,
    { kind: "url", url: "https://idp.example/t", headers: {} },
    "an empty file field is no file",
  );
});

/** An external_account file whose subject token comes from a URL sent with `headers`. */
const withHeaders = (headers: unknown) => base({ credential_source: { url: "https://idp.example/t", headers } });
const HEADER_SECRET = "hdr-S3cret-0042";
const NOT_CARRIED =
  /value holding a character no HTTP header can carry \(CR, LF, NUL, another control character or one above U\+00FF; the value is not shown\)/;

test("credential_source.headers: every value HTTP carries is kept as written (RFC 9110 field-value, as Google's libraries send it)", () => {
  const headers = {
    // Every mark RFC 9110's token allows, and the ends of each range of letters and digits.
    "!#$%&'*+-.^_`|~09AZaz": "v",
    Tabs: "\tBearer\tx\t",
    Spaces: " padded ",
    ObsText: "caf\u00e9 \u0080\u00ff",
    Visible: "!~",
    Empty: "",
  };
  assert.deepEqual(parseExternalAccount(withHeaders(headers)).source, {
    kind: "url",
    url: "https://idp.example/t",
    headers,
  });
  assert.deepEqual(parseExternalAccount(withHeaders(null)).source, {
    kind: "url",
    url: "https://idp.example/t",
    headers: {},
  });
});

test("credential_source.headers: a value HTTP cannot carry is refused when read, the field named, the value never shown", () => {
  const path = "/home/me/wif.json";
  for (const bad of [
    "\r\nX-Injected: 1",
    "\n",
    "\r",
    "\u0000",
    "\u0008",
    "\u001f",
    "\u007f",
    "\u0100",
    "\u20ac",
    "\ud83d\ude00",
  ]) {
    const value = `Bearer ${HEADER_SECRET}${bad}`;
    refused(
      () => parseExternalAccount(withHeaders({ Metadata: "True", Authorization: value }), path),
      new RegExp(
        `^Credentials file "/home/me/wif\\.json" has a "credential_source\\.headers\\.Authorization" ${NOT_CARRIED.source}; write`,
      ),
      path,
    );
    assert.throws(
      () => parseExternalAccount(withHeaders({ Authorization: value })),
      (error: Error) => !error.message.includes(HEADER_SECRET) && !error.message.includes("Injected"),
      JSON.stringify(bad),
    );
  }
});

test("credential_source.headers: a name that is no RFC 9110 token is refused, shown only up to its first wrong character", () => {
  const path = "/home/me/wif.json";
  const cases: Array<[string, string]> = [
    [`Authorization: Bearer ${HEADER_SECRET}`, 'starting "Authorization:"'],
    ["Authorization:", '"Authorization:"'],
    [" Authorization", 'starting " "'],
    ["", '""'],
    ["X\u001b]0;owned\u0007", 'starting "X\\u001b"'],
    ["X-\u00e9", '"X-\u00e9"'],
    ...[...'"(),/:;<=>?@[\\]{}\t'].map((c): [string, string] => [`A${c}`, JSON.stringify(`A${c}`)]),
  ];
  for (const [name, shown] of cases) {
    const escaped = shown.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    refused(
      () => parseExternalAccount(withHeaders({ [name]: "v" }), path),
      new RegExp(
        `has a "credential_source\\.headers" name ${escaped} that is not a HTTP header name \\(RFC 9110: letters, digits and !#\\$%&'\\*\\+-\\.\\^_\`\\|~ only\\); write`,
      ),
      path,
    );
  }
  assert.throws(
    () => parseExternalAccount(withHeaders({ [`Authorization: Bearer ${HEADER_SECRET}`]: "v" })),
    (error: Error) => !error.message.includes(HEADER_SECRET),
  );
});

const VERIFY = "https://sts.{region}.amazonaws.com?Action=GetCallerIdentity&Version=2011-06-15";

test("an AWS source (environment_id aws1): its verification URL and IMDS URLs as written, judged where used", () => {
  const imds = "http://169.254.169.254/latest";
  const source = {
    environment_id: "aws1",
    region_url: `${imds}/meta-data/placement/availability-zone`,
    url: `${imds}/meta-data/iam/security-credentials`,
    imdsv2_session_token_url: `${imds}/api/token`,
    regional_cred_verification_url: VERIFY,
  };
  assert.deepEqual(parseExternalAccount(base({ credential_source: source })).source, {
    kind: "aws",
    verificationUrl: VERIFY,
    regionUrl: source.region_url,
    credentialsUrl: source.url,
    sessionTokenUrl: source.imdsv2_session_token_url,
  });
  assert.deepEqual(
    parseExternalAccount(
      base({ credential_source: { environment_id: "aws1", regional_cred_verification_url: VERIFY } }),
    ).source,
    { kind: "aws", verificationUrl: VERIFY },
    "keys and region from the environment only",
  );
});

test("each malformed field: FILE_INVALID naming the file and the field", () => {
  const path = "/home/me/wif.json";
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [base({ audience: undefined }), /has no "audience" string/],
    [base({ audience: "" }), /has no "audience" string/],
    [base({ audience: 7 }), /has no "audience" string/],
    [base({ subject_token_type: null }), /has no "subject_token_type" string/],
    [base({ token_url: 7 }), /has no "token_url" string/],
    [base({ token_url: "" }), /has no "token_url" string/],
    [base({ universe_domain: ["x"] }), /has no "universe_domain" string/],
    [base({ workforce_pool_user_project: 1 }), /has no "workforce_pool_user_project" string/],
    [base({ client_id: {} }), /has no "client_id" string/],
    [base({ client_secret: 5 }), /has no "client_secret" string/],
    [base({ cloud_resource_manager_url: false }), /has no "cloud_resource_manager_url" string/],
    [base({ token_info_url: 1 }), /has no "token_info_url" string/],
    [base({ quota_project_id: [] }), /has no "quota_project_id" string/],
    [base({ service_account_impersonation_url: 3 }), /has no "service_account_impersonation_url" string/],
    [
      base({ service_account_impersonation_url: SA_URL.replace(":generateAccessToken", "") }),
      /has a "service_account_impersonation_url" that does not end in ACCOUNT:generateAccessToken/,
    ],
    [base({ credential_source: undefined }), /has no "credential_source" object/],
    [base({ credential_source: [] }), /has no "credential_source" object/],
    [base({ credential_source: "file" }), /has no "credential_source" object/],
    [
      base({ credential_source: {} }),
      /has a "credential_source" with neither "file" nor "url" \(cred-auth reads these two\)/,
    ],
    [
      base({ credential_source: { environment_id: "aws1", region_url: "http://169.254.169.254" } }),
      /has no "regional_cred_verification_url" string/,
    ],
    [
      base({ credential_source: { environment_id: "aws2", regional_cred_verification_url: VERIFY } }),
      /AWS version 2; only "aws1" exists/,
    ],
    [
      base({ credential_source: { environment_id: "azure1", url: "https://x/" } }),
      /"credential_source\.environment_id" that is not "aws1"/,
    ],
    [base({ credential_source: { environment_id: 1 } }), /"credential_source\.environment_id" that is not "aws1"/],
    [
      base({
        credential_source: { environment_id: "aws1", regional_cred_verification_url: "http://sts.amazonaws.com" },
      }),
      /"credential_source\.regional_cred_verification_url" that is not an https URL/,
    ],
    [
      base({ credential_source: { environment_id: "aws1", regional_cred_verification_url: VERIFY, url: 7 } }),
      /has no "url" string/,
    ],
    [base({ credential_source: { file: 7 } }), /neither "file" nor "url"/],
    [base({ credential_source: { url: "" } }), /neither "file" nor "url"/],
    [
      base({ credential_source: { url: "xhttps://idp.example/t" } }),
      /"credential_source\.url" that is not an http or https URL/,
    ],
    [
      base({ credential_source: { file: "/t", format: "json" } }),
      /"credential_source\.format" whose "type" is neither "text" nor "json"/,
    ],
    [base({ credential_source: { file: "/t", format: [] } }), /"credential_source\.format" whose "type"/],
    [base({ credential_source: { file: "/t", format: { type: "xml" } } }), /"credential_source\.format" whose "type"/],
    [base({ credential_source: { file: "/t", format: { type: "json" } } }), /has no "subject_token_field_name" string/],
    [
      base({ credential_source: { url: "file:///etc/passwd" } }),
      /"credential_source\.url" that is not an http or https URL/,
    ],
    [base({ credential_source: { url: "not a url" } }), /"credential_source\.url" that is not an http or https URL/],
    [
      base({ credential_source: { url: "https://x/", headers: [] } }),
      /"credential_source\.headers" that are not strings/,
    ],
    [
      base({ credential_source: { url: "https://x/", headers: "a" } }),
      /"credential_source\.headers" that are not strings/,
    ],
    [base({ credential_source: { url: "https://x/", headers: { a: "b", c: 1 } } }), /"credential_source\.headers"/],
  ];
  for (const lifetime of [599, 43201, 1200.5, "1200", null])
    cases.push([
      base({
        service_account_impersonation_url: SA_URL,
        service_account_impersonation: { token_lifetime_seconds: lifetime },
      }),
      /"service_account_impersonation\.token_lifetime_seconds" that is not a whole number from 600 to 43200/,
    ]);
  cases.push([base({ service_account_impersonation_url: SA_URL, service_account_impersonation: "x" }), /^$/]);
  for (const [json, problem] of cases.slice(0, -1)) refused(() => parseExternalAccount(json, path), problem, path);
  // A service_account_impersonation that is not an object carries no lifetime: nothing to refuse.
  assert.equal(parseExternalAccount(cases.at(-1)![0]).impersonationLifetimeSec, undefined);
  refused(() => parseExternalAccount(base({ audience: 1 })), /has no "audience" string/);
  refused(
    () => parseExternalAccount(base({ audience: 1 }), "/tmp/\u001b]0;pwned\u0007.json"),
    /^Credentials file "\/tmp\/\\u001b\]0;pwned\\u0007\.json" has no "audience" string/,
    "/tmp/\\u001b]0;pwned\\u0007.json",
  );
});

test("external_account_authorized_user: every field, defaults in the file's universe, each malformed field refused", () => {
  const json = {
    type: "external_account_authorized_user",
    audience: "//iam.googleapis.com/locations/global/workforcePools/w/providers/p",
    client_id: "id",
    client_secret: "GOCSPX-secret/+=",
    refresh_token: "1//0gRefresh/+=",
  };
  assert.deepEqual(parseWorkforceUserFile(json), {
    type: "external_account_authorized_user",
    audience: json.audience,
    clientId: "id",
    clientSecret: "GOCSPX-secret/+=",
    refreshToken: "1//0gRefresh/+=",
    tokenUrl: "https://sts.googleapis.com/v1/oauthtoken",
    universeDomain: "googleapis.com",
  });
  assert.deepEqual(
    parseWorkforceUserFile({
      ...json,
      token_url: "https://sts.tpc.example/v1/oauthtoken",
      token_info_url: "https://sts.tpc.example/v1/introspect",
      revoke_url: "https://sts.tpc.example/v1/revoke",
      quota_project_id: "q",
      universe_domain: "tpc.example",
    }),
    {
      type: "external_account_authorized_user",
      audience: json.audience,
      clientId: "id",
      clientSecret: "GOCSPX-secret/+=",
      refreshToken: "1//0gRefresh/+=",
      tokenUrl: "https://sts.tpc.example/v1/oauthtoken",
      universeDomain: "tpc.example",
      tokenInfoUrl: "https://sts.tpc.example/v1/introspect",
      revokeUrl: "https://sts.tpc.example/v1/revoke",
      quotaProjectId: "q",
    },
  );
  assert.equal(
    parseWorkforceUserFile({ ...json, universe_domain: "u.example" }).tokenUrl,
    "https://sts.u.example/v1/oauthtoken",
  );
  for (const field of ["audience", "client_id", "client_secret", "refresh_token"])
    refused(
      () => parseWorkforceUserFile({ ...json, [field]: undefined }, "/x.json"),
      new RegExp(`has no "${field}" string`),
      "/x.json",
    );
  for (const field of ["token_url", "token_info_url", "revoke_url", "quota_project_id", "universe_domain"])
    refused(() => parseWorkforceUserFile({ ...json, [field]: 3 }), new RegExp(`has no "${field}" string`));
});

test("isObject: plain objects only", () => {
  assert.equal(isObject({}), true);
  for (const value of [null, [], "x", 1, undefined]) assert.equal(isObject(value), false, String(value));
});
