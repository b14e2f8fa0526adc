// `cred-auth config set|get|unset|list|path` as a real process in a sandboxed home: the settings
// file is conf's (0600 in a 0700 directory), values are checked, secrets are never printed, a
// corrupt file is a warning, a read-only home an error that says what to do.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withEmulator } from "../support/emulator.ts";
import { runCli, sandbox, userFile, type Sandbox } from "./support.ts";

const SECRET = "GOCSPX-k3y/with+plus=and/slash";
const CLIENT_ID = "1234-abcdef.apps.googleusercontent.com";

function settingsPath(box: Sandbox): string {
  return join(box.env.XDG_CONFIG_HOME!, "cred-auth", "config.json");
}

function clientSecretFile(box: Sandbox, name = "client_secret.json"): string {
  const path = join(box.dir, name);
  writeFileSync(path, JSON.stringify({ installed: { client_id: CLIENT_ID, client_secret: SECRET } }));
  return path;
}

async function ok(box: Sandbox, args: string[]): Promise<{ stdout: string; stderr: string }> {
  const r = await runCli(["config", ...args], box.env);
  assert.equal(r.code, 0, `config ${args.join(" ")}: ${r.stderr}`);
  assert.ok(!r.stdout.includes(SECRET) && !r.stderr.includes(SECRET), "a client secret was printed");
  return r;
}

test("config path, set, get, list, unset: the file is 0600 in a 0700 directory; the secret is never printed", async () => {
  const box = sandbox();
  assert.equal((await ok(box, ["path"])).stdout, `${settingsPath(box)}\n`);
  assert.equal((await ok(box, ["list"])).stdout, "");
  assert.ok(!existsSync(settingsPath(box)), "list created the file");

  const file = clientSecretFile(box);
  const set = await ok(box, ["set", "client-secret-file", file, "scopes", "a, b", "ui", "plain", "remote", "no"]);
  assert.match(set.stderr, /^cred-auth: set client-secret-file, set scopes, set ui, set remote in .*config\.json\n$/);
  assert.equal(statSync(settingsPath(box)).mode & 0o777, 0o600);
  assert.equal(statSync(join(box.env.XDG_CONFIG_HOME!, "cred-auth")).mode & 0o777, 0o700);
  assert.deepEqual(JSON.parse(readFileSync(settingsPath(box), "utf8")), {
    "client-secret-file": file,
    scopes: ["a", "b"],
    ui: "plain",
    remote: false,
  });
  assert.equal((await ok(box, ["get", "scopes"])).stdout, "a,b\n");
  assert.equal((await ok(box, ["get", "remote"])).stdout, "false\n");
  const missing = await runCli(["config", "get", "loopback-ports"], box.env);
  assert.deepEqual([missing.code, missing.stdout, missing.stderr], [1, "", "cred-auth: loopback-ports is not set\n"]);

  // The id and secret replace the file (one client, never two), and the secret stays hidden.
  await ok(box, ["set", "client-id", CLIENT_ID, "client-secret", SECRET, "loopback-ports", "20000-20009"]);
  assert.equal(
    (await ok(box, ["list"])).stdout,
    `client-id = ${CLIENT_ID}\nclient-secret = (hidden)\nscopes = a,b\nui = plain\nloopback-ports = 20000-20009\nremote = false\n`,
  );
  const hidden = await runCli(["config", "get", "client-secret"], box.env);
  assert.equal(hidden.code, 2);
  assert.ok(!hidden.stderr.includes(SECRET));

  // Unsetting half the client unsets both.
  await ok(box, ["unset", "client-secret", "ui"]);
  assert.equal((await ok(box, ["list"])).stdout, "scopes = a,b\nloopback-ports = 20000-20009\nremote = false\n");
});

test("config set client-secret-file stores an absolute path, and only to a real client-secret file", async () => {
  const box = sandbox();
  clientSecretFile(box, "cs.json");
  const r = await runCli(["config", "set", "client-secret-file", "cs.json"], box.env, {});
  // runCli's cwd is the test's: a relative path that does not exist there is refused, nothing stored.
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^cred-auth: Cannot read the OAuth client-secret file \/.*cs\.json \(ENOENT\)/);
  assert.ok(!existsSync(settingsPath(box)));

  writeFileSync(join(box.dir, "not-a-client.json"), "{}");
  const bad = await runCli(["config", "set", "client-secret-file", join(box.dir, "not-a-client.json")], box.env);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /is not a Google client-secret JSON file/);
});

test("an existing settings directory open to others is tightened to 0700", async () => {
  const box = sandbox();
  const directory = join(box.env.XDG_CONFIG_HOME!, "cred-auth");
  mkdirSync(directory, { recursive: true, mode: 0o755 });
  chmodSync(directory, 0o755);
  await ok(box, ["set", "ui", "plain"]);
  assert.equal(statSync(directory).mode & 0o777, 0o700);
});

test("a corrupt settings file is a warning, never a crash: reads ignore it, set moves it aside", async () => {
  const box = sandbox();
  mkdirSync(join(box.env.XDG_CONFIG_HOME!, "cred-auth"), { recursive: true, mode: 0o700 });
  writeFileSync(settingsPath(box), '{"scopes": ["a"', { mode: 0o600 });
  const list = await ok(box, ["list"]);
  assert.equal(list.stdout, "");
  assert.match(
    list.stderr,
    /^cred-auth: warning: the settings file .*config\.json is not a JSON object and is ignored/,
  );

  const set = await ok(box, ["set", "ui", "terminal"]);
  assert.match(
    set.stderr,
    /warning: the settings file .* was not valid \(not JSON\); it was moved to .*config\.json\.corrupt/,
  );
  assert.equal(readFileSync(`${settingsPath(box)}.corrupt`, "utf8"), '{"scopes": ["a"');
  assert.equal((await ok(box, ["list"])).stdout, "ui = terminal\n");

  // A value edited by hand into something invalid is left out, with a warning naming the key.
  writeFileSync(settingsPath(box), JSON.stringify({ ui: "fancy", scopes: ["x"] }));
  const partly = await ok(box, ["list"]);
  assert.equal(partly.stdout, "scopes = x\n");
  assert.match(partly.stderr, /warning: the setting "ui" in .* is not valid and is ignored/);
});

/**
 * A home whose config directory cannot be created: read-only (mode 0500), or, for root whom modes
 * do not stop, one whose config directory would have to be made under a regular file.
 */
function unwritableHome(box: Sandbox): NodeJS.ProcessEnv {
  const home = join(box.dir, "read-only-home");
  mkdirSync(home);
  if (process.getuid?.() !== 0) {
    chmodSync(home, 0o500);
    return { ...box.env, HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
  }
  writeFileSync(join(home, ".config"), "a file where the directory would be");
  return { ...box.env, HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
}

test("a read-only home: config set fails in one line saying what to do; list, get, path and login still work", async () => {
  const box = sandbox();
  const env = unwritableHome(box);
  const r = await runCli(["config", "set", "ui", "plain"], env);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^cred-auth: Cannot write the settings file .*config\.json \((EACCES|ENOTDIR|EEXIST)\); make its directory writable, or use options or environment variables instead\. \(ERR_FILE_INVALID\)\n$/,
  );
  for (const args of [["list"], ["get", "ui"], ["path"]]) {
    const read = await runCli(["config", ...args], env);
    assert.ok(read.code === 0 || (args[0] === "get" && read.code === 1), `${args.join(" ")}: ${read.stderr}`);
    assert.doesNotMatch(read.stderr, /warning|Error/);
  }
  chmodSync(join(box.dir, "read-only-home"), 0o700);
});

test("print-token never reads the settings: a corrupt settings file makes no warning there", async () => {
  const emu = await withEmulator();
  const box = sandbox(emu);
  mkdirSync(join(box.env.XDG_CONFIG_HOME!, "cred-auth"), { recursive: true });
  writeFileSync(settingsPath(box), "not json");
  const { path } = await userFile(emu, box);
  for (let i = 0; i < 2; i++) {
    const r = await runCli(["print-token", path], box.env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
  }
});
