// The workforce-user kind (credentials/kinds/workforce-user/) as the table hands it out: its file's fields and
// defaults, the URLs it may name, its token (cloud-platform, a rotated refresh token kept and its token cached
// under the next run's key), what status says, that it mints no ID token, cannot be revoked nor replaced by login.
import assert from "node:assert/strict";
import { chmodSync, lstatSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ERROR_CODES } from "cred-auth";
import {
  parseWorkforceUserFile,
  workforceUserTokenKey,
  workforceUserTokenUrl,
} from "../../dist/credentials/kinds/workforce-user/file.js";
import { workforceUserKind } from "../../dist/credentials/kinds/workforce-user/index.js";
import {
  IN_THE_FILE,
  keepRotatedRefreshToken,
  refreshTokenHome,
  withRotatedRefreshToken,
} from "../../dist/credentials/kinds/workforce-user/tokens.js";
import { kindNamed } from "../../dist/credentials/kinds/table.js";
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

const refreshTokenOf = (path: string, json = JSON.parse(readFileSync(path, "utf8"))) =>
  (json as { refresh_token: string }).refresh_token;

test("STS not rotating: the file stays as it is, no warning, default()'s client carries the file's quota project", async (t) => {
  emulator.setStsRefreshTokenRotation(false);
  t.after(() => emulator.setStsRefreshTokenRotation(true));
  const { path, json, file } = fileAt("steady.json", { quota_project_id: "steady-project" });
  const before = readFileSync(path, "utf8");
  const warnings: string[] = [];
  const token = await workforceUserKind.accessToken(file, request(path, warnings));
  assert.ok(emulator.checkAccessToken(token.access_token));
  assert.deepEqual(warnings, []);
  assert.equal(readFileSync(path, "utf8"), before, "nothing to write back");
  const emitted: Error[] = [];
  const listen = (warning: Error) => emitted.push(warning);
  process.on("warning", listen);
  try {
    const { credentials, projectId } = await workforceUserKind.client(file, path, {
      scopes: [CLOUD],
      env: process.env,
      universe,
    });
    assert.equal(projectId, "steady-project");
    assert.equal(credentials.quotaProjectId, "steady-project", "its requests bill the file's quota project");
    assert.ok(emulator.checkAccessToken((await credentials.getAccessToken()).token as string));
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off("warning", listen);
  }
  assert.deepEqual(emitted, []);
  assert.equal(refreshTokenOf(path), json.refresh_token);
  const plain = fileAt("steady-plain.json").file;
  const { credentials } = await workforceUserKind.client(plain, join(home, "steady-plain.json"), {
    scopes: [CLOUD],
    env: process.env,
    universe,
  });
  assert.equal(credentials.quotaProjectId, undefined);
});

test("an impersonated file whose source is a workforce user: the rotated token goes into source_credentials", async () => {
  const target = "workforce-kind@wf-project.iam.gserviceaccount.com";
  emulator.addServiceAccount({
    email: target,
    tokenCreators: ["principalSet://iam.googleapis.com/locations/global/workforcePools/emu-workforce/*"],
  });
  const source: Record<string, string> = { ...emulator.issueExternalAccountAuthorizedUser(), token_url: STS };
  const path = join(home, "impersonated-workforce.json");
  const json = {
    type: "impersonated_service_account",
    service_account_impersonation_url: `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${target}:generateAccessToken`,
    source_credentials: source,
  };
  writeFileSync(path, JSON.stringify(json), { mode: 0o600 });
  const kind = kindNamed("impersonated_service_account");
  assert.ok(kind);
  const warnings: string[] = [];
  const token = await kind.accessToken(kind.parse(json, path), request(path, warnings));
  assert.equal(emulator.checkAccessToken(token.access_token)?.account, target);
  assert.deepEqual(warnings, []);
  const kept = JSON.parse(readFileSync(path, "utf8"));
  assert.notEqual(kept.source_credentials.refresh_token, source.refresh_token, "rotated, and kept in the source");
  assert.equal(kept.refresh_token, undefined, "not at the file's top");
  assert.equal(kept.type, "impersonated_service_account");
});

test("the write-back goes to the file a link names, judged there; never to another file than the one read", async () => {
  const rotate = (home: ReturnType<typeof refreshTokenHome>, sent: string) =>
    keepRotatedRefreshToken(home, { sent, rotated: `${sent}-next` });
  // A link into a private directory: the final file gets the token, the link stays a link.
  const store = join(home, "wb-store");
  mkdirSync(store, { mode: 0o700 });
  const target = fileAt("wb-store/workforce.json");
  const link = join(home, "wb-link.json");
  symlinkSync(target.path, link);
  const linked = refreshTokenHome(link, IN_THE_FILE);
  assert.equal(await rotate(linked, target.json.refresh_token as string), undefined);
  assert.equal(refreshTokenOf(target.path), `${target.json.refresh_token}-next`);
  assert.ok(lstatSync(link).isSymbolicLink());
  assert.equal(statSync(target.path).mode & 0o777, 0o600);
  // Once written, the file is the new one: the next rotation goes there too.
  assert.equal(await rotate(linked, `${target.json.refresh_token}-next`), undefined);
  assert.equal(refreshTokenOf(target.path), `${target.json.refresh_token}-next-next`);
  // Someone wrote another token since: theirs stays, and nothing is said.
  assert.equal(await rotate(linked, target.json.refresh_token as string), undefined);
  assert.equal(refreshTokenOf(target.path), `${target.json.refresh_token}-next-next`);
  // A link re-pointed into a directory anyone may write: refused there, in the writer's words.
  const open = join(home, "wb-open");
  mkdirSync(open);
  chmodSync(open, 0o777);
  const planted = fileAt("wb-open/workforce.json");
  const repointed = refreshTokenHome(link, IN_THE_FILE);
  rmSync(link);
  symlinkSync(planted.path, link);
  const foreign = refreshTokenHome(link, IN_THE_FILE);
  assert.equal(
    await rotate(foreign, planted.json.refresh_token as string),
    `Google's Security Token Service replaced the refresh token of ${JSON.stringify(link)} and the old one no longer works, but cred-auth did not write the new one there: Could not write credentials to ${JSON.stringify(planted.path)}: the directory ${JSON.stringify(open)} may be written by anyone (mode 777); cred-auth writes no secret there. This run has its token; the next one fails until you sign in again (gcloud auth application-default login --login-config=FILE). Keep the file yours and private (chmod 600) so cred-auth can update it.`,
  );
  assert.deepEqual(JSON.parse(readFileSync(planted.path, "utf8")), planted.json);
  // The path names another file than the one read (same token): neither gets the new one.
  assert.match(
    (await rotate(repointed, planted.json.refresh_token as string)) as string,
    /did not write the new one there: the file is not the file the refresh token was read from\. This run/,
  );
  assert.deepEqual(JSON.parse(readFileSync(planted.path, "utf8")), planted.json);
  // A file that was not there when read, nor one that is gone, is written.
  const late = join(home, "wb-late.json");
  const unseen = refreshTokenHome(late, IN_THE_FILE);
  assert.equal(unseen.read, undefined);
  const made = fileAt("wb-late.json");
  assert.match(
    (await rotate(unseen, made.json.refresh_token as string)) as string,
    /is not the file the refresh token/,
  );
  assert.equal(refreshTokenOf(late), made.json.refresh_token);
  const gone = refreshTokenHome(late, IN_THE_FILE);
  rmSync(late);
  assert.match(
    (await rotate(gone, made.json.refresh_token as string)) as string,
    /did not write the new one there: it could not be read \(ENOENT\)\. This run/,
  );
});

test("the rotated token is written only into a file still of its kind, at its spot", () => {
  const tokens = { sent: "old", rotated: "new" };
  const { json } = fileAt("wr.json");
  const mine = JSON.stringify({ ...json, refresh_token: "old" });
  const written = withRotatedRefreshToken(mine, IN_THE_FILE, tokens, "wr.json");
  assert.equal(written, `${JSON.stringify({ ...json, refresh_token: "new" }, null, 2)}\n`);
  assert.equal(withRotatedRefreshToken(mine, IN_THE_FILE, { sent: "other", rotated: "new" }, "wr.json"), undefined);
  const spotted: unknown[] = [];
  const inSource = { place: "source_credentials" as const, check: (j: unknown) => void spotted.push(j) };
  const nested = JSON.stringify({ type: "impersonated_service_account", source_credentials: JSON.parse(mine) });
  const rewritten = JSON.parse(withRotatedRefreshToken(nested, inSource, tokens, "imp.json") as string);
  assert.equal(rewritten.source_credentials.refresh_token, "new");
  assert.deepEqual(spotted, [rewritten], "the whole file checked at the spot's own rule");
  const refused = (text: string, spot = IN_THE_FILE) => {
    try {
      withRotatedRefreshToken(text, spot, tokens, "x.json");
    } catch (error) {
      assert.equal((error as { code?: string }).code, ERROR_CODES.FILE_INVALID);
      return (error as Error).message;
    }
    assert.fail(`${text} was written`);
  };
  assert.match(refused("{"), /"x\.json" is no longer JSON/);
  assert.match(refused("[1]"), /"x\.json" is no longer a JSON object/);
  assert.match(refused(nested), /"x\.json" no longer holds external_account_authorized_user credentials/);
  assert.match(refused(mine, inSource), /no longer holds external_account_authorized_user credentials/);
  assert.match(refused(JSON.stringify({ ...json, type: "authorized_user", refresh_token: "old" })), /no longer holds/);
  const { client_id: _, ...clientless }: Record<string, string> = { ...json, refresh_token: "old" };
  assert.match(refused(JSON.stringify(clientless)), /client_id/, "the file is checked as a workforce user's");
});
