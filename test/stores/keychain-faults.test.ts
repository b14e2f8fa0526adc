// The keychain store under attack, load and faults, with a real Secret Service (issue 49): a bus or
// Secret Service of another user (uid 65534) gets no secret; ten saves at once leave one usable cache
// and one entry; a full disk, a save from another mount namespace and a restarted daemon leave a usable
// cache or the right words; processes starting cold share one refresh. Each case runs real processes.
import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { promisify } from "node:util";
import { approveSignIn, DEMO_CLIENT } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { tempDir } from "../support/files.ts";
import { type SecretService, startForeignBus, startSecretService } from "../support/secret-service.ts";

const run = promisify(execFile);
const DIST = new URL("../../dist/", import.meta.url).pathname;
const CLI = join(DIST, "cli.js");
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const emu = await withEmulator();

/** Saves one refresh token (argv[1]) to the default cache when told "go" (or at once without WAIT); prints "saved" or the error's code and words. */
const SAVER = `
const { cache } = require(${JSON.stringify(join(DIST, "index.js"))});
const { userRefreshClientFrom } = require(${JSON.stringify(join(DIST, "credentials/kinds/user/client.js"))});
(async () => {
  const client = await userRefreshClientFrom({ type: "authorized_user", clientId: ${JSON.stringify(DEMO_CLIENT.clientId)},
    clientSecret: ${JSON.stringify(DEMO_CLIENT.clientSecret)}, refreshToken: process.argv[1], tokenUrl: process.env.TOKEN_URL, scopes: [${JSON.stringify(CLOUD)}] });
  if (process.env.WAIT) { process.stdout.write("ready\\n"); await new Promise((r) => process.stdin.once("data", r)); }
  await cache.READ_WRITE.save(client).then(() => process.stdout.write("saved\\n"), (e) => process.stdout.write("ERROR " + e.code + " " + e.message + "\\n"));
})();
`;

/** Loads the default cache and gets a token (the keychain read when no token is cached); prints "TOKEN t" or the error. */
const LOADER = `
const { getUserCredentials } = require(${JSON.stringify(join(DIST, "index.js"))});
const presenter = { update(e) { if (e.type === "url") process.stdout.write("URL " + e.url + "\\n"); } };
getUserCredentials([${JSON.stringify(CLOUD)}], { presenter, useLocalWebserver: true })
  .then((c) => c.getAccessToken()).then(({ token }) => process.stdout.write("TOKEN " + token + "\\n"),
    (e) => process.stdout.write("ERROR " + e.code + " " + e.constructor.name + " " + e.message + "\\n"));
`;

interface World {
  home: string;
  env: NodeJS.ProcessEnv;
  cachePath: string;
}

function world(t: TestContext, address?: string, home = tempDir(t, "cred-auth-faults-")): World {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    CRED_AUTH_HOSTED: "off",
    BROWSER: "none",
    CRED_AUTH_EMULATOR_HOST: emu.host,
    CRED_AUTH_KEYCHAIN_TIMEOUT_MS: "30000", // a loaded machine starts node slowly
    TOKEN_URL: `${emu.url}/token`,
    ...(address ? { DBUS_SESSION_BUS_ADDRESS: address } : {}),
  };
  return { home, env, cachePath: join(home, ".config", "cred", "cred_credentials.json") };
}

async function save(
  env: NodeJS.ProcessEnv,
  refreshToken = emu.issueRefreshToken({ scopes: [CLOUD] }),
): Promise<string> {
  const { stdout } = await run(process.execPath, ["-e", SAVER, refreshToken], { env });
  return stdout.trim();
}

/** Runs {@link LOADER} once; approves a sign-in if one is asked for (and says so). */
async function load(env: NodeJS.ProcessEnv): Promise<{ out: string; signedIn: boolean }> {
  const child: ChildProcess = spawn(process.execPath, ["-e", LOADER], { env, stdio: ["ignore", "pipe", "ignore"] });
  let out = "";
  let signedIn = false;
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
    const url = /^URL (\S+)$/m.exec(out)?.[1];
    if (url && !signedIn) {
      signedIn = true;
      approveSignIn(url).catch(() => {});
    }
  });
  await new Promise((resolve) => child.on("close", resolve));
  return { out, signedIn };
}

/** The entries' accounts, and whether the cache file names one of them and holds no secret. */
async function state(
  service: SecretService,
  w: World,
): Promise<{ accounts: string[]; named?: string; secretInFile: boolean }> {
  const accounts = (await service.entries()).map((e) => e.account).sort();
  if (!existsSync(w.cachePath)) return { accounts, secretInFile: false };
  const json = JSON.parse(readFileSync(w.cachePath, "utf8"));
  return { accounts, named: json.cred_auth_keychain?.account, secretInFile: "refresh_token" in json };
}

for (const ownSocket of [false, true])
  test(`a session bus ${ownSocket ? "of the user's whose Secret Service is" : "at a socket"} of another user (uid 65534) gets no secret: auto keeps the file, keychain refuses`, async (t) => {
    const real = await startSecretService(t);
    if (!real) return;
    real.stop();
    const foreign = await startForeignBus(t, ownSocket);
    const w = world(t, foreign.address);
    const owner = ownSocket
      ? /the Secret Service on the session bus belongs to another user \(uid 65534\)/
      : /the session bus at \S+ belongs to another user \(uid 65534\)/;
    assert.equal(await save(w.env), "saved");
    assert.ok("refresh_token" in JSON.parse(readFileSync(w.cachePath, "utf8")), "auto kept the file");
    const status = await run(process.execPath, [CLI, "status", "--no-check"], { env: w.env });
    assert.match(status.stdout, new RegExp(`^refresh token: +in this file, not in the keychain: ${owner.source}`, "m"));
    const strict = await save({
      ...w.env,
      CRED_AUTH_SECRET_STORE: "keychain",
      HOME: tempDir(t),
      XDG_CONFIG_HOME: undefined,
    });
    assert.match(strict, /^ERROR ERR_KEYCHAIN_UNAVAILABLE The refresh token was to be kept in the keychain/);
    assert.match(strict, owner);
    assert.equal(await foreign.entries(), "", "the other user's keyring received nothing");
  });

test("ten saves into one cache at once leave one usable cache and one entry, the one it names (three rounds)", async (t) => {
  const service = await startSecretService(t);
  if (!service) return;
  t.after(() => service.stop());
  const w = world(t, service.address);
  assert.equal(await save(w.env), "saved");
  for (let round = 1; round <= 3; round++) {
    const savers = Array.from({ length: 10 }, () => {
      const child = spawn(process.execPath, ["-e", SAVER, emu.issueRefreshToken({ scopes: [CLOUD] })], {
        env: { ...w.env, WAIT: "1" },
        stdio: ["pipe", "pipe", "ignore"],
      });
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
      return { child, out: () => out, ready: new Promise<void>((r) => child.stdout.once("data", () => r())) };
    });
    await Promise.all(savers.map((s) => s.ready));
    for (const s of savers) s.child.stdin.end("go\n");
    await Promise.all(savers.map((s) => new Promise((r) => s.child.on("close", r))));
    for (const s of savers) assert.match(s.out(), /saved/, `round ${round}: ${s.out()}`);
    const { accounts, named } = await state(service, w);
    assert.deepEqual(accounts, [named], `round ${round}: one entry, the one the file names`);
    const loaded = await load({ ...w.env, CRED_AUTH_TOKEN_CACHE: "off" });
    assert.equal(loaded.signedIn, false);
    assert.match(loaded.out, /^TOKEN ya29\./m, `round ${round}: usable`);
  }
  assert.deepEqual(
    readdirSync(join(w.home, ".config", "cred")).filter((f) => f.endsWith(".lock")),
    [],
    "no lock left",
  );
});

test("a full disk: a re-save fails with the right words and the cache keeps working; a first save leaves no entry", async (t) => {
  const service = await startSecretService(t);
  if (!service) return;
  t.after(() => service.stop());
  const home = mkdtempSync(join(tmpdir(), "cred-auth-full-"));
  await run("mount", ["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", home]);
  t.after(async () => {
    await run("umount", ["-l", home]);
    rmSync(home, { recursive: true, force: true });
  });
  const w = world(t, service.address, home);
  assert.equal(await save(w.env), "saved");
  const before = await state(service, w);
  const fill = join(home, "filler");
  await run("sh", ["-c", `cat /dev/zero > ${fill} 2>/dev/null; true`]);
  const failed = await save(w.env);
  assert.match(
    failed,
    /^ERROR ERR_FILE_UNWRITABLE Could not write credentials to .*: (no space left|the disk is full)/i,
  );
  assert.doesNotMatch(failed, /1\/\//);
  assert.deepEqual(
    await state(service, w),
    before,
    "the old file names its entry, which is still there, and nothing more",
  );
  const loaded = await load({ ...w.env, CRED_AUTH_TOKEN_CACHE: "off" });
  assert.equal(loaded.signedIn, false);
  assert.match(loaded.out, /^TOKEN ya29\./m, loaded.out);

  const other = world(t, service.address, join(home, "other"));
  const first = await save({ ...other.env, XDG_CONFIG_HOME: join(home, "other", ".config") });
  assert.match(first, /^ERROR ERR_FILE_UNWRITABLE/);
  assert.deepEqual((await state(service, w)).accounts, before.accounts, "the failed first save left no entry behind");
});

test("a save from another mount namespace, which cannot see a cache, leaves that cache's entry alone", async (t) => {
  const service = await startSecretService(t);
  if (!service) return;
  t.after(() => service.stop());
  const w = world(t, service.address);
  assert.equal(await save(w.env), "saved");
  const before = await state(service, w);
  const other = world(t, service.address);
  assert.equal(await save(other.env), "saved"); // a cache of its own: its next save holds the lock, and sweeps
  // A sandbox sharing the session bus: the first cache's directory is an empty tmpfs there.
  const { stdout } = await run(
    "unshare",
    [
      "-m",
      "sh",
      "-c",
      `mount -t tmpfs tmpfs ${join(w.home, ".config")} && exec "$0" -e "$1" "$2"`,
      process.execPath,
      SAVER,
      emu.issueRefreshToken({ scopes: [CLOUD] }),
    ],
    { env: other.env },
  );
  assert.equal(stdout.trim(), "saved");
  const after = await state(service, w);
  assert.ok(after.accounts.includes(before.named ?? ""), "the unseen cache's entry stays");
  const loaded = await load({ ...w.env, CRED_AUTH_TOKEN_CACHE: "off" });
  assert.equal(loaded.signedIn, false);
  assert.match(loaded.out, /^TOKEN ya29\./m);
  // The next save of this namespace, which sees the file, still keeps it (its file names it).
  assert.equal(await save(other.env), "saved");
  assert.ok((await state(service, w)).accounts.includes(before.named ?? ""));
});

test("a restarted daemon (its keyring locked) says to unlock the keychain and signs nobody in; a save meanwhile keeps the file, and status says why", async (t) => {
  const service = await startSecretService(t);
  if (!service) return;
  t.after(() => service.stop());
  const w = world(t, service.address);
  assert.equal(await save(w.env), "saved");
  await service.restart();
  const locked = await load({ ...w.env, CRED_AUTH_TOKEN_CACHE: "off" });
  assert.equal(locked.signedIn, false, "no sign-in: the entry is there, only locked");
  assert.match(
    locked.out,
    /^ERROR ERR_KEYCHAIN_UNAVAILABLE CredConnectionError The refresh token of .* is in the keychain, which could not be read: the keychain is locked, and no unlock prompt could be shown here\. Unlock the keychain \(or start it\), then try again\./m,
  );
  const printed = await run(process.execPath, [CLI, "print-token", w.cachePath], {
    env: { ...w.env, CRED_AUTH_TOKEN_CACHE: "off" },
  }).catch((e) => e);
  assert.notEqual(printed.code, 0);
  assert.match(
    printed.stderr,
    /the keychain is locked, and no unlock prompt could be shown here\. Unlock the keychain/,
  );
  assert.doesNotMatch(printed.stderr, /sign in again/);
  // A save meanwhile keeps its secret in the file, and status says why.
  assert.equal(await save(w.env), "saved");
  const status = await run(process.execPath, [CLI, "status", "--no-check"], { env: w.env });
  assert.match(
    status.stdout,
    /^refresh token: +in this file, not in the keychain: the keychain is locked, and no unlock prompt could be shown here/m,
  );
});

test("a stopped daemon (killed; D-Bus starts it again, its keyring locked) says to unlock the keychain and signs nobody in", async (t) => {
  const service = await startSecretService(t);
  if (!service) return;
  t.after(() => service.stop());
  const w = world(t, service.address);
  assert.equal(await save(w.env), "saved");
  process.kill(await service.daemonPid(), "SIGKILL");
  const stopped = await load({ ...w.env, CRED_AUTH_TOKEN_CACHE: "off" });
  assert.equal(stopped.signedIn, false, `no sign-in: the entry is there, only locked: ${stopped.out}`);
  assert.match(
    stopped.out,
    /^ERROR ERR_KEYCHAIN_UNAVAILABLE CredConnectionError The refresh token of .* is in the keychain, which could not be read: the keychain is locked, and no unlock prompt could be shown here\. Unlock the keychain \(or start it\), then try again\./m,
  );
});

test("processes starting cold share one refresh and one read of the keychain, as print-token does", async (t) => {
  const service = await startSecretService(t);
  if (!service) return;
  t.after(() => service.stop());
  const w = world(t, service.address);
  assert.equal(await save(w.env), "saved");
  const before = emu.stats().tokenRequests;
  const runs = await Promise.all(Array.from({ length: 12 }, () => load(w.env)));
  for (const r of runs) assert.match(r.out, /^TOKEN ya29\./m, r.out);
  assert.equal(emu.stats().tokenRequests - before, 1, "one token request for all");
});

test("the keychain fallback note is said nowhere in the caller's output, and remembered once", async (t) => {
  const w = world(t);
  mkdirSync(join(w.home, ".config"), { recursive: true });
  for (let i = 0; i < 2; i++) {
    const refreshToken = emu.issueRefreshToken({ scopes: [CLOUD] });
    const { stdout, stderr } = await run(process.execPath, ["-e", SAVER, refreshToken], { env: w.env });
    assert.equal(stdout.trim(), "saved");
    assert.doesNotMatch(stderr, /keychain|Secret Service|D-Bus|\(node:\d+\)|warning/i, "no note, no Node warning");
  }
  const note = join(w.home, ".config", "cred-auth", "keychain-note");
  assert.equal(
    readFileSync(note, "utf8"),
    "no Secret Service: this session has no D-Bus (DBUS_SESSION_BUS_ADDRESS is not set)\n",
  );
  writeFileSync(note, "remembered\n", { mode: 0o600 });
  assert.equal(await save(w.env), "saved");
  assert.match(readFileSync(note, "utf8"), /no Secret Service/, "a new reason replaces the old");
});
