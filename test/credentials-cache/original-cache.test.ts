// pydata-google-auth's own cache tests (tests/unit/test_cache.py at ab92349), translated to cred-auth
// and node:test. The original saves any user `Credentials` object, also one the caller built; the
// equivalent here is a google-auth-library `UserRefreshClient` built by the caller, read through its
// public typed fields (`_clientId`, `_clientSecret`, `credentials.refresh_token`). Differences on
// purpose: the original's `token_uri="token_uri"` is no URL, which the URL policy refuses
// (docs/security.md), so the client keeps google-auth-library's token URL or names the emulator's.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, normalize, sep } from "node:path";
import { test } from "node:test";
import { CredCredentialsError, ERROR_CODES, cache } from "cred-auth";
import { DEMO_CLIENT } from "cred-auth/emulator";
import { UserRefreshClient } from "google-auth-library";
import { withEmulator } from "../support/emulator.ts";
import { isolateHome, tempDir } from "../support/files.ts";

const emu = await withEmulator();
const REFRESH = "1//0gFAKE-refresh/token+with=slashes";
const SECRET = "GOCSPX-fake/secret+with=";

/** What the original's test builds: user credentials made by hand, not by a sign-in. */
function userBuiltClient(fields: { clientSecret?: string; refreshToken?: string; tokenUrl?: string } = {}) {
  const client = new UserRefreshClient({
    clientId: "client_id.apps.googleusercontent.com",
    ...("clientSecret" in fields ? { clientSecret: fields.clientSecret } : { clientSecret: SECRET }),
    ...("refreshToken" in fields ? { refreshToken: fields.refreshToken } : { refreshToken: REFRESH }),
    ...(fields.tokenUrl ? { endpoints: { oauth2TokenUrl: fields.tokenUrl } } : {}),
  });
  client.credentials = { ...client.credentials, access_token: "ya29.access_token", id_token: "id_token" };
  client.credentials.scope = "https://www.googleapis.com/auth/cloud-platform";
  return client;
}

test("test_import_unwriteable_fs: importing with an unwritable file system works, NOOP is there", (t) => {
  // The original makes os.makedirs fail; here HOME is a file, so no directory can be made under it.
  const home = join(tempDir(t, "cred-auth-unwritable-"), "not-a-directory");
  writeFileSync(home, "");
  const out = execFileSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `const { cache } = await import("cred-auth"); console.log(cache.NOOP !== undefined);`,
    ],
    { env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, "x"), APPDATA: join(home, "y") } },
  );
  assert.equal(out.toString().trim(), "true");
});

test("test__get_default_credentials_path_windows_wo_appdata: a sensible path without APPDATA", () => {
  const dir = cache.configDirectory({}, "win32");
  assert.ok(dir.length > 0 && dir.endsWith(".config"), dir);
  assert.ok(new cache.ReadWriteCredentialsCache("dirname", "filename").path.endsWith(join("dirname", "filename")));
});

test("test__save_user_account_credentials_wo_directory: a user-built client is saved; directories are made", async (t) => {
  const home = isolateHome(t);
  const target = new cache.ReadWriteCredentialsCache({ dirname: "pydata", filename: "pydata_google_credentials.json" });
  const path = join(home, ".config", "pydata", "pydata_google_credentials.json");
  assert.equal(target.path, path);
  assert.ok(!existsSync(join(home, ".config", "pydata")));

  await target.save(userBuiltClient());

  const saved = JSON.parse(readFileSync(path, "utf8"));
  assert.equal(saved.refresh_token, REFRESH);
  // So that the cache file can be used as application default credentials (the original's issue 22).
  assert.equal(saved.type, "authorized_user");
  assert.equal(saved.client_id, "client_id.apps.googleusercontent.com");
  assert.equal(saved.client_secret, SECRET);
  assert.equal(saved.id_token, "id_token");
  assert.equal(saved.token_uri, "https://oauth2.googleapis.com/token");
  assert.deepEqual(saved.scopes, ["https://www.googleapis.com/auth/cloud-platform"]);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(statSync(join(home, ".config", "pydata")).mode & 0o777, 0o700);
});

test("a user-built client saved to the cache loads back and refreshes (against the emulator)", async (t) => {
  isolateHome(t);
  const scopes = ["https://www.googleapis.com/auth/cloud-platform"];
  const refreshToken = emu.issueRefreshToken({ scopes, account: "alice@example.com" });
  const built = new UserRefreshClient({
    clientId: DEMO_CLIENT.clientId,
    clientSecret: DEMO_CLIENT.clientSecret,
    refreshToken,
    endpoints: { oauth2TokenUrl: `${emu.url}/token` },
  });
  await cache.READ_WRITE.save(built);
  const loaded = await cache.READ_WRITE.load();
  assert.ok(loaded, "the saved file is a usable cache");
  const { token } = await loaded.getAccessToken();
  assert.deepEqual(emu.checkAccessToken(token ?? "")?.scopes, scopes);
  // The same file through the WriteOnly cache (REAUTH) too.
  await cache.REAUTH.save(built);
  assert.equal(JSON.parse(readFileSync(cache.REAUTH.path, "utf8")).refresh_token, refreshToken);
});

test("test_ReadWriteCredentialsCache_sets_path: dirname and filename are respected", () => {
  const parts = normalize(new cache.ReadWriteCredentialsCache({ dirname: "dirtest", filename: "filetest.json" }).path)
    .split(sep)
    .slice(-2);
  assert.deepEqual(parts, ["dirtest", "filetest.json"]);
});

test("test_WriteOnlyCredentialsCache_sets_path: dirname and filename are respected", () => {
  const parts = normalize(new cache.WriteOnlyCredentialsCache({ dirname: "dirtest", filename: "filetest.json" }).path)
    .split(sep)
    .slice(-2);
  assert.deepEqual(parts, ["dirtest", "filetest.json"]);
});

test("a client that really lacks its secret or refresh token is still refused (ERR_NOT_SAVABLE), nothing written", async (t) => {
  const home = isolateHome(t);
  for (const [client, why] of [
    [userBuiltClient({ clientSecret: undefined }), /no OAuth client id and secret/],
    [userBuiltClient({ clientSecret: "" }), /no OAuth client id and secret/],
    [userBuiltClient({ refreshToken: undefined }), /no refresh token/],
  ] as const) {
    await assert.rejects(cache.READ_WRITE.save(client), (error: unknown) => {
      assert.ok(error instanceof CredCredentialsError, String(error));
      assert.equal(error.code, ERROR_CODES.NOT_SAVABLE);
      assert.match(error.message, why);
      assert.ok(!error.message.includes(REFRESH) && !error.message.includes(SECRET));
      return true;
    });
  }
  assert.deepEqual(readdirSync(home), []);
});

test("a user-built client whose token URL is not Google's is refused by the URL policy, nothing written", async (t) => {
  const home = isolateHome(t);
  await assert.rejects(
    cache.READ_WRITE.save(userBuiltClient({ tokenUrl: "https://oauth2.example.com/token" })),
    (error: unknown) => {
      assert.ok(error instanceof CredCredentialsError, String(error));
      assert.equal(error.code, ERROR_CODES.UNSAFE_TOKEN_URL);
      assert.ok(!error.message.includes(REFRESH) && !error.message.includes(SECRET));
      return true;
    },
  );
  assert.deepEqual(readdirSync(home), []);
});

test("test__save_user_account_credentials into a directory that cannot be written: save() throws (unlike the original), a sign-in warns", async (t) => {
  // The original logs "Unable to save credentials." and returns. cred-auth's direct save() keeps
  // its throw on purpose (docs/caching.md, "When the file cannot be written"): the caller asked to
  // keep credentials, so it hears that they were not kept, with a code. The sign-in path
  // (getUserCredentials, default) is where the original's warning-and-go-on lives.
  const home = isolateHome(t);
  writeFileSync(join(home, ".config"), "a file where the configuration directory should be");
  const target = new cache.ReadWriteCredentialsCache({
    dirname: "pydata",
    filename: "pydata_google_credentials.json",
    secretStore: "file",
  });
  await assert.rejects(target.save(userBuiltClient()), (error: Error) => {
    assert.ok(error instanceof CredCredentialsError);
    assert.equal(error.code, ERROR_CODES.FILE_UNWRITABLE);
    assert.ok(error.message.includes(target.path), error.message);
    assert.ok(!error.message.includes(REFRESH) && !error.message.includes(SECRET), "no secret in the message");
    return true;
  });
  assert.equal(readFileSync(join(home, ".config"), "utf8"), "a file where the configuration directory should be");
});
