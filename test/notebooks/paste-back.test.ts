// A remote tslab kernel with a Desktop client (no code page): the first cell stops with
// SignInPendingError, the browser "on another machine" cannot reach the kernel's loopback
// receiver, and its final address pasted into completeSignIn(address) signs in.
import assert from "node:assert/strict";
import { test } from "node:test";
import { codeCells, findJupyterPython, stdoutOf, tslabRunner, text, tslabFixture } from "./support.ts";

const python = findJupyterPython();
const skip = python || process.env.CI ? false : "Jupyter (python3-nbclient, python3-jupyter-client) is not installed";
if (skip) console.warn(`\n!!! SKIPPING the notebook tests: ${skip}. They run under CI. !!!\n`);

const fixture = tslabFixture("cred-auth-notebooks-", skip);

const runNotebook = tslabRunner(fixture, python, { remoteBrowser: true });

test("06-remote-desktop-client: the browser's final address pasted into completeSignIn signs in on tslab", {
  skip,
}, async () => {
  const run = await runNotebook("06-remote-desktop-client.ipynb", {
    CRED_AUTH_REMOTE: "1",
    CRED_AUTH_EMULATOR_CODE_PAGE: "off",
  });
  assert.equal(run.ok, true, `the notebook ran to the end: ${run.error}`);
  assert.equal(run.signIns.length, 1);
  assert.match(
    run.signIns[0]!.redirectUri,
    /^http:\/\/localhost:\d+\/$/,
    "a loopback redirect, as for a Desktop client",
  );
  const cells = codeCells(run);
  const pending = cells.find((cell) => cell.metadata.tags?.includes("raises-exception"));
  assert.ok(pending);
  const printed = (pending.outputs ?? [])
    .map((o) => `${text(o.text)}${(o as { traceback?: string[] }).traceback?.join("\n") ?? ""}`)
    .join("");
  assert.match(printed, /loopback sign-in with the address pasted back/, "the flow named in one line");
  assert.match(printed, /SignInPendingError/);
  assert.doesNotMatch(printed, /dist\//, "no stack frames into dist/");
  const last = cells.at(-1)!;
  assert.equal(stdoutOf(last).trim(), "200 Hello from the cred-auth emulator!");
});
