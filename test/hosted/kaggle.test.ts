// Kaggle's user-secrets token protocol against a local server that checks headers and body.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { OAuth2Client } from "google-auth-library";
import { type CredAuthError, CredConnectionError, CredCredentialsError, ERROR_CODES } from "cred-auth";
import { chooseKaggleTarget, kaggleEnvironment } from "../../dist/hosted/kaggle.js";
import { tryHosted } from "../../dist/hosted/registry.js";
import { deadPort, isolateHome, startFakeKaggle } from "./support.ts";

isolateHome();

const BIGQUERY = "https://www.googleapis.com/auth/bigquery";
const STORAGE = "https://www.googleapis.com/auth/devstorage.read_write";
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const EMAIL = "https://www.googleapis.com/auth/userinfo.email";
const SECRETS_TOKEN = "kaggle-user-secrets-jwt";

const kaggle = await startFakeKaggle(SECRETS_TOKEN);
after(() => kaggle.close());

function kaggleEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    KAGGLE_KERNEL_RUN_TYPE: "Interactive",
    KAGGLE_USER_SECRETS_TOKEN: SECRETS_TOKEN,
    KAGGLE_URL_BASE: kaggle.urlBase,
    KAGGLE_KERNEL_INTEGRATIONS: "BIGQUERY:GCS",
    ...extra,
  };
}

function reset(): void {
  kaggle.mode = "ok";
  kaggle.expiresInSeconds = 3600;
  kaggle.requests.length = 0;
}

test("a BigQuery token from GetUserSecretRequest, sent with the documented headers and body", async () => {
  reset();
  const { result, attempts } = await tryHosted([BIGQUERY, EMAIL], true, kaggleEnv());
  assert.deepEqual(attempts, []);
  assert.equal(result?.name, "kaggle");
  assert.equal(result.projectId, null, "Kaggle names no project");
  assert.ok(result.credentials instanceof OAuth2Client);
  assert.deepEqual(kaggle.requests, [
    {
      method: "POST",
      path: "/requests/GetUserSecretRequest",
      contentType: "application/json",
      kaggleAuthorization: `Bearer ${SECRETS_TOKEN}`,
      authorization: undefined,
      body: { Target: 1 },
    },
  ]);
  const { token } = await result.credentials.getAccessToken();
  assert.match(token ?? "", /^kaggle-target1-/);
  assert.ok(kaggle.accepts(token!));
  const reply = await result.credentials.request<{ ok: boolean }>({ url: kaggle.apiUrl });
  assert.equal(reply.data.ok, true, "the API accepted the token");
  assert.equal(kaggle.requests.length, 1, "the proving token is the one used");
});

test("KAGGLE_IAP_TOKEN is sent as Authorization, and GOOGLE_CLOUD_PROJECT gives the project id", async () => {
  const guarded = await startFakeKaggle(SECRETS_TOKEN, "iap-token");
  after(() => guarded.close());
  const env = kaggleEnv({
    KAGGLE_URL_BASE: `${guarded.urlBase}/`,
    KAGGLE_IAP_TOKEN: "iap-token",
    GOOGLE_CLOUD_PROJECT: "my-proj",
  });
  const { result } = await tryHosted([STORAGE], true, env);
  assert.equal(result?.projectId, "my-proj");
  assert.equal(guarded.requests[0]?.authorization, "Bearer iap-token");
  assert.deepEqual(guarded.requests[0]?.body, { Target: 2 });

  const { attempts } = await tryHosted([STORAGE], true, { ...env, KAGGLE_IAP_TOKEN: undefined });
  assert.ok(attempts[0]?.error instanceof CredCredentialsError, "the guarded server refused a request without it");
});

test("the target follows the scopes and the attached integrations", () => {
  const id = (scopes: string[], integrations: string | undefined) => chooseKaggleTarget(scopes, integrations).id;
  assert.equal(id([BIGQUERY], "BIGQUERY:GCS"), 1);
  assert.equal(id(["https://www.googleapis.com/auth/bigquery.readonly", CLOUD], "GCS:BIGQUERY"), 1);
  assert.equal(id([STORAGE], "BIGQUERY:GCS"), 2);
  assert.equal(id(["https://www.googleapis.com/auth/devstorage.read_only", EMAIL], "gcs"), 2);
  assert.equal(id([CLOUD], "GCS"), 2, "cloud-platform takes what is attached");
  assert.equal(id([CLOUD], "CLOUDAI"), 3);
  assert.equal(id([CLOUD], "AUTOML:GCS"), 2);
  assert.equal(id([CLOUD], "CLOUDAI:BIGQUERY"), 1);
  assert.equal(
    id(["https://www.googleapis.com/auth/drive", BIGQUERY], "BIGQUERY"),
    1,
    "other APIs' scopes do not constrain",
  );

  assert.throws(
    () => chooseKaggleTarget([BIGQUERY], undefined),
    /^CredCredentialsError: Kaggle: no Google Cloud service is attached.*Add-ons > Google Cloud Services/,
  );
  assert.throws(() => chooseKaggleTarget([BIGQUERY], "UNKNOWN"), /no Google Cloud service is attached/);
  assert.throws(() => chooseKaggleTarget([BIGQUERY, STORAGE], "BIGQUERY:GCS"), /one service at a time/);
  assert.throws(
    () => chooseKaggleTarget([BIGQUERY], "GCS"),
    /^CredCredentialsError: Kaggle: the scopes need BigQuery, but this notebook has only Cloud Storage attached/,
  );
});

test("a target Kaggle cannot serve is reported before any request", async () => {
  reset();
  const { attempts } = await tryHosted([BIGQUERY], true, kaggleEnv({ KAGGLE_KERNEL_INTEGRATIONS: "GCS" }));
  assert.equal(attempts[0]?.name, "kaggle");
  assert.match(attempts[0]!.error.message, /only Cloud Storage attached/);
  assert.equal(kaggle.requests.length, 0);
});

test("tokens are fetched again before they expire; concurrent callers share one request", async () => {
  reset();
  kaggle.expiresInSeconds = 60; // inside google-auth-library's 5-minute eager-refresh window
  const { result } = await tryHosted([BIGQUERY], true, kaggleEnv());
  assert.ok(result);
  const first = (await result.credentials.getAccessToken()).token;
  const second = (await result.credentials.getAccessToken()).token;
  assert.notEqual(first, second);
  assert.ok(kaggle.accepts(second!));
  const count = kaggle.requests.length;
  const together = await Promise.all([1, 2, 3].map(() => result.credentials.getAccessToken()));
  assert.equal(new Set(together.map((t) => t.token)).size, 1);
  assert.equal(kaggle.requests.length, count + 1);
  assert.ok(kaggle.requests.every((r) => (r.body as { Target: number }).Target === 1));

  kaggle.expiresInSeconds = 3600;
  const { result: lasting } = await tryHosted([BIGQUERY], true, kaggleEnv());
  const before = kaggle.requests.length;
  assert.equal(
    (await lasting!.credentials.getAccessToken()).token,
    (await lasting!.credentials.getAccessToken()).token,
  );
  assert.equal(kaggle.requests.length, before, "a token far from expiry is reused");

  const refreshed = await (lasting!.credentials as OAuth2Client).refreshAccessToken();
  assert.equal(kaggle.requests.length, before + 1, "refreshAccessToken() asks Kaggle again");
  assert.ok(kaggle.accepts(refreshed.credentials.access_token!));
});

test("a refresh that fails later is a cred-auth error too", async () => {
  reset();
  kaggle.expiresInSeconds = 60;
  const { result } = await tryHosted([BIGQUERY], true, kaggleEnv());
  kaggle.mode = "unauthorized";
  await assert.rejects(result!.credentials.getAccessToken(), CredCredentialsError);
  reset();
});

const FAILURES: { mode: typeof kaggle.mode; kind: typeof CredCredentialsError; code: string; message: RegExp }[] = [
  {
    mode: "unauthorized",
    kind: CredCredentialsError,
    code: ERROR_CODES.HOSTED_UNAVAILABLE,
    message: /^Kaggle: the user-secrets service refused this notebook's user-secrets token \(HTTP 401\)/,
  },
  {
    mode: "forbidden",
    kind: CredCredentialsError,
    code: ERROR_CODES.HOSTED_UNAVAILABLE,
    message: /^Kaggle: .* \(HTTP 403\); restart the session/,
  },
  {
    mode: "unsuccessful",
    kind: CredConnectionError,
    code: ERROR_CODES.SERVER_ERROR,
    message:
      /^Kaggle: the user-secrets service could not give a BigQuery token \(it said: No integration of this kind is attached to the kernel\.\)/,
  },
  {
    mode: "malformed",
    kind: CredConnectionError,
    code: ERROR_CODES.SERVER_ERROR,
    message: /^Kaggle: the user-secrets service sent an unreadable reply \(not JSON\)\.$/,
  },
  {
    mode: "no-secret",
    kind: CredConnectionError,
    code: ERROR_CODES.SERVER_ERROR,
    message: /^Kaggle: the user-secrets service sent a reply without a token\.$/,
  },
  {
    mode: "error",
    kind: CredConnectionError,
    code: ERROR_CODES.SERVER_ERROR,
    message: /^Kaggle: the user-secrets service answered HTTP 502; try again later\.$/,
  },
];

for (const failure of FAILURES) {
  test(`a user-secrets service answering "${failure.mode}" is a ${failure.kind.name}`, async () => {
    reset();
    kaggle.mode = failure.mode;
    const { result, attempts } = await tryHosted([BIGQUERY], true, kaggleEnv());
    assert.equal(result, undefined);
    assert.equal(attempts[0]?.name, "kaggle");
    const error = attempts[0]!.error;
    assert.ok(error instanceof failure.kind, `${error.name}: ${error.message}`);
    assert.equal((error as CredAuthError).code, failure.code);
    assert.match(error.message, failure.message);
    assert.doesNotMatch(error.message, /\n/);
    assert.doesNotMatch(error.message, new RegExp(SECRETS_TOKEN));
    reset();
  });
}

test("a wrong user-secrets token is refused as the server checks the header", async () => {
  reset();
  const { attempts } = await tryHosted([BIGQUERY], true, kaggleEnv({ KAGGLE_USER_SECRETS_TOKEN: "stale" }));
  assert.ok(attempts[0]?.error instanceof CredCredentialsError);
  assert.match(attempts[0]!.error.message, /HTTP 401/);
  assert.doesNotMatch(attempts[0]!.error.message, /stale/);
});

test("a silent service times out; an absent one is unreachable", async () => {
  reset();
  kaggle.mode = "slow";
  await assert.rejects(kaggleEnvironment(300).credentials([BIGQUERY], kaggleEnv()), (error: Error) => {
    assert.ok(error instanceof CredConnectionError);
    assert.equal(error.message, "Kaggle: the user-secrets service did not answer within 300 ms; try again later.");
    return true;
  });
  reset();
  const { attempts } = await tryHosted(
    [BIGQUERY],
    true,
    kaggleEnv({ KAGGLE_URL_BASE: `http://127.0.0.1:${await deadPort()}` }),
  );
  assert.ok(attempts[0]?.error instanceof CredConnectionError);
  assert.equal(attempts[0]!.error.message, "Kaggle: could not reach the user-secrets service (ECONNREFUSED).");
});
