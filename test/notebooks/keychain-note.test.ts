// The keychain's fallback note is no Node warning in a notebook (issue 48 item 3): on a machine
// without a Secret Service, a sign-in on a real tslab kernel keeps the refresh token in the cache
// file (the default secret store, `auto`) and writes nothing about it under the cell; `cred-auth
// status` says where the refresh token is and why (test/stores/keychain.test.ts).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { codeCells, findJupyterPython, stderrOf, tslabFixture, tslabRunner } from "./support.ts";

const python = findJupyterPython();
const skip = python || process.env.CI ? false : "Jupyter (python3-nbclient, python3-jupyter-client) is not installed";
if (skip) console.warn(`\n!!! SKIPPING the notebook tests: ${skip}. They run under CI. !!!\n`);

const fixture = tslabFixture("cred-auth-keychain-note-", skip);
const runNotebook = tslabRunner(fixture, python);

test("a sign-in without a Secret Service writes nothing about the keychain under the cell", { skip }, async () => {
  const run = await runNotebook("01-quickstart.ipynb", { CRED_AUTH_REMOTE: "0" });
  assert.equal(run.ok, true, `the notebook ran to the end: ${run.error}`);
  assert.equal(run.signIns.length, 1);
  const cache = JSON.parse(readFileSync(join(run.home, ".config", "cred", "cred_credentials.json"), "utf8"));
  assert.equal(typeof cache.refresh_token, "string", "auto kept the refresh token in the file");
  for (const cell of codeCells(run)) {
    assert.doesNotMatch(
      stderrOf(cell),
      /keychain|Secret Service|CRED_AUTH_KEYCHAIN|\(node:\d+\)|Warning/i,
      stderrOf(cell),
    );
  }
  const note = readFileSync(join(run.home, ".config", "cred-auth", "keychain-note"), "utf8");
  assert.match(note, /^no Secret Service: this session has no D-Bus/, "remembered for `cred-auth status`");
});
