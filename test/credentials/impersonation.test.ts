// Impersonation in the library, against the emulator's IAM Credentials API: default() with
// impersonated_service_account files (a user or a key source) and with the
// impersonateServiceAccount option; getUserCredentials and saveUserCredentials with it. Refusals
// are CredCredentialsErrors with their own codes, never a fall-back to a sign-in as someone else.
import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { type AuthClient, Impersonated } from "google-auth-library";
import * as credAuth from "cred-auth";
import { CredCredentialsError, ERROR_CODES, cache, exceptions } from "cred-auth";
import { DEFAULT_WORKLOAD_AUDIENCE } from "cred-auth/emulator";
import { testCredentialsFile, workloadFileJson, workloadPrincipal } from "../support/emulator.ts";
import { browserPresenter, isolatedWorld, withEnv } from "../credentials/support.ts";

const { emulator, home } = await isolatedWorld();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const BIGQUERY = "https://www.googleapis.com/auth/bigquery";
const sa = (name: string) => `${name}@imp-project.iam.gserviceaccount.com`;
const TARGET = sa("runner");
const noCache = { credentialsCache: cache.NOOP, useLocalWebserver: true } as const;
const iamUrl = (email: string) =>
  `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${email}:generateAccessToken`;

emulator.addServiceAccount({ email: TARGET, tokenCreators: ["user:alice@example.com"] });
emulator.addServiceAccount({ email: sa("locked"), tokenCreators: ["user:bob@example.com"] });

async function accountOf(credentials: { getAccessToken(): Promise<{ token?: string | null }> }) {
  const { token } = await credentials.getAccessToken();
  assert.ok(token);
  return emulator.checkAccessToken(token);
}

async function aliceFile(name: string): Promise<Record<string, unknown>> {
  const path = await testCredentialsFile(emulator, join(home, name), { scopes: [CLOUD], account: "alice@example.com" });
  return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
}

function writeImpersonated(name: string, json: Record<string, unknown>): string {
  const path = join(home, name);
  writeFileSync(path, JSON.stringify({ type: "impersonated_service_account", delegates: [], ...json }), {
    mode: 0o600,
  });
  return path;
}

function assertImpersonationError(code: string) {
  return (error: unknown) => {
    assert.ok(error instanceof exceptions.CredCredentialsError, String(error));
    assert.equal(error.name, "CredCredentialsError");
    assert.equal(error.code, code);
    assert.ok(!error.message.includes("\n"));
    return true;
  };
}

test("default() with an impersonated_service_account file (user source): acts as the account, its project", async () => {
  const path = writeImpersonated("imp-user.json", {
    service_account_impersonation_url: iamUrl(TARGET),
    source_credentials: await aliceFile("alice-1"),
  });
  const b = browserPresenter();
  const warned: unknown[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => warned.push(args);
  const [credentials, projectId] = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () =>
    credAuth.default([BIGQUERY], { ...noCache, presenter: b.presenter }),
  ).finally(() => {
    console.warn = warn;
  });
  assert.deepEqual(warned, [], "no google-auth-library warning about an unvalidated file: cred-auth checked its URL");
  assert.ok(credentials instanceof Impersonated);
  const info = await accountOf(credentials);
  assert.equal(info?.account, TARGET);
  assert.deepEqual(info?.scopes, [BIGQUERY], "the caller's scopes, not the source's");
  assert.equal(projectId, "imp-project");
  assert.deepEqual(b.types(), []);
});

test("default() with a key source and a quota project: the quota project is the project id", async () => {
  const key = emulator.createServiceAccountKey({ projectId: "key-project" });
  emulator.addServiceAccount({ email: sa("keyed"), tokenCreators: [`serviceAccount:${key.client_email}`] });
  const path = writeImpersonated("imp-key.json", {
    service_account_impersonation_url: iamUrl(sa("keyed")),
    source_credentials: key,
    quota_project_id: "billing-project",
  });
  const [credentials, projectId] = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () =>
    credAuth.default([CLOUD], noCache),
  );
  assert.equal((await accountOf(credentials))?.account, sa("keyed"));
  assert.equal(projectId, "billing-project");
});

test("default() refuses instead of signing in as someone else: no role, unknown account, unsafe URL", async () => {
  const source = await aliceFile("alice-2");
  const cases: Array<[string, Record<string, unknown>, (e: unknown) => boolean]> = [
    [
      "no role",
      { service_account_impersonation_url: iamUrl(sa("locked")) },
      assertImpersonationError(ERROR_CODES.IMPERSONATION_DENIED),
    ],
    [
      "unknown",
      { service_account_impersonation_url: iamUrl(sa("ghost")) },
      assertImpersonationError(ERROR_CODES.SERVICE_ACCOUNT_NOT_FOUND),
    ],
    [
      "unsafe",
      {
        service_account_impersonation_url: iamUrl(TARGET).replace("iamcredentials.googleapis.com", "iam.evil.example"),
      },
      (e) => (e as { code?: string }).code === ERROR_CODES.UNSAFE_TOKEN_URL,
    ],
  ];
  for (const [what, json, check] of cases) {
    const path = writeImpersonated(`imp-${what}.json`, { ...json, source_credentials: source });
    const b = browserPresenter();
    await assert.rejects(
      withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () =>
        credAuth.default([CLOUD], { ...noCache, presenter: b.presenter }),
      ),
      check,
      what,
    );
    assert.deepEqual(b.types(), [], `${what}: no sign-in`);
  }
});

test("default(): IAM's 403s for a disabled API or a denied quota project keep their own codes, no sign-in", async () => {
  const imp = writeImpersonated("imp-faults.json", {
    service_account_impersonation_url: iamUrl(TARGET),
    source_credentials: await aliceFile("alice-faults"),
  });
  const tokenFile = join(home, "subject-faults.jwt");
  writeFileSync(tokenFile, emulator.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, subject: "faulted-job" }));
  const wif = join(home, "wif-faults.json");
  writeFileSync(
    wif,
    JSON.stringify(workloadFileJson(tokenFile, { service_account_impersonation_url: iamUrl(TARGET) })),
  );
  const faults = [
    ["service-disabled", ERROR_CODES.API_DISABLED],
    ["user-project-denied", ERROR_CODES.USER_PROJECT_DENIED],
  ] as const;
  for (const path of [imp, wif])
    for (const [kind, code] of faults) {
      emulator.failNext(1, { target: "iam", kind });
      const b = browserPresenter();
      await assert.rejects(
        withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () =>
          credAuth.default([CLOUD], { ...noCache, presenter: b.presenter }),
        ),
        assertImpersonationError(code),
        `${kind} with ${path}`,
      );
      assert.deepEqual(b.types(), [], `${kind}: no sign-in`);
    }
});

test("default() with an external_account file that impersonates: STS, then the account's token", async () => {
  const tokenFile = join(home, "subject.jwt");
  writeFileSync(tokenFile, emulator.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, subject: "deploy-job" }));
  emulator.addServiceAccount({
    email: sa("federated"),
    tokenCreators: [workloadPrincipal("deploy-job")],
  });
  const path = join(home, "wif-imp.json");
  writeFileSync(
    path,
    JSON.stringify(workloadFileJson(tokenFile, { service_account_impersonation_url: iamUrl(sa("federated")) })),
  );
  const [credentials] = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () =>
    credAuth.default([BIGQUERY], noCache),
  );
  const info = await accountOf(credentials);
  assert.equal(info?.account, sa("federated"));
  assert.deepEqual(info?.scopes, [BIGQUERY]);
});

test("default() with impersonateServiceAccount: whatever ADC finds asks for the account's tokens", async () => {
  const key = emulator.createServiceAccountKey({ projectId: "adc-project" });
  emulator.addServiceAccount({ email: sa("viaoption"), tokenCreators: [`serviceAccount:${key.client_email}`] });
  const path = join(home, "adc-key.json");
  writeFileSync(path, JSON.stringify(key), { mode: 0o600 });
  const [credentials, projectId] = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () =>
    credAuth.default([BIGQUERY], { ...noCache, impersonateServiceAccount: sa("viaoption") }),
  );
  const info = await accountOf(credentials);
  assert.equal(info?.account, sa("viaoption"));
  assert.deepEqual(info?.scopes, [BIGQUERY]);
  assert.equal(projectId, "imp-project", "the impersonated account's project");
});

test("default() with impersonateServiceAccount asks the IAM Credentials API of the universe the user chose", async () => {
  // Another universe is outside this machine (no network here, no emulator for it): the source
  // credentials are a stand-in that records where they are asked to send their token, and sends nothing.
  const asked: string[] = [];
  const source = {
    universeDomain: "tpc.example",
    getAccessToken: async () => ({ token: "source-token" }),
    request: async (options: { url?: unknown }) => {
      asked.push(String(options.url));
      throw new Error("not sent");
    },
  } as unknown as AuthClient;
  const platform = {
    name: "tpc-platform",
    detect: () => true,
    credentials: async () => ({ credentials: source, projectId: null }),
  };
  await assert.rejects(
    withEnv(
      { CRED_AUTH_EMULATOR_HOST: undefined, GOOGLE_CLOUD_UNIVERSE_DOMAIN: undefined, CRED_AUTH_HOSTED: undefined },
      () =>
        credAuth.default([BIGQUERY], {
          ...noCache,
          hosted: [platform],
          universeDomain: "tpc.example",
          impersonateServiceAccount: TARGET,
        }),
    ),
  );
  assert.deepEqual(asked, [
    `https://iamcredentials.tpc.example/v1/projects/-/serviceAccounts/${TARGET}:generateAccessToken`,
  ]);
});

test("getUserCredentials with impersonateServiceAccount: a cloud-platform sign-in, reused from the cache", async () => {
  const credentialsCache = new cache.ReadWriteCredentialsCache({ dirname: "cred-impersonation" });
  const b = browserPresenter({ account: "alice@example.com" });
  const options = {
    credentialsCache,
    presenter: b.presenter,
    useLocalWebserver: true,
    impersonateServiceAccount: TARGET,
  };
  const credentials = await credAuth.getUserCredentials([BIGQUERY], options);
  assert.ok(credentials instanceof Impersonated);
  assert.equal((await accountOf(credentials))?.account, TARGET);
  assert.ok(b.types().includes("url"));
  const source = (credentials as unknown as { sourceClient: { getAccessToken(): Promise<{ token?: string | null }> } })
    .sourceClient;
  assert.ok((await accountOf(source))?.scopes.includes(CLOUD), "the user's own token has cloud-platform");

  const again = browserPresenter();
  const second = await credAuth.getUserCredentials([BIGQUERY], { ...options, presenter: again.presenter });
  assert.equal((await accountOf(second))?.account, TARGET);
  assert.deepEqual(again.types(), [], "the cached user credentials were used");

  await assert.rejects(
    credAuth.getUserCredentials([CLOUD], { ...options, impersonateServiceAccount: sa("locked") }),
    assertImpersonationError(ERROR_CODES.IMPERSONATION_DENIED),
  );
});

test("saveUserCredentials with impersonateServiceAccount writes a file default() and gcloud can use", async () => {
  const path = join(home, "saved", "imp.json");
  const b = browserPresenter({ account: "alice@example.com" });
  await credAuth.saveUserCredentials([BIGQUERY], path, {
    presenter: b.presenter,
    useLocalWebserver: true,
    impersonateServiceAccount: [TARGET],
  });
  assert.equal(statSync(path).mode & 0o777, 0o600);
  const saved = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  assert.equal(saved.type, "impersonated_service_account");
  assert.deepEqual(saved.scopes, [BIGQUERY]);
  assert.equal(saved.service_account_impersonation_url, iamUrl(TARGET));
  const [credentials] = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () => credAuth.default([], noCache));
  const info = await accountOf(credentials);
  assert.equal(info?.account, TARGET);
  assert.deepEqual(info?.scopes, [BIGQUERY], "no scopes asked: the file's");
});

test("a malformed impersonateServiceAccount fails before any sign-in", async () => {
  for (const value of ["", "a@b.c,", "not an email", ["x@y.z", 7 as unknown as string], []]) {
    const b = browserPresenter();
    await assert.rejects(
      credAuth.getUserCredentials([CLOUD], { ...noCache, presenter: b.presenter, impersonateServiceAccount: value }),
      (error: unknown) =>
        error instanceof CredCredentialsError &&
        error.code === ERROR_CODES.INVALID_OPTION &&
        /impersonateServiceAccount takes service account e-mails/.test(error.message),
      JSON.stringify(value),
    );
    assert.deepEqual(b.types(), []);
  }
});
