// Dead ends that used to wait out the 5-minute timeout now fail before the browser opens (issues
// 26 and 29): a configured client the emulator does not know, an emulator that is not running, a
// misspelt scope URL. Each is one line with its code and the way out; nobody was sent to a page.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { withEmulator } from "../support/emulator.ts";
import { closedPort } from "../support/net.ts";
import { runCli, sandbox } from "./support.ts";

const emulator = await withEmulator();

/** A Desktop client's file, as the console downloads it, that the emulator was never told about. */
function ownClientFile(dir: string): string {
  const path = join(dir, "client_secret_1234.json");
  const client = { client_id: "1234-own.apps.googleusercontent.com", client_secret: "GOCSPX-own/x+y=" };
  writeFileSync(path, JSON.stringify({ installed: client }));
  return path;
}

/** The one line the CLI ended with (the emulator notice aside), for a login that must fail fast. */
async function failedLogin(args: string[], env: NodeJS.ProcessEnv, dir: string) {
  // Ten minutes to sign in: an answer within the test's limit means nothing waited for a person.
  const result = await runCli(["login", join(dir, "adc.json"), "--timeout", "600", ...args], env);
  const lines = result.stderr.trim().split("\n");
  return { code: result.code, last: lines.at(-1) ?? "", all: result.stderr };
}

test("the emulator and a client configured in the settings that it does not know: one line, the way out, at once", async () => {
  const box = sandbox(emulator, { CRED_AUTH_REMOTE: "0" });
  const set = await runCli(["config", "set", "client-secret-file", ownClientFile(box.dir)], box.env);
  assert.equal(set.code, 0, set.stderr);
  const before = emulator.stats().authorizations;
  const { code, last, all } = await failedLogin([], box.env, box.dir);
  assert.equal(code, 1, all);
  assert.equal(
    last,
    "cred-auth: The emulator does not know the OAuth client from your settings (cred-auth config list): set CRED_AUTH_CLIENT_ID/SECRET to its demo client in this shell (docs/getting-started.md), or register yours. (ERR_INVALID_CLIENT)",
    "where it came from, and a way out that works after config init too (unsetting one setting did not)",
  );
  assert.match(last, /\(ERR_INVALID_CLIENT\)$/);
  assert.doesNotMatch(all, /GOCSPX|o\/oauth2\/v2\/auth/, "no secret; no sign-in link was ever shown");
  assert.equal(emulator.stats().authorizations, before, "nobody was sent to the consent page");
});

test("after `config init` with a client the emulator does not know: the way out names the demo client in the environment", async () => {
  const box = sandbox(emulator, { CRED_AUTH_REMOTE: "0" });
  const file = join(box.dir, "client_secret_init.json");
  const client = { client_id: "1234-own.apps.googleusercontent.com", client_secret: "GOCSPX-own/x+y=" };
  writeFileSync(file, JSON.stringify({ installed: { ...client, redirect_uris: ["http://localhost"] } }));
  const init = await runCli(["config", "init", file], box.env);
  assert.equal(init.code, 0, init.stderr);
  const { code, last, all } = await failedLogin([], box.env, box.dir);
  assert.equal(code, 1, all);
  assert.match(last, /from your settings \(cred-auth config list\)/);
  assert.match(last, /set CRED_AUTH_CLIENT_ID\/SECRET to its demo client in this shell/);
  assert.doesNotMatch(last, /config unset/, "unsetting one setting changes nothing after config init");
});

test("--client-secret-file with a client the emulator does not know", async () => {
  const box = sandbox(emulator, { CRED_AUTH_REMOTE: "0" });
  const { code, last } = await failedLogin(["--client-secret-file", ownClientFile(box.dir)], box.env, box.dir);
  assert.equal(code, 1);
  assert.match(last, /from the clientId\/clientSecret options or --client-secret-file: .*\(ERR_INVALID_CLIENT\)$/);
});

test("CRED_AUTH_EMULATOR_HOST pointing at an emulator that is not running: exit 3, how to start it", async () => {
  const port = await closedPort();
  const box = sandbox(undefined, { CRED_AUTH_EMULATOR_HOST: `127.0.0.1:${port}`, CRED_AUTH_REMOTE: "0" });
  const { code, last, all } = await failedLogin([], box.env, box.dir);
  assert.equal(code, 3, all);
  assert.match(last, new RegExp(`start it with \`cred-auth emulator --port ${port}\`.*\\(ERR_UNREACHABLE\\)$`));
});

test("a misspelt scope URL: did you mean, before anything else", async () => {
  const box = sandbox(emulator, { CRED_AUTH_REMOTE: "0" });
  const misspelt = "https://www.googleapis.com/auth/cloud-platfrom";
  const { code, last } = await failedLogin(["--scopes", misspelt], box.env, box.dir);
  assert.equal(code, 1);
  assert.match(last, /did you mean https:\/\/www\.googleapis\.com\/auth\/cloud-platform\?.*\(ERR_INVALID_SCOPE\)$/);
});
