// default() with external_account and external_account_authorized_user files: google-auth-library's
// own clients against the emulator's STS, the project id the file carries, and gcloud's locations.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as credAuth from "cred-auth";
import { cache } from "cred-auth";
import { DEFAULT_WORKLOAD_AUDIENCE } from "cred-auth/emulator";
import { isolatedWorld, withEnv } from "../credentials/support.ts";

const { emulator, home } = await isolatedWorld();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const options = { credentialsCache: cache.NOOP, useLocalWebserver: true } as const;

function files(): Record<string, Record<string, unknown>> {
  const tokenFile = join(home, "subject.jwt");
  writeFileSync(tokenFile, emulator.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE }));
  return {
    external_account: {
      type: "external_account",
      audience: DEFAULT_WORKLOAD_AUDIENCE,
      subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
      token_url: "https://sts.googleapis.com/v1/token",
      credential_source: { file: tokenFile },
      quota_project_id: "wif-project",
    },
    external_account_authorized_user: {
      ...emulator.issueExternalAccountAuthorizedUser(),
      token_url: "https://sts.googleapis.com/v1/oauthtoken",
      quota_project_id: "workforce-project",
    },
  };
}

const PROJECT: Record<string, string> = {
  external_account: "wif-project",
  external_account_authorized_user: "workforce-project",
};

async function assertWorking(credentials: { getAccessToken(): Promise<{ token?: string | null }> }) {
  const { token } = await credentials.getAccessToken();
  assert.ok(token && emulator.checkAccessToken(token), "the emulator's STS issued the token");
}

test("GOOGLE_APPLICATION_CREDENTIALS with each federation type: a working token and the file's project id", async () => {
  for (const [type, json] of Object.entries(files())) {
    const path = join(home, `${type}.json`);
    writeFileSync(path, JSON.stringify(json), { mode: 0o600 });
    const [credentials, projectId] = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () =>
      credAuth.default([CLOUD], options),
    );
    assert.equal(projectId, PROJECT[type], type);
    await assertWorking(credentials);
  }
});

test("an external_account file whose token_url is not Google's is refused, not passed over for a sign-in", async () => {
  const path = join(home, "evil-sts.json");
  const json = { ...files().external_account, token_url: "https://sts.evil.example/v1/token" };
  writeFileSync(path, JSON.stringify(json), { mode: 0o600 });
  await assert.rejects(
    withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () => credAuth.default([CLOUD], options)),
    (error: unknown) => (error as { code?: string }).code === credAuth.ERROR_CODES.UNSAFE_TOKEN_URL,
  );
});
