// The workforce-user kind (credentials/kinds/workforce-user/) as the table hands it out: its file's fields and
// defaults, the URLs it may name, its token (cloud-platform, a rotated refresh token kept and its token cached
// under the next run's key), what status says, that it mints no ID token, cannot be revoked nor replaced by login.
import assert from "node:assert/strict";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ERROR_CODES } from "cred-auth";
import {
  parseWorkforceUserFile,
  workforceUserTokenKey,
  workforceUserTokenUrl,
} from "../../dist/credentials/kinds/workforce-user/file.js";
import { workforceUserKind } from "../../dist/credentials/kinds/workforce-user/index.js";
import { setCredentialInfo } from "../../dist/protocols/info.js";
import { readCachedToken } from "../../dist/token-cache/store.js";
import { trustedUniverse } from "../../dist/trust/urls.js";
import { isolatedWorld } from "./support.ts";

const { emulator, home } = await isolatedWorld();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const STS = "https://sts.googleapis.com/v1/oauthtoken";
const universe = trustedUniverse(process.env);
const dir = join(home, "tokens");

function fileAt(name: string, extra: Record<string, string> = {}) {
  const json: Record<string, string> = { ...emulator.issueExternalAccountAuthorizedUser(), token_url: STS, ...extra };
  const path = join(home, name);
  writeFileSync(path, JSON.stringify(json), { mode: 0o600 });
  return { json, path, file: parseWorkforceUserFile(json, path) };
}

const request = (path: string, warnings: string[] = []) => ({
  path,
  env: process.env,
  universe,
  requested: ["https://www.googleapis.com/auth/bigquery"],
  cache: { fresh: false, dir },
  warnings,
});

test("the file's fields: STS's token URL and googleapis.com by default, the optional ones only when given", () => {
  const bare: Record<string, string> = { audience: "a", client_id: "c", client_secret: "s", refresh_token: "r" };
  assert.deepEqual(parseWorkforceUserFile({ type: "external_account_authorized_user", ...bare }, "f.json"), {
    type: "external_account_authorized_user",
    audience: "a",
    clientId: "c",
    clientSecret: "s",
    refreshToken: "r",
    tokenUrl: STS,
    universeDomain: "googleapis.com",
  });
  const full = { ...bare, universe_domain: "example.com", token_info_url: "i", revoke_url: "v", quota_project_id: "q" };
  const parsed = parseWorkforceUserFile(full, "f.json");
  assert.equal(parsed.tokenUrl, "https://sts.example.com/v1/oauthtoken");
  assert.deepEqual([parsed.tokenInfoUrl, parsed.revokeUrl, parsed.quotaProjectId], ["i", "v", "q"]);
  for (const field of ["audience", "client_id", "client_secret", "refresh_token"]) {
    const { [field]: _, ...without } = bare;
    assert.throws(() => parseWorkforceUserFile(without, "f.json"), { code: ERROR_CODES.FILE_INVALID }, field);
  }
});

test("every URL the file names is judged: a foreign token_info_url or revoke_url is refused as a token_url is", () => {
  const { file } = fileAt("urls.json");
  assert.equal(workforceUserTokenUrl(file, universe, "urls.json"), `${emulator.url}/v1/oauthtoken`);
  for (const field of ["tokenUrl", "tokenInfoUrl", "revokeUrl"])
    assert.throws(() => workforceUserTokenUrl({ ...file, [field]: "https://evil.example/x" }, universe, "u.json"), {
      code: ERROR_CODES.UNSAFE_TOKEN_URL,
    });
  assert.throws(() => workforceUserTokenUrl({ ...file, universeDomain: "other.example" }, universe, "u.json"), {
    code: ERROR_CODES.UNTRUSTED_UNIVERSE,
  });
});

test("its token is cloud-platform whatever is asked; the rotated refresh token is kept and its token cached for the next run", async () => {
  const { path, file } = fileAt("token.json");
  const token = await workforceUserKind.accessToken(file, request(path));
  assert.deepEqual(emulator.checkAccessToken(token.access_token)?.scopes, [CLOUD]);
  const rotated = (JSON.parse(readFileSync(path, "utf8")) as { refresh_token: string }).refresh_token;
  assert.notEqual(rotated, file.refreshToken, "STS rotated it, and the file keeps the new one");
  const tokenUrl = workforceUserTokenUrl(file, universe, path);
  const next = readCachedToken(workforceUserTokenKey({ ...file, refreshToken: rotated }, tokenUrl), { dir });
  assert.equal(next?.access_token, token.access_token, "the next run, reading the new token, finds this one");
  assert.equal(readCachedToken(workforceUserTokenKey(file, tokenUrl), { dir })?.access_token, token.access_token);
});

test("a file cred-auth may not write: the token still comes, with a warning", async () => {
  const { path, file } = fileAt("shared.json");
  chmodSync(path, 0o666);
  const warnings: string[] = [];
  const token = await workforceUserKind.accessToken(file, request(path, warnings));
  assert.ok(emulator.checkAccessToken(token.access_token));
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0] as string,
    /did not write the new one there: the file may be written by others \(mode 666\)/,
  );
  assert.equal(JSON.parse(readFileSync(path, "utf8")).refresh_token, file.refreshToken, "the file is left alone");
});

test("what status says, whose it is, and what revoke and login do with such a file", () => {
  const { json, path, file } = fileAt("status.json", { quota_project_id: "workforce-project" });
  const tokenUrl = workforceUserTokenUrl(file, universe, path);
  const looked: string[] = [];
  const status = workforceUserKind.describe(file, {
    path,
    universe,
    cached: (key) => {
      looked.push(key);
      return { state: "none" };
    },
  });
  assert.deepEqual(status, {
    audience: file.audience,
    scopes: [CLOUD],
    quotaProject: "workforce-project",
    universe: "googleapis.com",
    accessToken: { state: "none" },
    noAccount: "a federated identity (the file names none)",
  });
  assert.deepEqual(looked, [workforceUserTokenKey(file, tokenUrl)]);
  assert.deepEqual(workforceUserKind.cachedTokens(file, { universe, path }), { keys: looked, owners: [] });
  assert.deepEqual(
    [workforceUserKind.account(file), workforceUserKind.signedInAccount(file), workforceUserKind.actsAs(file)],
    [undefined, undefined, undefined],
  );
  assert.deepEqual(workforceUserKind.revocation(file, { universe, path }), {
    notRevocable:
      "holds a workforce identity federation sign-in, which cred-auth cannot revoke: sign out with gcloud auth revoke, or ask your administrator",
  });
  assert.equal(
    workforceUserKind.notReplaceable(json),
    "a workforce identity federation sign-in (external_account_authorized_user)",
  );
  assert.equal(workforceUserKind.keepsGrantedScopes, false);
  assert.equal(workforceUserKind.ownIdToken, false);
});

test("it mints no ID token: from its file, and from a client without a file", async () => {
  const { path, file } = fileAt("id.json");
  const asked = { path, env: process.env, universe, audience: "a", includeEmail: false, cache: { fresh: false, dir } };
  assert.throws(
    () => workforceUserKind.idToken(file, asked),
    (error: Error & { code?: string }) => {
      assert.equal(error.code, ERROR_CODES.ID_TOKEN_UNSUPPORTED);
      assert.ok(error.message.includes(JSON.stringify(path)), error.message);
      return true;
    },
  );
  const { credentials, projectId } = await workforceUserKind.client(file, path, {
    scopes: [CLOUD],
    env: process.env,
    universe,
  });
  assert.equal(projectId, null);
  const viaFile: string[] = [];
  const clientRequest = {
    audience: "a",
    includeEmail: false,
    env: process.env,
    fromFile: async (from: string) => {
      viaFile.push(from);
      return { idToken: "t", expiresAt: 0 };
    },
    remembered: (mint: () => Promise<{ idToken: string; expiresAt: number }>) => mint(),
  };
  await assert.rejects(workforceUserKind.clientIdToken(credentials, clientRequest), {
    code: ERROR_CODES.ID_TOKEN_UNSUPPORTED,
    message: /^This federation client holds external_account credentials/,
  });
  const recorded = {};
  setCredentialInfo(recorded, { scopes: [], path });
  await workforceUserKind.clientIdToken(recorded as typeof credentials, clientRequest);
  assert.deepEqual(viaFile, [path], "a client whose file is known asks the file's way");
  const { credentials: sourced } = await workforceUserKind.sourceClient(file, path, {
    env: process.env,
    universe,
    spot: { place: "source_credentials", check: () => {} },
  });
  assert.ok(emulator.checkAccessToken((await sourced.getAccessToken()).token as string));
});
