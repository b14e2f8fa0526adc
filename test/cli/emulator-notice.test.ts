// CRED_AUTH_EMULATOR_HOST sends every credential, real ones too, to a local port: cred-auth says so,
// one line on stderr, once per process, and says nothing when the variable is not set.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { withEmulator } from "../support/emulator.ts";
import { EMULATOR_NOTICE, runCli, sandbox, userFile } from "./support.ts";

const ENDPOINTS = new URL("../../dist/protocols/endpoints.js", import.meta.url).pathname;

function resolveTwice(env: NodeJS.ProcessEnv): string {
  const script = `const { resolveEndpoints } = require(${JSON.stringify(ENDPOINTS)}); resolveEndpoints(); resolveEndpoints();`;
  const child = spawnSync(process.execPath, ["-e", script], { env, encoding: "utf8" });
  assert.equal(child.status, 0, child.stderr);
  return child.stderr;
}

test("the library prints the emulator notice once per process, and nothing without the variable", () => {
  const { CRED_AUTH_EMULATOR_HOST: _unset, ...plain } = process.env;
  const stderr = resolveTwice({ ...plain, CRED_AUTH_EMULATOR_HOST: "127.0.0.1:9" });
  assert.equal(
    stderr,
    "cred-auth: CRED_AUTH_EMULATOR_HOST: using the local emulator at http://127.0.0.1:9, not Google.\n",
  );
  assert.equal(resolveTwice(plain), "");
});

test("print-token against the emulator prints the notice on stderr, the token alone on stdout", async () => {
  const emu = await withEmulator();
  const box = sandbox(emu);
  const { path } = await userFile(emu, box);
  const r = await runCli(["print-token", path], box.env);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.notice ?? "", EMULATOR_NOTICE);
  assert.ok(r.notice!.includes(emu.url));
  assert.match(r.stdout, /^\S+\n$/);
});

test("the notice is not printed when the file's own token_uri is used instead of the emulator's", async () => {
  const emu = await withEmulator();
  // CRED_AUTH_EMULATOR_HOST names another (closed) port; the file's token_uri is the running emulator's.
  const box = sandbox(undefined, { CRED_AUTH_EMULATOR_HOST: "127.0.0.1:9" });
  const { path } = await userFile(emu, box);
  for (const args of [
    ["print-token", path],
    ["print-token", path, "--fresh"],
  ]) {
    const r = await runCli(args, box.env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.notice, undefined, "the notice claimed the emulator was used");
    assert.equal(r.stderr, "");
  }
});
