import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { cache, CredCredentialsError, ERROR_CODES } from "cred-auth";
import { DEMO_CLIENT } from "cred-auth/emulator";
import { UserRefreshClient } from "google-auth-library";
import { getCredentialInfo } from "../../dist/protocols/info.js";
import { userRefreshClientFrom } from "../../dist/credentials/kinds/user/client.js";
import { withEmulator } from "../support/emulator.ts";
import { firstOutput, isolateHome, keyFileFields, userFileFields, userModel } from "../support/files.ts";

const SCOPES = ["https://www.googleapis.com/auth/cloud-platform", "https://www.googleapis.com/auth/bigquery"];
const emu = await withEmulator();

/** A UserRefreshClient the emulator accepts, as a sign-in would produce it. */
async function signedInClient(scopes = SCOPES) {
  return userRefreshClientFrom({
    type: "authorized_user",
    clientId: DEMO_CLIENT.clientId,
    clientSecret: DEMO_CLIENT.clientSecret,
    refreshToken: emu.issueRefreshToken({ scopes, account: "alice@example.com" }),
    tokenUrl: `${emu.url}/token`,
    scopes,
    account: "alice@example.com",
  });
}

/** Collects process warnings with our code until the test ends. */
function captureWarnings(t: TestContext): Error[] {
  const seen: Error[] = [];
  const listener = (warning: Error & { code?: string }) => {
    if (warning.code === cache.CACHE_WARNING_CODE) seen.push(warning);
  };
  process.on("warning", listener);
  t.after(() => process.off("warning", listener));
  return seen;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test("the constants are the right classes; NOOP neither finds nor writes anything", async (t) => {
  const home = isolateHome(t);
  assert.equal(cache.NOOP.constructor, cache.CredentialsCache);
  assert.ok(cache.READ_WRITE instanceof cache.ReadWriteCredentialsCache);
  assert.ok(cache.REAUTH instanceof cache.WriteOnlyCredentialsCache);
  assert.ok(!(cache.REAUTH instanceof cache.ReadWriteCredentialsCache));
  assert.equal(await cache.NOOP.load(), null);
  await cache.NOOP.save(await signedInClient());
  assert.deepEqual(readdirSync(home), []);
});

test("the path is $HOME/.config/<dirname>/<filename>, read when asked; both arguments respected", (t) => {
  const home = isolateHome(t);
  assert.equal(cache.READ_WRITE.path, join(home, ".config", "cred", "cred_credentials.json"));
  assert.equal(
    new cache.ReadWriteCredentialsCache({ dirname: "d1", filename: "f1.json" }).path,
    join(home, ".config", "d1", "f1.json"),
  );
  assert.equal(
    new cache.WriteOnlyCredentialsCache({ filename: "only-file.json" }).path,
    join(home, ".config", "cred", "only-file.json"),
  );
  assert.equal(
    new cache.ReadWriteCredentialsCache("positional", "pos.json").path,
    join(home, ".config", "positional", "pos.json"),
  );
  assert.equal(new cache.WriteOnlyCredentialsCache("wo").path, join(home, ".config", "wo", "cred_credentials.json"));
  const other = isolateHome(t);
  assert.equal(
    cache.READ_WRITE.path,
    join(other, ".config", "cred", "cred_credentials.json"),
    "HOME is read on each access",
  );
  assert.throws(() => new cache.ReadWriteCredentialsCache({ dirname: "" }), TypeError);
});

test("on Windows the directory is %APPDATA%/.config", () => {
  const dir = cache.configDirectory({ APPDATA: "/appdata-roaming" }, "win32");
  assert.equal(dir, join("/appdata-roaming", ".config"));
  assert.equal(cache.configDirectory({}, "linux"), join(homedir(), ".config"));
});

test("READ_WRITE: save then load gives working credentials with their scopes, client and account", async (t) => {
  isolateHome(t);
  const saved = await signedInClient();
  await cache.READ_WRITE.save(saved);
  const path = cache.READ_WRITE.path;
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(statSync(dirname(path)).mode & 0o777, 0o700);
  assert.equal(statSync(dirname(dirname(path))).mode & 0o777, 0o700, "a new ~/.config is created 0700 too");
  const json = JSON.parse(readFileSync(path, "utf8"));
  assert.equal(json.type, "authorized_user");
  assert.equal(json.client_id, DEMO_CLIENT.clientId);
  assert.deepEqual(json.scopes, SCOPES);
  assert.equal(json.token_uri, `${emu.url}/token`);
  assert.equal(json.account, "alice@example.com");
  assert.equal(json.access_token, undefined, "no access token on disk");

  const loaded = await new cache.ReadWriteCredentialsCache().load();
  assert.ok(loaded instanceof UserRefreshClient);
  assert.deepEqual(getCredentialInfo(loaded)?.scopes, SCOPES);
  assert.equal(getCredentialInfo(loaded)?.clientId, DEMO_CLIENT.clientId);
  assert.equal(getCredentialInfo(loaded)?.account, "alice@example.com");
  assert.equal(getCredentialInfo(loaded)?.path, path);
  const { token } = await loaded.getAccessToken();
  // Google grants in its own order, not the asked one: compare as sets.
  assert.deepEqual([...(emu.checkAccessToken(token!)?.scopes ?? [])].sort(), [...SCOPES].sort());
});

test("custom dirname/filename: the file goes exactly there", async (t) => {
  const home = isolateHome(t);
  const custom = new cache.ReadWriteCredentialsCache({ dirname: "my-tool", filename: "creds.json" });
  await custom.save(await signedInClient());
  assert.deepEqual(readdirSync(join(home, ".config")), ["my-tool"]);
  assert.deepEqual(readdirSync(join(home, ".config", "my-tool")), ["creds.json"]);
  assert.ok(await custom.load());
  assert.equal(await cache.READ_WRITE.load(), null, "the default file is another one");
});

test("REAUTH writes but never reads", async (t) => {
  isolateHome(t);
  const warnings = captureWarnings(t);
  await cache.REAUTH.save(await signedInClient());
  assert.ok(existsSync(cache.REAUTH.path));
  assert.equal(await cache.REAUTH.load(), null);
  assert.ok(await cache.READ_WRITE.load(), "the same file, read by READ_WRITE");
  writeFileSync(cache.REAUTH.path, "{corrupt");
  assert.equal(await cache.REAUTH.load(), null);
  await settle();
  assert.equal(warnings.length, 0, "REAUTH did not even look at the corrupt file");
});

test("a missing cache is null, silently, and creates nothing", async (t) => {
  const home = isolateHome(t);
  const warnings = captureWarnings(t);
  assert.equal(await cache.READ_WRITE.load(), null);
  await settle();
  assert.equal(warnings.length, 0);
  assert.deepEqual(readdirSync(home), []);
});

const UNUSABLE: Array<[string, (path: string) => void, RegExp]> = [
  ["corrupt", (p) => writeFileSync(p, '{"type": "authorized_user", '), /ends before its JSON is complete/],
  [
    "truncated",
    (p) => writeFileSync(p, JSON.stringify(userFileFields()).slice(0, 40)),
    /ends before its JSON is complete/,
  ],
  ["empty", (p) => writeFileSync(p, ""), /is empty/],
  ["wrong type", (p) => writeFileSync(p, JSON.stringify(keyFileFields())), /holds "service_account" credentials/],
  ["not a file", (p) => mkdirSync(p), /is a directory/],
  [
    "missing a field",
    (p) => writeFileSync(p, JSON.stringify({ ...userFileFields(), refresh_token: undefined })),
    /missing the required field "refresh_token"/,
  ],
];

for (const [name, spoil, problem] of UNUSABLE) {
  test(`a ${name} cache is null with exactly one warning naming the file; the next save replaces it`, async (t) => {
    isolateHome(t);
    const warnings = captureWarnings(t);
    const path = cache.READ_WRITE.path;
    mkdirSync(dirname(path), { recursive: true });
    spoil(path);
    assert.equal(await cache.READ_WRITE.load(), null);
    await settle();
    assert.equal(warnings.length, 1);
    assert.ok(warnings[0].message.includes(JSON.stringify(path)), warnings[0].message);
    assert.match(warnings[0].message, problem);
    assert.match(warnings[0].message, /The next sign-in replaces the file\.$/);
    assert.ok(!warnings[0].message.includes("SHOULD-NOT-LEAK"));
    if (name === "not a file") return; // a directory is not ours to replace
    await cache.READ_WRITE.save(await signedInClient());
    assert.ok(await cache.READ_WRITE.load());
  });
}

test("saving credentials without a refresh token is a clear error, nothing written", async (t) => {
  const home = isolateHome(t);
  const client = new UserRefreshClient({ clientId: "c", clientSecret: "s" });
  await assert.rejects(
    cache.READ_WRITE.save(client),
    (e: Error) =>
      e instanceof CredCredentialsError && e.code === ERROR_CODES.NOT_SAVABLE && /no refresh token/.test(e.message),
  );
  assert.deepEqual(readdirSync(home), []);
});

const SAVERS = 10;
const loadUserUrl = new URL("../../dist/credentials/kinds/user/client.js", import.meta.url).href;
const cacheUrl = new URL("../../dist/credentials-cache/index.js", import.meta.url).href;

/** A child process that builds credentials, waits for "go" on stdin, then saves them to the cache. */
function startSaver(home: string, refreshToken: string) {
  const script = `
    const { userRefreshClientFrom } = await import(${JSON.stringify(loadUserUrl)});
    const { READ_WRITE } = await import(${JSON.stringify(cacheUrl)});
    const client = await userRefreshClientFrom(${JSON.stringify({ ...userModel(), refreshToken, scopes: SCOPES, tokenUrl: "http://127.0.0.1:9/token" })});
    process.stdout.write("ready\\n");
    process.stdin.once("data", async () => { await READ_WRITE.save(client); process.exit(0); });
  `;
  return spawn(process.execPath, ["--input-type=module", "-e", script], {
    env: { ...process.env, HOME: home },
    stdio: ["pipe", "pipe", "inherit"],
  });
}

test(`${SAVERS} processes saving at the same moment leave one whole, valid cache file`, async (t) => {
  const home = isolateHome(t);
  for (let round = 0; round < 3; round++) {
    const tokens = Array.from({ length: SAVERS }, (_, i) => `refresh-round${round}-saver${i}-${"r".repeat(100_000)}`);
    const children = tokens.map((token) => startSaver(home, token));
    const exits = children.map((child) => new Promise<number | null>((resolve) => child.once("exit", resolve)));
    await Promise.all(children.map(firstOutput));
    for (const child of children) child.stdin.end("go\n");
    assert.deepEqual(await Promise.all(exits), Array(SAVERS).fill(0));
    const json = JSON.parse(readFileSync(cache.READ_WRITE.path, "utf8"));
    assert.ok(tokens.includes(json.refresh_token), `round ${round}: the file is one of the writes, whole`);
    assert.deepEqual(json.scopes, SCOPES);
    assert.deepEqual(readdirSync(dirname(cache.READ_WRITE.path)), ["cred_credentials.json"], "no temporary files left");
  }
});
