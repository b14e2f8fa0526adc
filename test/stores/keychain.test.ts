// The credentials cache's refresh token and client secret in the OS keychain, with a real Secret
// Service (gnome-keyring-daemon on a private D-Bus, test/support/secret-service.ts): what a user
// signs in with never lands in a file, a new process works without signing in, secret-tool sees the
// entry, revoke and delete remove it, a hanging keychain is given up on, and without a Secret Service
// the file works as before with one note.
import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { cache, CredCredentialsError, ERROR_CODES } from "cred-auth";
import { approveSignIn, DEMO_CLIENT } from "cred-auth/emulator";
import { userRefreshClientFrom } from "../../dist/credentials/kinds/user/client.js";
import { isolateHome, tempDir } from "../support/files.ts";
import { withEmulator } from "../support/emulator.ts";
import { freePortRange, rangeEnv } from "../oauth/support.ts";
import { type SecretService, startSecretService } from "../support/secret-service.ts";

const run = promisify(execFile);
const DIST = new URL("../../dist/", import.meta.url).pathname;
const INDEX = join(DIST, "index.js");
const CLI = join(DIST, "cli.js");
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const emu = await withEmulator();
const LOADED_MACHINE_DEADLINE = 30_000;

// One sign-in (or none) in a fresh process: the sign-in's URL goes to stdout for the test to approve.
const SIGN_IN = `
process.on("exit", () => {
  if (process.env.RECORD_MODULES_TO) require("node:fs").writeFileSync(process.env.RECORD_MODULES_TO, JSON.stringify(Object.keys(require.cache)));
});
const credAuth = require(${JSON.stringify(INDEX)});
const { refreshTokenOf } = require(${JSON.stringify(join(DIST, "protocols/info.js"))});
const presenter = { update(e) { if (e.type === "url") process.stdout.write("URL " + e.url + "\\n"); } };
const call = process.env.CALL === "default"
  ? credAuth.default([${JSON.stringify(CLOUD)}]).then(([c]) => c)
  : credAuth.getUserCredentials([${JSON.stringify(CLOUD)}], { presenter, useLocalWebserver: true });
call.then(async (c) => {
  const { token } = await c.getAccessToken();
  process.stdout.write("TOKEN " + token + "\\n");
  if (process.env.SHOW_REFRESH_TOKEN) process.stdout.write("RT " + refreshTokenOf(c) + "\\n");
}, (e) => process.stdout.write("ERROR " + e.code + " " + e.message + "\\n"));
`;

interface World {
  home: string;
  env: NodeJS.ProcessEnv;
  cachePath: string;
}

async function world(t: Parameters<typeof tempDir>[0], service?: SecretService): Promise<World> {
  const home = tempDir(t, "cred-auth-keychain-");
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    CRED_AUTH_HOSTED: "off",
    BROWSER: "none",
    CRED_AUTH_EMULATOR_HOST: emu.host,
    CRED_AUTH_LOOPBACK_PORTS: rangeEnv(await freePortRange(3)),
    // A loaded CI machine may start a child node slower than the 4 s a user's keychain gets.
    CRED_AUTH_KEYCHAIN_TIMEOUT_MS: String(LOADED_MACHINE_DEADLINE),
    ...(service ? { DBUS_SESSION_BUS_ADDRESS: service.address } : {}),
  };
  return { home, env, cachePath: join(home, ".config", "cred", "cred_credentials.json") };
}

/** Runs {@link SIGN_IN} in a new process, approving a sign-in when one is asked for. */
async function signIn(env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string; signedIn: boolean }> {
  const child: ChildProcess = spawn(process.execPath, ["-e", SIGN_IN], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let signedIn = false;
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    const url = /^URL (\S+)$/m.exec(stdout)?.[1];
    if (url && !signedIn) {
      signedIn = true;
      approveSignIn(url).catch(() => {});
    }
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  await new Promise((resolve) => child.on("close", resolve));
  return { stdout, stderr, signedIn };
}

/** Every regular file under `dir` whose bytes contain `needle`. */
function filesHolding(dir: string, needle: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && readFileSync(path).includes(needle)) found.push(relative(dir, path));
  }
  return found;
}

test("with a Secret Service: no file holds the secrets, a new process needs no sign-in, secret-tool sees the entry, revoke removes it", async (t) => {
  const service = await startSecretService(t);
  if (!service) return;
  t.after(() => service.stop());
  const w = await world(t, service);

  const first = await signIn({ ...w.env, SHOW_REFRESH_TOKEN: "1" });
  assert.ok(first.signedIn, first.stdout + first.stderr);
  assert.match(first.stdout, /^TOKEN ya29\./m, first.stderr);
  const refreshToken = /^RT (\S+)$/m.exec(first.stdout)?.[1] ?? "";
  assert.match(refreshToken, /^1\/\//, "the sign-in's refresh token");
  assert.doesNotMatch(first.stderr, /CRED_AUTH_KEYCHAIN/, "no note: the keychain was used");
  assert.deepEqual(filesHolding(w.home, refreshToken), [], "no file under HOME holds the refresh token");
  assert.deepEqual(filesHolding(w.home, DEMO_CLIENT.clientSecret), [], "no file under HOME holds the client secret");
  const file = JSON.parse(readFileSync(w.cachePath, "utf8"));
  assert.equal(file.type, "authorized_user");
  assert.equal(
    file.cred_auth_keychain.account,
    `${w.cachePath}:${file.cred_auth_keychain.id}`,
    "the path and the save's id",
  );
  assert.equal(statSync(w.cachePath).mode & 0o777, 0o600);
  const entry = await service.search(file.cred_auth_keychain.account);
  assert.match(entry, /secret = .*"refresh_token"/, "secret-tool search shows the entry");

  // A new process: the access token cached at sign-in is found without the keychain...
  const requests = emu.stats().tokenRequests;
  const warm = await signIn(w.env);
  assert.equal(warm.signedIn, false, warm.stdout);
  assert.match(warm.stdout, /^TOKEN ya29\./m, warm.stderr);
  assert.equal(emu.stats().tokenRequests, requests, "the sign-in's access token was cached under the file's key");
  // ...and without it (no token cache), the refresh token is read from the keychain.
  const before = emu.stats().tokenRequests;
  const cold = await signIn({ ...w.env, CRED_AUTH_TOKEN_CACHE: "off" });
  assert.equal(cold.signedIn, false, cold.stdout);
  const token = /^TOKEN (\S+)$/m.exec(cold.stdout)?.[1];
  assert.equal(emu.checkAccessToken(token ?? "")?.account !== undefined, true, cold.stdout + cold.stderr);
  assert.ok(emu.stats().tokenRequests > before, "the cold process refreshed with the keychain's refresh token");

  // The cache file works for the commands that find it: status, print-token.
  const status = await run(process.execPath, [CLI, "status"], { env: w.env });
  assert.match(status.stdout, /found by: +your last sign-in, which cred-auth saved/);
  const printed = await run(process.execPath, [CLI, "print-token", w.cachePath], {
    env: { ...w.env, CRED_AUTH_TOKEN_CACHE: "off" },
  });
  assert.ok(emu.checkAccessToken(printed.stdout.trim()), printed.stderr);

  const revoked = await run(process.execPath, [CLI, "revoke", w.cachePath], { env: w.env });
  assert.match(revoked.stderr, /revoked/);
  assert.equal(existsSync(w.cachePath), false, "revoke removed the file");
  assert.deepEqual(await service.entries(), [], "revoke removed the keychain entry");
});

test("print-token's cached path and default()'s warm path never touch the keychain", async (t) => {
  const service = await startSecretService(t);
  if (!service) return;
  t.after(() => service.stop());
  const w = await world(t, service);
  assert.ok((await signIn(w.env)).signedIn);
  // Without any D-Bus: touching the keychain could only fail.
  const { DBUS_SESSION_BUS_ADDRESS: _, ...noBus } = w.env;
  const record = join(w.home, "modules.json");
  const warm = await signIn({ ...noBus, CALL: "default", RECORD_MODULES_TO: record });
  assert.match(warm.stdout, /^TOKEN ya29\./m, warm.stdout + warm.stderr);
  const loaded = (JSON.parse(readFileSync(record, "utf8")) as string[]).map((m) => relative(DIST, m));
  // The store reads the file's form (stores/keychain.js); the keychain itself is never asked.
  assert.ok(!loaded.includes("os/keychain.js"), "default()'s warm path loaded the keychain adapter");
  assert.ok(!loaded.some((m) => m.includes("@napi-rs")), "the keychain binding was loaded");

  const strace = await run("strace", ["-V"]).catch(() => undefined);
  if (!strace) {
    if (process.env.CI) throw new Error("strace is missing; .ci/run installs it");
    console.error("SKIPPED: strace is missing: print-token's cached path is not traced.");
    return;
  }
  const trace = join(w.home, "strace.txt");
  const printed = await run(
    "strace",
    ["-f", "-qq", "-e", "trace=execve,openat,connect", "-o", trace, process.execPath, CLI, "print-token", w.cachePath],
    { env: w.env },
  );
  assert.match(printed.stdout, /^ya29\./, printed.stderr);
  const lines = readFileSync(trace, "utf8").split("\n");
  assert.deepEqual(
    lines.filter((l) => /execve\(/.test(l)).length,
    1,
    "print-token's cached path started no other process",
  );
  assert.deepEqual(
    lines.filter((l) => /keyring|dbus|secret/i.test(l) && /openat\(|connect\(/.test(l)),
    [],
    "nothing of the keychain opened",
  );
});

test("without a Secret Service the file keeps the refresh token; the note is no warning: status says it; `keychain` is a coded error", async (t) => {
  const w = await world(t);
  const signedIn = await signIn({ ...w.env, SHOW_REFRESH_TOKEN: "1" });
  assert.ok(signedIn.signedIn);
  const refreshToken = /^RT (\S+)$/m.exec(signedIn.stdout)?.[1] ?? "";
  assert.equal(JSON.parse(readFileSync(w.cachePath, "utf8")).refresh_token, refreshToken, "today's file");
  assert.doesNotMatch(
    signedIn.stderr,
    /keychain|Secret Service|CRED_AUTH_KEYCHAIN/i,
    "no note in the caller's output (a notebook's cell)",
  );
  const again = await signIn({ ...w.env, CRED_AUTH_TOKEN_CACHE: "off" });
  assert.doesNotMatch(again.stderr, /keychain|Secret Service/i, "nor in the next process's");
  // `status` says where the refresh token is, and why: the note's one place.
  const status = await run(process.execPath, [CLI, "status", "--no-check"], { env: w.env });
  const notes = status.stdout.match(/^refresh token: .*$/gm) ?? [];
  assert.deepEqual(
    notes,
    [
      "refresh token: in this file, not in the keychain: no Secret Service: this session has no D-Bus (DBUS_SESSION_BUS_ADDRESS is not set)",
    ],
    status.stdout,
  );
  assert.match(status.stdout, /DBUS_SESSION_BUS_ADDRESS is not set/);
  const notePath = join(w.home, ".config", "cred-auth", "keychain-note");
  assert.equal(statSync(notePath).mode & 0o777, 0o600, "remembered beside the settings, privately");

  isolateHome(t);
  const saved = process.env.DBUS_SESSION_BUS_ADDRESS;
  delete process.env.DBUS_SESSION_BUS_ADDRESS;
  t.after(() => {
    if (saved !== undefined) process.env.DBUS_SESSION_BUS_ADDRESS = saved;
  });
  const strict = new cache.ReadWriteCredentialsCache({ secretStore: "keychain" });
  await assert.rejects(strict.save(await client()), (error: Error) => {
    assert.ok(error instanceof CredCredentialsError);
    assert.equal(error.code, ERROR_CODES.KEYCHAIN_UNAVAILABLE);
    assert.match(error.message, /no Secret Service/);
    return true;
  });
  assert.equal(existsSync(strict.path), false, "nothing saved");
  assert.throws(
    () => new cache.ReadWriteCredentialsCache({ secretStore: "vault" as "file" }),
    (error: Error & { code?: string }) =>
      error.code === ERROR_CODES.INVALID_OPTION && /auto, keychain, file/.test(error.message),
  );
});

/** A client the emulator accepts, as a sign-in would make it. */
function client() {
  return userRefreshClientFrom({
    type: "authorized_user",
    clientId: DEMO_CLIENT.clientId,
    clientSecret: DEMO_CLIENT.clientSecret,
    refreshToken: emu.issueRefreshToken({ scopes: [CLOUD] }),
    tokenUrl: `${emu.url}/token`,
    scopes: [CLOUD],
  });
}

test("migration, file mode, delete and stale entries, in this process", async (t) => {
  const service = await startSecretService(t);
  if (!service) return;
  t.after(() => service.stop());
  pointAt(t, service);
  const plain = new cache.ReadWriteCredentialsCache({ dirname: "migrate", secretStore: "file" });
  await plain.save(await client());
  const refreshToken = JSON.parse(readFileSync(plain.path, "utf8")).refresh_token as string;
  assert.deepEqual(await service.entries(), [], "file mode: no entry");

  // An existing file's refresh token moves to the keychain on the next save.
  const auto = new cache.ReadWriteCredentialsCache({ dirname: "migrate" });
  const loaded = await auto.load();
  assert.ok(loaded);
  await auto.save(loaded);
  assert.ok(!readFileSync(auto.path, "utf8").includes(refreshToken), "the file no longer holds the refresh token");
  assert.deepEqual(await accounts(service), [named(auto.path)], "one entry, the one the file names");
  const again = await auto.load();
  assert.ok(again && (await again.getAccessToken()).token, "the keychain form loads and works");

  // Back to file mode: the whole file, and the entry goes.
  await plain.save((await auto.load())!);
  assert.equal(JSON.parse(readFileSync(plain.path, "utf8")).refresh_token, refreshToken);
  assert.deepEqual(await service.entries(), []);

  // delete() removes both.
  await auto.save((await auto.load())!);
  assert.equal((await service.entries()).length, 1);
  assert.equal(await auto.delete(), true);
  assert.equal(existsSync(auto.path), false);
  assert.deepEqual(await service.entries(), []);

  // An entry whose file is gone is found by the next save and removed.
  const orphan = new cache.ReadWriteCredentialsCache({ dirname: "orphan" });
  await orphan.save(await client());
  const orphaned = named(orphan.path);
  rmSync(orphan.path);
  assert.deepEqual(await accounts(service), [orphaned], "the entry outlived its file");
  await auto.save(await client());
  assert.deepEqual(await accounts(service), [named(auto.path)], "the next save removed the orphan");
});

test("a keychain that does not answer is given up on at the deadline: auto keeps the file, and status says why", async (t) => {
  const service = await startSecretService(t);
  if (!service) return;
  t.after(() => service.stop());
  const w = await world(t, service);
  const pid = await service.daemonPid();
  assert.ok(pid > 0);
  process.kill(pid, "SIGSTOP"); // the daemon holds its bus name but answers nothing
  t.after(() => process.kill(pid, "SIGCONT"));
  const started = Date.now();
  const signedIn = await signIn({ ...w.env, CRED_AUTH_KEYCHAIN_TIMEOUT_MS: "1500", SHOW_REFRESH_TOKEN: "1" });
  assert.match(signedIn.stdout, /^TOKEN ya29\./m, signedIn.stdout + signedIn.stderr);
  assert.ok(Date.now() - started < 30_000, "bounded");
  assert.doesNotMatch(signedIn.stderr, /keychain/i);
  const refreshToken = /^RT (\S+)$/m.exec(signedIn.stdout)?.[1];
  assert.equal(JSON.parse(readFileSync(w.cachePath, "utf8")).refresh_token, refreshToken, "kept in the file");
  const status = await run(process.execPath, [CLI, "status", "--no-check"], { env: w.env });
  assert.match(
    status.stdout,
    /^refresh token: +in this file, not in the keychain: the keychain did not answer within 1500 ms/m,
  );
});

/** Points this process at `service` for one test (the in-process cache asks it). */
function pointAt(t: Parameters<typeof tempDir>[0], service: SecretService): void {
  isolateHome(t);
  const saved = process.env.DBUS_SESSION_BUS_ADDRESS;
  process.env.DBUS_SESSION_BUS_ADDRESS = service.address;
  process.env.CRED_AUTH_KEYCHAIN_TIMEOUT_MS = String(LOADED_MACHINE_DEADLINE);
  process.env.CRED_AUTH_EMULATOR_HOST = emu.host; // a keychain's secret goes to a token server on this machine only if it is the emulator
  t.after(() => {
    delete process.env.CRED_AUTH_KEYCHAIN_TIMEOUT_MS;
    delete process.env.CRED_AUTH_EMULATOR_HOST;
    if (saved === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
    else process.env.DBUS_SESSION_BUS_ADDRESS = saved;
  });
}

/** The entry the cache file at `path` names. */
function named(path: string): string {
  return JSON.parse(readFileSync(path, "utf8")).cred_auth_keychain.account;
}

async function accounts(service: SecretService): Promise<string[]> {
  return (await service.entries()).map((e) => e.account).sort();
}
