// What the keychain costs a user who turned it off (issue 46): with `cred-auth config set secret-store
// file`, saving and loading the credentials cache evaluates none of the keychain's modules and starts
// no keychain process (the binding, @napi-rs/keyring, only ever runs in a child process: src/os/).
// The control: the same program with `secret-store keychain` loads them and asks.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CLI = join(ROOT, "dist", "cli.js");
const work = mkdtempSync(join(tmpdir(), "cred-auth-keychain-loads-"));
after(() => rmSync(work, { recursive: true, force: true }));

/** Saves and loads a cache as a program would, and records the modules of dist/ it evaluated and the processes it started. */
const PROGRAM = `
const childProcess = require("node:child_process");
const { syncBuiltinESMExports } = require("node:module");
const started = [];
for (const name of ["spawn", "spawnSync", "execFile", "execFileSync", "fork"]) {
  const original = childProcess[name];
  childProcess[name] = function (...args) { started.push([name, ...args.filter((a) => typeof a === "string" || Array.isArray(a)).flat()].join(" ")); return original.apply(this, args); };
}
syncBuiltinESMExports();
process.on("exit", () => require("node:fs").writeFileSync(process.env.RECORD_TO, JSON.stringify({ modules: Object.keys(require.cache), started })));
const credAuth = require("cred-auth");
const { UserRefreshClient } = require("google-auth-library");
(async () => {
  const cache = new credAuth.cache.ReadWriteCredentialsCache();
  const client = new UserRefreshClient({ clientId: "id.apps.googleusercontent.com", clientSecret: "secret-x", refreshToken: "1//refresh-x" });
  try {
    await cache.save(client);
    const loaded = await cache.load();
    process.stdout.write(loaded ? "LOADED" : "NONE");
  } catch (error) {
    process.stdout.write("ERROR " + error.code);
  }
})();
`;

interface Run {
  stdout: string;
  modules: string[];
  started: string[];
}

/** A fresh home whose settings say `secret-store STORE` (through the command line, as a user sets it), and the program run in it. */
function runWith(store: string): Run {
  const home = mkdtempSync(join(work, `${store}-`));
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    // No Secret Service on this bus: a keychain process that is started answers that none is there.
    DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(home, "no-bus")}`,
    RECORD_TO: join(home, "record.json"),
  };
  mkdirSync(join(home, ".config"), { mode: 0o700 });
  const set = spawnSync(process.execPath, [CLI, "config", "set", "secret-store", store], { env, encoding: "utf8" });
  assert.equal(set.status, 0, set.stderr);
  const r = spawnSync(process.execPath, ["-e", PROGRAM], { cwd: ROOT, env, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return { stdout: r.stdout, ...(JSON.parse(readFileSync(env.RECORD_TO, "utf8")) as Omit<Run, "stdout">) };
}

const keychainModules = (run: Run) =>
  run.modules.filter((m) => m.startsWith(join(ROOT, "dist")) && /keychain/i.test(m));
const keychainProcesses = (run: Run) => run.started.filter((s) => /keyring|keychain/i.test(s));

test("secret-store file: a save and a load evaluate no keychain module and start no keychain process", () => {
  const run = runWith("file");
  assert.equal(run.stdout, "LOADED");
  assert.ok(
    run.modules.some((m) => m.endsWith(join("dist", "stores", "file.js"))),
    "the probe saw the file store load",
  );
  assert.deepEqual(keychainModules(run), []);
  assert.deepEqual(keychainProcesses(run), []);
  assert.ok(!run.modules.some((m) => m.includes("@napi-rs")), "the binding was not loaded");
});

test("secret-store keychain (the control): the same program loads the keychain's modules and starts its process", () => {
  const run = runWith("keychain");
  assert.notDeepEqual(keychainModules(run), [], run.modules.join("\n"));
  assert.notDeepEqual(keychainProcesses(run), [], run.started.join("\n"));
  // The binding runs in the child process, never in this one.
  assert.ok(!run.modules.some((m) => m.includes("@napi-rs")), "the binding was loaded into the program's process");
});
