// default() finds every Application Default Credentials type in gcloud's own locations
// ($CLOUDSDK_CONFIG/application_default_credentials.json, else ~/.config/gcloud/...) with
// GOOGLE_APPLICATION_CREDENTIALS unset: a working token of the right identity, the file's
// project, and no sign-in.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as credAuth from "cred-auth";
import { cache } from "cred-auth";
import { DEFAULT_WORKLOAD_AUDIENCE } from "cred-auth/emulator";
import { testCredentialsFile, workloadFileJson } from "../support/emulator.ts";
import { browserPresenter, isolatedWorld, withEnv } from "../credentials/support.ts";

const { emulator, home } = await isolatedWorld();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const TARGET = "deployer@target-project.iam.gserviceaccount.com";

interface Case {
  json: Record<string, unknown>;
  /** Who the token acts as (a pattern: federated principals are long). */
  account: RegExp;
  projectId: string | null;
}

/** One file of each type, each valid against this emulator. */
async function cases(dir: string): Promise<Record<string, Case>> {
  mkdirSync(dir, { recursive: true });
  const user = JSON.parse(
    readFileSync(await testCredentialsFile(emulator, dir, { scopes: [CLOUD], account: "alice@example.com" }), "utf8"),
  ) as Record<string, unknown>;
  const key = emulator.createServiceAccountKey({ projectId: "sa-project" });
  const subjectFile = join(dir, "subject.jwt");
  writeFileSync(subjectFile, emulator.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, subject: "ci-job" }));
  emulator.addServiceAccount({ email: TARGET, tokenCreators: ["user:alice@example.com"] });
  return {
    authorized_user: { json: user, account: /^alice@example\.com$/, projectId: null },
    service_account: { json: key, account: new RegExp(`^${key.client_email}$`), projectId: "sa-project" },
    external_account: {
      json: workloadFileJson(subjectFile, { quota_project_id: "wif-project" }),
      account: /^principal:\/\/iam\.googleapis\.com\/.*\/subject\/ci-job$/,
      projectId: "wif-project",
    },
    external_account_authorized_user: {
      json: { ...emulator.issueExternalAccountAuthorizedUser(), token_url: "https://sts.googleapis.com/v1/oauthtoken" },
      account: /^principal:\/\/iam\.googleapis\.com\/locations\/global\/workforcePools\//,
      projectId: null,
    },
    impersonated_service_account: {
      json: {
        delegates: [],
        service_account_impersonation_url: `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${TARGET}:generateAccessToken`,
        source_credentials: user,
        type: "impersonated_service_account",
      },
      account: new RegExp(`^${TARGET}$`),
      projectId: "target-project",
    },
  };
}

async function assertFound(where: string, env: Record<string, string | undefined>, dir: string): Promise<void> {
  for (const [type, expected] of Object.entries(await cases(join(home, `files-${where}`)))) {
    writeFileSync(join(dir, "application_default_credentials.json"), JSON.stringify(expected.json), { mode: 0o600 });
    const b = browserPresenter();
    const [credentials, projectId] = await withEnv(env, () =>
      credAuth.default([CLOUD], { credentialsCache: cache.NOOP, presenter: b.presenter, timeoutMs: 5000 }),
    );
    const { token } = await credentials.getAccessToken();
    assert.ok(token, `${where} ${type}: a token`);
    assert.match(emulator.checkAccessToken(token)?.account ?? "(unknown token)", expected.account, `${where} ${type}`);
    assert.equal(projectId, expected.projectId, `${where} ${type}: project id`);
    assert.deepEqual(b.types(), [], `${where} ${type}: no sign-in`);
  }
}

test("$CLOUDSDK_CONFIG/application_default_credentials.json, each type", async () => {
  const dir = join(home, "gcloud-config");
  mkdirSync(dir, { recursive: true });
  await assertFound("CLOUDSDK_CONFIG", { CLOUDSDK_CONFIG: dir }, dir);
});

test("~/.config/gcloud/application_default_credentials.json, each type", async () => {
  const dir = join(home, ".config", "gcloud");
  mkdirSync(dir, { recursive: true });
  try {
    await assertFound("home", { CLOUDSDK_CONFIG: undefined }, dir);
  } finally {
    rmSync(dir, { recursive: true });
  }
});
