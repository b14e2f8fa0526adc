// default() with external_account and external_account_authorized_user files: google-auth-library's
// own clients against the emulator's STS, the project id the file carries, and gcloud's locations.
import assert from "node:assert/strict";
import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
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

/** A workforce user's file (STS rotates its refresh token on each refresh), mode `mode`. */
function workforceUserFile(name: string, mode = 0o600): { path: string; json: Record<string, string> } {
  const json = files().external_account_authorized_user as Record<string, string>;
  const path = join(home, name);
  writeFileSync(path, JSON.stringify(json), { mode });
  chmodSync(path, mode);
  return { path, json };
}

/** `run` under STS's fault "revoke-old": a refresh token rotated away stops working, so only a write-back keeps a file usable. */
async function killingRotatedTokens(run: () => Promise<void>): Promise<void> {
  emulator.setStsRefreshTokenRotation("revoke-old");
  try {
    await run();
  } finally {
    emulator.setStsRefreshTokenRotation(true);
  }
}

const refreshTokenIn = (path: string) =>
  (JSON.parse(readFileSync(path, "utf8")) as { refresh_token: string }).refresh_token;

test("default(), workforce user: the refresh token STS rotated is kept in memory and in the file, one refresh at a time", () =>
  killingRotatedTokens(async () => {
    const { path, json } = workforceUserFile("rotating.json");
    const [credentials] = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () =>
      credAuth.default([CLOUD], options),
    );
    const kept = refreshTokenIn(path);
    assert.notEqual(kept, json.refresh_token, "written back when default() proved the credentials");
    assert.equal(statSync(path).mode & 0o777, 0o600);
    // Concurrent refreshes share one: a second would present the refresh token the first just spent.
    const client = credentials as unknown as { refreshAccessTokenAsync(): Promise<{ access_token?: string }> };
    const [a, b] = await Promise.all([client.refreshAccessTokenAsync(), client.refreshAccessTokenAsync()]);
    assert.equal(a.access_token, b.access_token);
    assert.notEqual(refreshTokenIn(path), kept, "rotated once more, and kept");
    await client.refreshAccessTokenAsync(); // the token in memory is the newest one: still accepted
    // Another process (here: another default()) starts from the file, and works.
    const [again] = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () => credAuth.default([CLOUD], options));
    await assertWorking(again);
  }));

test("default(), workforce user whose file cred-auth may not write: a CRED_AUTH_REFRESH_TOKEN warning, the credentials work", async () => {
  const { path, json } = workforceUserFile("not-mine.json", 0o666);
  const warnings: Error[] = [];
  const listen = (warning: Error) => warnings.push(warning);
  process.on("warning", listen);
  try {
    const [credentials] = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () =>
      credAuth.default([CLOUD], options),
    );
    await assertWorking(credentials);
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off("warning", listen);
  }
  const ours = warnings.filter((w) => (w as { code?: string }).code === "CRED_AUTH_REFRESH_TOKEN");
  assert.equal(ours.length, 1, warnings.map((w) => w.message).join("\n"));
  assert.match(ours[0]!.message, /did not write the new one there: the file may be written by others \(mode 666\)/);
  assert.ok(!ours[0]!.message.includes(json.refresh_token!));
  assert.equal(refreshTokenIn(path), json.refresh_token, "the file is left alone");
});

test("default() with an impersonated_service_account file whose source is a workforce user", () =>
  killingRotatedTokens(async () => {
    const target = "workforce-runner@wf-project.iam.gserviceaccount.com";
    emulator.addServiceAccount({
      email: target,
      tokenCreators: ["principalSet://iam.googleapis.com/locations/global/workforcePools/emu-workforce/*"],
    });
    const source = files().external_account_authorized_user as Record<string, string>;
    const path = join(home, "impersonated-workforce.json");
    writeFileSync(
      path,
      JSON.stringify({
        type: "impersonated_service_account",
        service_account_impersonation_url: `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${target}:generateAccessToken`,
        source_credentials: source,
        delegates: [],
      }),
      { mode: 0o600 },
    );
    for (const round of [1, 2]) {
      const [credentials, projectId] = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () =>
        credAuth.default(["https://www.googleapis.com/auth/bigquery"], options),
      );
      const { token } = await credentials.getAccessToken();
      const info = emulator.checkAccessToken(token ?? "");
      assert.equal(info?.account, target, `round ${round}`);
      assert.deepEqual(info?.scopes, ["https://www.googleapis.com/auth/bigquery"]);
      assert.equal(projectId, "wf-project");
    }
    const kept = JSON.parse(readFileSync(path, "utf8")) as { source_credentials: { refresh_token: string } };
    assert.notEqual(kept.source_credentials.refresh_token, source.refresh_token, "the source's rotated token is kept");
  }));
