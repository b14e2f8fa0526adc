// A remote tslab kernel with a Desktop client (no code page): the first cell ends with the
// credentials, the browser "on another machine" cannot reach the kernel's loopback receiver, and
// its final address pasted into completeSignIn(address) in the next cell makes them work.
import assert from "node:assert/strict";
import { test } from "node:test";
import { codeCells, findJupyterPython, htmlOf, stdoutOf, tslabRunner, text, tslabFixture } from "./support.ts";

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
  const first = cells.find((cell) => text(cell.source).includes("getUserCredentials"));
  assert.ok(first);
  assert.deepEqual(
    (first.outputs ?? []).filter((o) => o.output_type === "stream" || o.output_type === "error"),
    [],
    "the first cell ended normally: only the card",
  );
  const waiting = run.cards.find((card) => card.status === "waiting");
  assert.match(
    waiting?.html ?? "",
    /<details data-cred-auth-notes.*loopback sign-in with the address pasted back: this machine looks remote \(CRED_AUTH_REMOTE=1\)/,
    "the card folds why this flow in its details",
  );
  assert.match(waiting?.plain ?? "", /completeSignIn\("PASTE-THE-ADDRESS-HERE"\)/);
  assert.match(htmlOf(first), /data-cred-auth-status="signed-in"/, "the second cell completed the first card");
  const last = cells.at(-1)!;
  assert.equal(stdoutOf(last).trim(), "200 Hello from the cred-auth emulator!");
});
