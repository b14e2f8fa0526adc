// default()'s warm path (cached user credentials, a still-valid access token in the token cache)
// is what a notebook pays on every run after the first (bench/README.md, target 4). It must not
// load the sign-in plan or what only a sign-in needs: the plan, the runtime's full detection, the
// settings reader, the client check, the scope data. A preload records require.cache at exit, in
// a fresh process, so what this test process loaded cannot hide a load.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { DEMO_CLIENT, EMULATOR_PATHS } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";

const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));
const INDEX = join(DIST, "index.js");
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const SIGN_IN_ONLY = [
  "credentials/sign-in/plan.js",
  "settings/read.js",
  "oauth/client-check.js",
  "oauth/known-scopes.js",
  "oauth/google-scopes.js",
  "oauth/flow.js",
  "ui/select.js",
];
// The keychain is read only when a refresh token is (docs/caching.md): never on the warm path.
// test/stores/keychain.test.ts runs the warm path on a cache file whose secrets are in the keychain.
const KEYCHAIN = ["stores/keychain.js", "os/keychain.js"];
// Imported by modules on the path for their other paths (a refresh, a failure, a hosted platform's
// token, a save), never run on this one: the build's lazy imports evaluate a module on first use.
const OTHER_PATHS = [
  "token-cache/lock.js",
  "util/atomic-write.js",
  "protocols/token-errors.js",
  "hosted/http.js",
  "credentials/kinds/key/client.js",
  "credentials/sign-in/destination.js",
];

// The process's threads are counted (Linux: /proc/self/task) before the import and after the
// token: an asynchronous file operation starts libuv's pool of four worker threads, which the warm
// path has no need of (bench/README.md, target 4).
const SCRIPT = `
const { readdirSync, writeFileSync } = require("node:fs");
const threads = () => readdirSync("/proc/self/task").length;
const threadsBefore = threads();
let threadsAfter;
process.on("exit", () => writeFileSync(process.env.RECORD_MODULES_TO, JSON.stringify({ modules: Object.keys(require.cache), threadsBefore, threadsAfter })));
const credAuth = require(${JSON.stringify(INDEX)});
credAuth.default([${JSON.stringify(CLOUD)}]).then(async ([credentials]) => {
  const { token } = await credentials.getAccessToken();
  threadsAfter = threads();
  process.stdout.write(token ? "TOKEN" : "NONE");
}, (error) => { process.stdout.write("ERROR " + error.message); });
`;

interface WarmRun {
  stdout: string;
  modules: string[];
  threadsBefore: number;
  threadsAfter: number;
}

function run(env: NodeJS.ProcessEnv): Promise<WarmRun> {
  const record = join(env.HOME as string, `modules-${Math.random()}.json`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", SCRIPT], { env: { ...env, RECORD_MODULES_TO: record } });
    let stdout = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.on("error", reject);
    child.on("close", () =>
      resolve({ stdout, ...(JSON.parse(readFileSync(record, "utf8")) as Omit<WarmRun, "stdout">) }),
    );
  });
}

test("default() with cached credentials and a cached token loads nothing only a sign-in needs", async (t) => {
  const emu = await withEmulator();
  const home = mkdtempSync(join(tmpdir(), "cred-auth-warm-"));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  mkdirSync(join(home, ".config", "cred"), { recursive: true, mode: 0o700 });
  writeFileSync(
    join(home, ".config", "cred", "cred_credentials.json"),
    JSON.stringify({
      type: "authorized_user",
      client_id: DEMO_CLIENT.clientId,
      client_secret: DEMO_CLIENT.clientSecret,
      refresh_token: emu.issueRefreshToken({ scopes: [CLOUD] }),
      token_uri: emu.url + EMULATOR_PATHS.token,
      scopes: [CLOUD],
    }),
    { mode: 0o600 },
  );
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    CRED_AUTH_HOSTED: "off",
  };
  const first = await run(env);
  assert.equal(first.stdout, "TOKEN", "the first run refreshes and caches the token");
  const before = emu.stats().tokenRequests;
  const warm = await run(env);
  assert.equal(warm.stdout, "TOKEN");
  assert.equal(emu.stats().tokenRequests, before, "the warm run asks no token server");
  const ours = warm.modules.filter((m) => m.startsWith(DIST)).map((m) => relative(DIST, m).split("\\").join("/"));
  assert.ok(ours.includes("credentials/search/default.js"), "the recorder saw the library");
  assert.deepEqual(
    SIGN_IN_ONLY.filter((file) => ours.includes(file)),
    [],
    "modules only a sign-in needs were loaded on the warm path",
  );
  assert.deepEqual(
    KEYCHAIN.filter((file) => ours.includes(file)),
    [],
    "the keychain's modules were loaded on the warm path",
  );
  assert.ok(!warm.modules.some((m) => m.includes("@napi-rs")), "the keychain binding was loaded on the warm path");
  assert.deepEqual(
    OTHER_PATHS.filter((file) => ours.includes(file)),
    [],
    "modules the warm path imports but does not run were loaded",
  );
  assert.equal(
    warm.threadsAfter,
    warm.threadsBefore,
    "the warm path started threads (an asynchronous file operation starts libuv's worker pool)",
  );
});
