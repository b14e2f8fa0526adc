// Where the settings plug into the library: the sign-in plan (credentials/sign-in/plan.ts), in-process
// with a settings file in a temp directory (XDG_CONFIG_HOME of the env each plan is given): the
// OAuth client, the loopback ports, `remote` and the face, each after the options and the
// environment, before the defaults; a corrupt file or a bad value is left out with a warning on
// stderr (checked in a child process), never an exception.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { planSignIn, planSources } from "../../dist/credentials/sign-in/plan.js";
import { type Endpoints, resolveEndpoints } from "../../dist/protocols/endpoints.js";
import type { HostFacts } from "../../dist/runtime/detect.js";
import { hostFacts } from "../support/host.ts";
import { settingsFile } from "../../dist/settings/paths.js";
import { readSettings } from "../../dist/settings/read.js";

const google = resolveEndpoints({});
const EMULATOR_HOST = "127.0.0.1:9";
const emulator = resolveEndpoints({ CRED_AUTH_EMULATOR_HOST: EMULATOR_HOST });
const root = mkdtempSync(join(tmpdir(), "cred-auth-settings-"));
after(() => rmSync(root, { recursive: true, force: true }));

let count = 0;
/** An env whose settings file holds `settings` (written as given: JSON or raw text). */
function withSettings(settings: Record<string, unknown> | string): NodeJS.ProcessEnv {
  const env = { HOME: root, XDG_CONFIG_HOME: join(root, `config-${count++}`) };
  mkdirSync(join(env.XDG_CONFIG_HOME, "cred-auth"), { recursive: true });
  writeFileSync(settingsFile(env), typeof settings === "string" ? settings : JSON.stringify(settings));
  return env;
}

/** A client of the call's own, so that a plan needs none from the settings. */
const OWN = { clientId: "own-id", clientSecret: "GOCSPX-own" };

/** The client the plan chooses for `options` in `env` (whose settings file it reads), at Google or the emulator. */
function resolveClient(options: { clientId?: string; clientSecret?: string }, env: NodeJS.ProcessEnv, at: Endpoints) {
  const where = at.emulator ? { ...env, CRED_AUTH_EMULATOR_HOST: EMULATOR_HOST } : env;
  return planSignIn({ scopes: ["openid"], options: { ...options, useLocalWebserver: true } }, planSources(where)).flow
    .client;
}

/** The loopback ports the plan chooses in `env`. */
function portRangeFromEnv(env: NodeJS.ProcessEnv) {
  const { redirect } = planSignIn(
    { scopes: ["openid"], options: { ...OWN, useLocalWebserver: true } },
    planSources(env),
  ).flow;
  assert.equal(redirect.mode, "loopback");
  return redirect.ports;
}

const CLIENT = { clientId: "1234-set.apps.googleusercontent.com", clientSecret: "GOCSPX-set/ti+ng=" };
const clientFile = join(root, "client_secret.json");
writeFileSync(
  clientFile,
  JSON.stringify({ installed: { client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret } }),
);

test("the settings' client comes after options and environment, before the emulator's demo client", () => {
  const env = withSettings({ "client-secret-file": clientFile });
  assert.deepEqual(resolveClient({}, env, google), { ...CLIENT, source: "settings", kind: "desktop" });
  assert.equal(resolveClient({}, env, emulator).source, "settings");
  assert.equal(resolveClient({ clientId: "o", clientSecret: "p" }, env, google).source, "options");
  const withEnv = { ...env, CRED_AUTH_CLIENT_ID: "e", CRED_AUTH_CLIENT_SECRET: "f" };
  assert.equal(resolveClient({}, withEnv, google).source, "env");
  assert.equal(resolveClient({}, { ...env, CRED_AUTH_CLIENT_SECRET_FILE: clientFile }, google).source, "file");

  const pair = withSettings({ "client-id": "id-from-settings", "client-secret": "GOCSPX-pair/x+y=" });
  assert.deepEqual(resolveClient({}, pair, google), {
    clientId: "id-from-settings",
    clientSecret: "GOCSPX-pair/x+y=",
    source: "settings",
  });
  assert.equal(resolveClient({}, withSettings({}), emulator).source, "demo");
});

test("no client anywhere: the error names the exact config command", () => {
  assert.throws(
    () => resolveClient({}, withSettings({}), google),
    (error: Error & { code?: string }) => {
      assert.equal(error.code, "ERR_NO_OAUTH_CLIENT");
      assert.match(error.message, /`cred-auth config init` creates your own client once/);
      return true;
    },
  );
});

test("half a client in the settings, or a settings file that is gone, is a clear error", () => {
  assert.throws(
    () => resolveClient({}, withSettings({ "client-id": "only-id" }), google),
    /Give both parts of the OAuth client: the client-id and client-secret settings/,
  );
  assert.throws(
    () => resolveClient({}, withSettings({ "client-secret-file": join(root, "gone.json") }), google),
    /Cannot read the OAuth client-secret file .*gone\.json \(ENOENT\) named by the client-secret-file setting/,
  );
});

test("loopback ports: the environment, then the setting, then 8080-8089", () => {
  const env = withSettings({ "loopback-ports": "20100-20104" });
  assert.deepEqual(portRangeFromEnv(env), { first: 20100, last: 20104 });
  assert.deepEqual(portRangeFromEnv({ ...env, CRED_AUTH_LOOPBACK_PORTS: "30000" }), { first: 30000, last: 30000 });
  assert.deepEqual(portRangeFromEnv(withSettings({})), { first: 8080, last: 8089 });
});

/** A host inside a container (so remote unless said otherwise). */
function host(overrides: Partial<HostFacts> = {}): HostFacts {
  return hostFacts({ inContainer: () => true, ...overrides });
}

/** Where the plan says the code runs, in `env` on `facts`. */
function detectRuntime(env: NodeJS.ProcessEnv, facts: HostFacts) {
  const sources = { ...planSources(env), globals: {}, host: facts };
  return planSignIn({ scopes: ["openid"], options: { ...OWN, useLocalWebserver: true } }, sources).runtime;
}

test("remote: CRED_AUTH_REMOTE, then the setting, then the detection (here: a container)", () => {
  const local = withSettings({ remote: false });
  const info = detectRuntime({ ...local, DISPLAY: ":0" }, host());
  assert.equal(info.remote, false);
  assert.ok(info.reasons.includes("local: the remote setting (cred-auth config)"), info.reasons.join("; "));
  assert.equal(detectRuntime({ ...local, CRED_AUTH_REMOTE: "1" }, host()).remote, true);
  assert.equal(detectRuntime(withSettings({}), host()).remote, true);
  assert.equal(detectRuntime(withSettings({ remote: true }), host({ inContainer: () => false })).remote, true);
});

test("the face: the presenter option, then the ui setting, then auto", () => {
  const plain = withSettings({ ui: "plain" });
  const faceOf = (env: NodeJS.ProcessEnv, presenter?: "terminal") => {
    const sources = { ...planSources({ ...env, TERM: "xterm-256color" }), globals: {}, host: host() };
    const options = { ...OWN, useLocalWebserver: true, ...(presenter ? { presenter } : {}) };
    return planSignIn({ scopes: ["openid"], options }, sources).face;
  };
  assert.deepEqual(
    [faceOf(plain).face, faceOf(plain).fallback, faceOf(plain).color],
    ["plain", false, true],
    "the setting: plain lines, in colour where they have any",
  );
  assert.equal(faceOf(plain, "terminal").face, "terminal");
  assert.deepEqual([faceOf(withSettings({})).face, faceOf(withSettings({})).fallback], ["terminal", true]);
});

test("readSettings keeps the valid values of a file edited by hand", () => {
  const env = withSettings({ scopes: ["a"], ui: "fancy", remote: "yes", "loopback-ports": "99999", other: 1 });
  assert.deepEqual(readSettings(env), { scopes: ["a"] });
});

test("a corrupt settings file: one warning on stderr, no settings, no exception", () => {
  const env = withSettings("{ not json");
  const script = `const s = require(${JSON.stringify(new URL("../../dist/settings/read.js", import.meta.url).pathname)});
    const a = s.readSettings(); const b = s.readSettings(); process.stdout.write(JSON.stringify([a, b]));`;
  const child = spawnSync(process.execPath, ["-e", script], { env: { ...process.env, ...env }, encoding: "utf8" });
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout, "[{},{}]");
  assert.equal(
    child.stderr,
    `cred-auth: warning: the settings file ${settingsFile(env)} is not a JSON object and is ignored; fix or remove it (cred-auth config set rewrites it)\n`,
  );
});
