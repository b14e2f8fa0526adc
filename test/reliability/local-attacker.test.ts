// A second local user against the files cred-auth reads and writes (issue 12, findings 2-5 and
// the bounded readers). The attacker runs as "nobody" (uid 65534): these tests need root to
// switch users, and skip loudly without it (CI runs them as root).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  watch,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { cache, getUserCredentials } from "cred-auth";
import { DEMO_CLIENT } from "cred-auth/emulator";
import type { AuthorizedUserFile } from "../../dist/credentials/kinds/user/file.js";
import { readCredentialsFileSync, writeUserCredentialsFile } from "../../dist/stores/credentials-file.js";
import { readFileLimitedSync } from "../../dist/trust/files.js";
import { tokenCacheKey } from "../../dist/token-cache/index.js";
import { tempDir } from "../support/files.ts";
import { testCredentialsFile, withEmulator } from "../support/emulator.ts";
import { SCOPES, interceptWarnings, isolatedEnv, runCli, runNode } from "./support.ts";

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const needsRoot = asRoot
  ? false
  : "needs root to run the attacker as another user (nobody); CI runs this as root — SKIPPED LOCALLY";
if (!asRoot && process.env.CI === "true")
  throw new Error("CI must run test/reliability/local-attacker.test.ts as root");

const emu = await withEmulator();
const PLANTED = "ya29.PLANTED-by-the-attacker-0000000000";

/** Runs `script` (node, CommonJS) as nobody with `args`; fails the test if it fails. */
function asNobody(script: string, ...args: string[]): void {
  const child = spawnSync(process.execPath, ["-e", script, "--", ...args], {
    uid: NOBODY,
    gid: NOBODY,
    encoding: "utf8",
    timeout: 30_000,
  });
  assert.equal(child.status, 0, `the attacker's script failed: ${child.stderr}`);
}

/** A temp dir nobody may enter (not list or write) unless a subdirectory says otherwise. */
function sandbox(t: TestContext): string {
  const dir = tempDir(t, "cred-auth-attack-");
  chmodSync(dir, 0o711);
  return dir;
}

function plantedEntry(): string {
  return JSON.stringify({ access_token: PLANTED, expiry_date: Date.now() + 3_600_000, token_type: "Bearer" });
}

function userKey(path: string): string {
  const file = readCredentialsFileSync(path) as AuthorizedUserFile;
  return tokenCacheKey(file, file.scopes ?? [], file.tokenUrl);
}

test("finding 2: a forged key file with the victim's client_email and private_key_id does not get the victim's cached token", async (t) => {
  const dir = sandbox(t);
  const env = isolatedEnv(dir, { CRED_AUTH_TOKEN_CACHE: join(dir, "tokens"), CRED_AUTH_EMULATOR_HOST: emu.host });
  const victimKey = emu.createServiceAccountKey();
  const victimPath = join(dir, "victim.json");
  writeFileSync(victimPath, JSON.stringify(victimKey));
  const victim = await runCli(["print-token", victimPath], { env });
  assert.equal(victim.code, 0, victim.stderr);
  const victimToken = victim.stdout.trim();
  assert.match(victimToken, /^ya29\./);

  const forged = {
    ...victimKey,
    private_key: generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
      type: "pkcs8",
      format: "pem",
    }),
  };
  const forgedPath = join(dir, "forged.json");
  writeFileSync(forgedPath, JSON.stringify(forged));
  const before = emu.stats().tokenRequests;
  const attacker = await runCli(["print-token", forgedPath], { env });
  assert.ok(!attacker.stdout.includes(victimToken), "the forged key printed the victim's token");
  assert.notEqual(attacker.code, 0, "the emulator refuses the forged key's assertion");
  assert.ok(emu.stats().tokenRequests > before, "the forged key had to ask the token server");
});

test("finding 3: entries an attacker planted while the cache directory was open are not trusted after chmod 700", {
  skip: needsRoot,
}, async (t) => {
  const dir = sandbox(t);
  const tokens = join(dir, "tokens");
  mkdirSync(tokens);
  chmodSync(tokens, 0o777); // the victim's own directory, open for a while
  const env = isolatedEnv(dir, { CRED_AUTH_TOKEN_CACHE: tokens, CRED_AUTH_EMULATOR_HOST: emu.host });
  const creds = await testCredentialsFile(emu, join(dir, "victim"), { scopes: SCOPES });
  chmodSync(join(dir, "victim"), 0o711);
  const key = userKey(creds);

  // A planted regular file, and (for a second key) a planted link to the attacker's own file.
  const stash = join(dir, "stash");
  mkdirSync(stash);
  chmodSync(stash, 0o777);
  asNobody(
    "require('fs').writeFileSync(process.argv[1], process.argv[2], { mode: 0o644 })",
    join(tokens, `${key}.json`),
    plantedEntry(),
  );
  chmodSync(tokens, 0o700);
  const planted = await runCli(["print-token", creds], { env });
  assert.equal(planted.code, 0, planted.stderr);
  assert.notEqual(planted.stdout.trim(), PLANTED, "a planted regular file was trusted");

  chmodSync(tokens, 0o777);
  const creds2 = await testCredentialsFile(emu, join(dir, "victim"), { scopes: SCOPES, filename: "second.json" });
  asNobody(
    "const fs = require('fs'); fs.writeFileSync(process.argv[1], process.argv[2], { mode: 0o644 }); fs.symlinkSync(process.argv[1], process.argv[3]);",
    join(stash, "planted.json"),
    plantedEntry(),
    join(tokens, `${userKey(creds2)}.json`),
  );
  chmodSync(tokens, 0o700);
  const linked = await runCli(["print-token", creds2], { env });
  assert.equal(linked.code, 0, linked.stderr);
  assert.notEqual(linked.stdout.trim(), PLANTED, "a planted symbolic link was followed");
});

/** Preloaded into the victim: the attacker wins the race, swapping the cache directory for a link to theirs right after the victim first looked at it. */
const SWAP_PRELOAD = fileURLToPath(new URL("./swap-cache-dir.cjs", import.meta.url));

test("finding 3: a cache directory swapped for a link to the attacker's after it was checked is not used", {
  skip: needsRoot,
}, async (t) => {
  const dir = sandbox(t);
  const shared = join(dir, "shared"); // the attacker's directory on the cache path, like /tmp
  mkdirSync(shared);
  chmodSync(shared, 0o777);
  const tokens = join(shared, "tokens");
  mkdirSync(tokens, { mode: 0o700 });
  const evil = join(dir, "evil");
  mkdirSync(evil);
  chmodSync(evil, 0o777);
  const creds = await testCredentialsFile(emu, join(dir, "victim"), { scopes: SCOPES });
  chmodSync(join(dir, "victim"), 0o711);
  asNobody(
    "require('fs').writeFileSync(process.argv[1], process.argv[2], { mode: 0o600 })",
    join(evil, `${userKey(creds)}.json`),
    plantedEntry(),
  );
  const env = isolatedEnv(dir, {
    CRED_AUTH_TOKEN_CACHE: tokens,
    CRED_AUTH_EMULATOR_HOST: emu.host,
    SWAP_DIR: tokens,
    SWAP_TARGET: evil,
    SWAP_UID: String(NOBODY),
  });
  const created: string[] = [];
  const watcher = watch(evil, (_event, name) => created.push(String(name)));
  t.after(() => watcher.close());
  for (const fresh of [[], ["--fresh"]]) {
    const result = await runCli(["print-token", creds, ...fresh], { env, nodeArgs: ["--require", SWAP_PRELOAD] });
    assert.ok(existsSync(`${tokens}.real`), "the attacker swapped the directory during the run");
    assert.notEqual(result.stdout.trim(), PLANTED, "the planted token was printed");
    rmSync(tokens);
    renameSync(`${tokens}.real`, tokens);
  }
  await new Promise((resolve) => setTimeout(resolve, 100)); // let the watcher report
  assert.deepEqual(
    created.filter((name) => name.endsWith(".lock") || name.includes(".tmp")),
    [],
    "no lock or temp file was written into the attacker's directory",
  );
});

test("finding 4: saving never writes through another user's link in a sticky directory", {
  skip: needsRoot,
}, async (t) => {
  const dir = sandbox(t);
  const sticky = join(dir, "sticky");
  mkdirSync(sticky);
  chmodSync(sticky, 0o1777);
  const own = join(dir, "own.json");
  writeFileSync(own, "the victim's precious file\n", { mode: 0o600 });
  const link = join(sticky, "adc.json");
  asNobody("require('fs').symlinkSync(process.argv[1], process.argv[2])", own, link);
  await assert.rejects(
    writeUserCredentialsFile(link, {
      type: "authorized_user",
      clientId: "c.apps.googleusercontent.com",
      clientSecret: "GOCSPX-x/y+z=0123456789",
      refreshToken: "1//0gAbc/def+ghi=",
    }),
    (error: Error & { code?: string }) => {
      assert.match(error.message, /symbolic link owned by another user \(uid 65534\)/);
      assert.equal(error.code, "ERR_FILE_INVALID");
      return true;
    },
  );
  assert.equal(readFileSync(own, "utf8"), "the victim's precious file\n", "the link's target is untouched");
  // A link of one's own is still followed.
  const mine = join(sticky, "mine.json");
  symlinkSync(own, mine);
  await writeUserCredentialsFile(mine, {
    type: "authorized_user",
    clientId: "c.apps.googleusercontent.com",
    clientSecret: "GOCSPX-x/y+z=0123456789",
    refreshToken: "1//0gAbc/def+ghi=",
  });
  assert.match(readFileSync(own, "utf8"), /1\/\/0gAbc/);
});

test("finding 5: a cache file another user planted in an open cache directory is ignored, with a warning", {
  skip: needsRoot,
}, async (t) => {
  const home = sandbox(t);
  const saved = { HOME: process.env.HOME, host: process.env.CRED_AUTH_EMULATOR_HOST };
  process.env.HOME = home;
  process.env.CRED_AUTH_EMULATOR_HOST = emu.host;
  t.after(() => {
    process.env.HOME = saved.HOME;
    if (saved.host === undefined) delete process.env.CRED_AUTH_EMULATOR_HOST;
    else process.env.CRED_AUTH_EMULATOR_HOST = saved.host;
  });
  const cacheDir = join(home, ".config", "cred");
  mkdirSync(cacheDir, { recursive: true });
  chmodSync(join(home, ".config"), 0o755);
  chmodSync(cacheDir, 0o777);
  const attackers = await testCredentialsFile(emu, join(home, "attacker"), {
    scopes: SCOPES,
    account: "mallory@example.com",
  });
  asNobody(
    "require('fs').writeFileSync(process.argv[1], process.argv[2], { mode: 0o644 })",
    join(cacheDir, "cred_credentials.json"),
    readFileSync(attackers, "utf8"),
  );
  const warnings = interceptWarnings(t, (w) => w.code === "CRED_AUTH_CACHE");
  const loaded = await new cache.ReadWriteCredentialsCache().load();
  assert.equal(loaded, null, "the planted credentials were used");
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(warnings.length, 2, warnings.map(String).join("\n"));
  assert.match(String(warnings[0]), /cache directory .* may be written by others/);
  assert.match(String(warnings[1]), /belongs to another user \(uid 65534\)/);
  // The library's entry point: no sign-in happens without a presenter that answers, so deny it.
  await assert.rejects(
    getUserCredentials(SCOPES, {
      clientId: DEMO_CLIENT.clientId,
      clientSecret: DEMO_CLIENT.clientSecret,
      openBrowser: false,
      useLocalWebserver: false,
      redirectUri: "https://example.org/oauth.html",
      presenter: { update() {}, readCode: async () => "" },
    }),
    /No authorization code was entered/,
    "getUserCredentials started a sign-in instead of using the planted file",
  );
});

test("a FIFO swapped in right after the first look at the path never blocks a bounded read", async (t) => {
  const dir = tempDir(t);
  const path = join(dir, "creds.json");
  writeFileSync(path, "{}");
  const script = `
    const fs = require("node:fs");
    const { spawnSync } = require("node:child_process");
    const path = process.argv[1];
    let swapped = false;
    const swap = () => { if (swapped) return; swapped = true; fs.unlinkSync(path); spawnSync("mkfifo", [path]); };
    for (const name of ["statSync", "openSync", "lstatSync"]) {
      const original = fs[name];
      fs[name] = function (p, ...rest) { const out = original.call(this, p, ...rest); if (p === path) swap(); return out; };
    }
    const { readFileLimitedSync } = require(process.argv[2]);
    try { console.log("read", readFileLimitedSync(path, 1024).length); } catch (e) { console.log("refused", e.code); }
  `;
  const trustFiles = fileURLToPath(new URL("../../dist/trust/files.js", import.meta.url));
  const result = await runNode(["-e", script, "--", path, trustFiles], { killAfterMs: 20_000 });
  assert.equal(result.signal, null, "the read blocked on the FIFO (killed after 20 s)");
  assert.match(result.stdout, /^(read 2|refused ENOTFILE)$/m, result.stderr);
  // And a FIFO there from the start is refused, opened without blocking.
  const fifo = join(dir, "fifo.json");
  spawnSync("mkfifo", [fifo]);
  assert.throws(() => readFileLimitedSync(fifo, 1024), { code: "ENOTFILE" });
});

/** Preloaded into a saver: it is killed the moment it renames its temp file, like a crash. */
const KILL_AT_RENAME = `
  const fsp = require("node:fs/promises");
  fsp.rename = async () => process.kill(process.pid, "SIGKILL");
`;

test("the next save removes the temp files (whole refresh tokens) of the user's killed saves", async (t) => {
  const dir = tempDir(t);
  const path = join(dir, "creds.json");
  const files = fileURLToPath(new URL("../../dist/stores/credentials-file.js", import.meta.url));
  const saver = `
    ${KILL_AT_RENAME}
    require(process.argv[2]).writeUserCredentialsFile(process.argv[1], {
      type: "authorized_user", clientId: "c", clientSecret: "GOCSPX-k/i+l=led", refreshToken: "1//0gKilled/save+=",
    });
  `;
  const killed = await runNode(["-e", saver, "--", path, files]);
  assert.equal(killed.signal, "SIGKILL");
  const temps = () => readdirSync(dir).filter((name) => name.endsWith(".tmp"));
  assert.equal(temps().length, 1, "the killed save left its temp file");
  await writeUserCredentialsFile(path, {
    type: "authorized_user",
    clientId: "c",
    clientSecret: "GOCSPX-n/e+x=t",
    refreshToken: "1//0gNext/save+=",
  });
  assert.deepEqual(temps(), [], "the next save removed the stale temp file");
  assert.match(readFileSync(path, "utf8"), /1\/\/0gNext/);
});
