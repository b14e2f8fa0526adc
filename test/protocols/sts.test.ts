// Google's STS for external_account and external_account_authorized_user files: tokens from the
// emulator's STS (file and URL subject tokens), its refusals, with Google-shaped secrets. The
// files' shape: test/formats/external-account.test.ts; where secrets may go: test/trust/urls.test.ts.
import assert from "node:assert/strict";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { DEFAULT_WORKFORCE_AUDIENCE, DEFAULT_WORKLOAD_AUDIENCE, startEmulator } from "cred-auth/emulator";
import type { Emulator } from "cred-auth/emulator";
import { refreshAtSts } from "../../dist/protocols/sts.js";
import {
  type ExternalAccountFile,
  externalAccountDestinations,
  parseExternalAccount,
} from "../../dist/credentials/kinds/federated/file.js";
import { readSubject } from "../../dist/credentials/kinds/federated/subject.js";
import { federatedToken } from "../../dist/credentials/kinds/federated/tokens.js";
import {
  type WorkforceUserFile,
  parseWorkforceUserFile,
  workforceUserTokenUrl,
} from "../../dist/credentials/kinds/workforce-user/file.js";
import { trustedUniverse } from "../../dist/trust/urls.js";
import { ERROR_CODES } from "../../dist/errors.js";

let emu: Emulator;
let env: NodeJS.ProcessEnv;
let dir: string;
before(async () => {
  emu = await startEmulator();
  env = { CRED_AUTH_EMULATOR_HOST: emu.host };
  dir = await mkdtemp(join(tmpdir(), "ext-acct-"));
});
after(() => emu.close());

const JWT = "urn:ietf:params:oauth:token-type:jwt";
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";

/** The file's subject token read once, exchanged at its judged STS URL, as print-token does. */
async function exchangeSubjectToken(file: ExternalAccountFile, _scopes: undefined, withEnv: NodeJS.ProcessEnv) {
  const { tokenUrl, aws } = externalAccountDestinations(file, trustedUniverse(withEnv));
  const subject = await readSubject(file, aws, withEnv);
  return federatedToken(file, tokenUrl, subject, [CLOUD]);
}

/** A refresh at the file's judged STS URL, as the workforce user's kind asks it. */
function refreshExternalAuthorizedUser(file: WorkforceUserFile, withEnv: NodeJS.ProcessEnv) {
  const { clientId, clientSecret, refreshToken } = file;
  return refreshAtSts({
    tokenUrl: workforceUserTokenUrl(file, trustedUniverse(withEnv)),
    clientId,
    clientSecret,
    refreshToken,
  });
}
const fileJson = (source: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "external_account",
  audience: DEFAULT_WORKLOAD_AUDIENCE,
  subject_token_type: JWT,
  token_url: "https://sts.googleapis.com/v1/token",
  credential_source: source,
  ...extra,
});

/** Every encoding a secret could leak in. */
function assertNoSecret(text: string, secret: string): void {
  for (const form of [
    secret,
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
    Buffer.from(secret).toString("base64"),
  ])
    assert.ok(!text.includes(form), "no secret in the message");
}

function errorText(error: unknown): string {
  const e = error as Error & { cause?: unknown };
  return `${e.message} ${e.stack ?? ""} ${JSON.stringify(e)}`;
}

test("a file-sourced subject token (text and JSON) is exchanged for a token the emulator accepts", async () => {
  const token = emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE });
  await writeFile(join(dir, "token.txt"), `${token}\n`);
  await writeFile(join(dir, "token.json"), JSON.stringify({ id_token: token }));
  for (const source of [
    { file: join(dir, "token.txt") },
    { file: join(dir, "token.txt"), format: { type: "text" } },
    { file: join(dir, "token.json"), format: { type: "json", subject_token_field_name: "id_token" } },
  ]) {
    const got = await exchangeSubjectToken(parseExternalAccount(fileJson(source)), undefined, env);
    assert.ok(emu.checkAccessToken(got.accessToken), "the emulator knows the token");
    assert.ok(got.expiresAt > Date.now());
  }
});

test("a URL-sourced subject token with headers; workforce userProject is sent as options", async () => {
  const url = emu.serveSubjectToken({
    token: emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE }),
    format: "json",
    field: "value",
    requiredHeader: { name: "Metadata", value: "True" },
  });
  const file = parseExternalAccount(
    fileJson({ url, headers: { Metadata: "True" }, format: { type: "json", subject_token_field_name: "value" } }),
  );
  assert.ok(emu.checkAccessToken((await exchangeSubjectToken(file, undefined, env)).accessToken));
  const noHeader = parseExternalAccount(fileJson({ url, format: { type: "json", subject_token_field_name: "value" } }));
  await assert.rejects(exchangeSubjectToken(noHeader, undefined, env), {
    code: ERROR_CODES.SUBJECT_TOKEN_UNREACHABLE,
    status: 403,
  });

  const workforceToken = join(dir, "workforce.txt");
  await writeFile(workforceToken, emu.issueSubjectToken({ audience: DEFAULT_WORKFORCE_AUDIENCE }));
  const workforce = parseExternalAccount(
    fileJson(
      { file: workforceToken },
      { audience: DEFAULT_WORKFORCE_AUDIENCE, workforce_pool_user_project: "my-project" },
    ),
  );
  assert.ok(emu.checkAccessToken((await exchangeSubjectToken(workforce, undefined, env)).accessToken));
});

test("a missing subject-token file, an unreachable URL and an STS refusal each have their own error, without the token", async () => {
  const missing = parseExternalAccount(fileJson({ file: join(dir, "nope.txt") }));
  await assert.rejects(exchangeSubjectToken(missing, undefined, env), {
    name: "CredCredentialsError",
    code: ERROR_CODES.SUBJECT_TOKEN_UNREADABLE,
  });
  const closed = await startEmulator();
  const deadUrl = `${closed.url}/token`;
  await closed.close();
  await assert.rejects(exchangeSubjectToken(parseExternalAccount(fileJson({ url: deadUrl })), undefined, env), {
    name: "CredConnectionError", // could not be reached: a connection error (exit code 3)
    code: ERROR_CODES.SUBJECT_TOKEN_UNREACHABLE,
  });

  const expired = emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, lifetimeSec: -30 });
  await writeFile(join(dir, "expired.txt"), expired);
  const error = await exchangeSubjectToken(
    parseExternalAccount(fileJson({ file: join(dir, "expired.txt") })),
    undefined,
    env,
  ).then(
    () => assert.fail("the emulator refused"),
    (e: unknown) => e,
  );
  assert.equal((error as { name: string }).name, "CredCredentialsError");
  assert.equal((error as { code: string }).code, ERROR_CODES.STS_REJECTED);
  assert.equal((error as { error: string }).error, "invalid_grant");
  assert.equal((error as { status: number }).status, 400);
  assert.match((error as Error).message, /The ID Token has expired\./);
  assertNoSecret(errorText(error), expired);

  const unknownPool = "//iam.googleapis.com/projects/9/locations/global/workloadIdentityPools/x/providers/y";
  await writeFile(join(dir, "other.txt"), emu.issueSubjectToken({ audience: unknownPool }));
  await assert.rejects(
    exchangeSubjectToken(
      parseExternalAccount(fileJson({ file: join(dir, "other.txt") }, { audience: unknownPool })),
      undefined,
      env,
    ),
    { code: ERROR_CODES.STS_REJECTED, error: "invalid_target" },
  );
});

test("external_account_authorized_user: refreshed at /v1/oauthtoken; a wrong secret is refused without leaking", async () => {
  const json = emu.issueExternalAccountAuthorizedUser();
  const file = parseWorkforceUserFile({ ...json, token_url: "https://sts.googleapis.com/v1/oauthtoken" });
  assert.ok(emu.checkAccessToken((await refreshExternalAuthorizedUser(file, env)).accessToken));
  const wrong = { ...file, clientSecret: "GOCSPX-wr0ng/secret+value=" };
  const error = await refreshExternalAuthorizedUser(wrong, env).then(
    () => assert.fail("the emulator refused"),
    (e: unknown) => e,
  );
  assert.equal((error as { code: string }).code, ERROR_CODES.STS_REJECTED);
  assert.equal((error as { error: string }).error, "invalid_client");
  for (const secret of [wrong.clientSecret, file.refreshToken]) assertNoSecret(errorText(error), secret);
  const revoked = { ...file, refreshToken: "1//0gRevoked-Refresh/Token+value=" };
  const refused = await refreshExternalAuthorizedUser(revoked, env).catch((e: unknown) => e);
  assert.equal((refused as { error: string }).error, "invalid_grant");
  assertNoSecret(errorText(refused), revoked.refreshToken);
});
