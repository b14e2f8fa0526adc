// The notebooks in notebooks/, executed headlessly on a real tslab kernel (Jupyter's nbclient)
// against the emulator, while this test drives the consent page like a browser.
import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  codeCells,
  findJupyterPython,
  htmlOf,
  type NotebookRun,
  stdoutOf,
  tslabRunner,
  statusOf,
  text,
  tslabFixture,
} from "./support.ts";

const python = findJupyterPython();
const skip = python || process.env.CI ? false : "Jupyter (python3-nbclient, python3-jupyter-client) is not installed";
if (skip) console.warn(`\n!!! SKIPPING the notebook tests: ${skip}. They run under CI. !!!\n`);

const fixture = tslabFixture("cred-auth-notebooks-", skip);

const runNotebook = tslabRunner(fixture, python);

function assertRan(run: NotebookRun): void {
  assert.equal(run.ok, true, `the notebook ran to the end: ${run.error}`);
  assert.ok(run.cells.length > 0);
}

test("01-quickstart: default() signs in through the cell's display, then the API answers", { skip }, async () => {
  const run = await runNotebook("01-quickstart.ipynb", { CRED_AUTH_REMOTE: "0" });
  assertRan(run);
  assert.equal(run.signIns.length, 1, "one sign-in link was shown while the cell waited");
  assert.match(run.signIns[0]!.redirectUri, /^http:\/\/localhost:\d+\/$/, "loopback flow");
  const [, imports, signIn, request] = codeCells(run);
  assert.ok(imports && signIn && request);
  assert.match(
    text(imports.source),
    /^(\/\/.*\n)*import \* as credAuth from "cred-auth";$/,
    "the import has a cell of its own",
  );
  assert.deepEqual(
    run.cards.map((card) => card.status),
    ["preparing", "waiting", "signed-in"],
    "the card appeared with the link while the cell waited, then said signed in",
  );
  assert.deepEqual(statusOf(htmlOf(signIn)), ["signed-in"], "the same display now says signed in");
  assert.match(htmlOf(signIn), /Signed in as bob@example\.com/);
  const plain = (signIn.outputs ?? []).map((o) => text(o.data?.["text/plain"])).join("\n");
  assert.match(plain, /Signed in as bob@example\.com/, "the card carries text/plain for text front ends");
  const waiting = run.cards.find((card) => card.status === "waiting")?.html ?? "";
  assert.match(waiting, /See, edit, configure and delete your Google Cloud data/, "the waiting card said what it asks");
  assert.doesNotMatch(htmlOf(signIn), /It asks to/, "the signed-in card leads with its outcome alone");
  assert.equal(
    signIn.outputs?.filter((o) => o.output_type === "stream" && o.name === "stderr").length,
    0,
    "nothing on stderr",
  );
  assert.match(stdoutOf(signIn), /project: \(none: user credentials\)/);
  assert.equal(stdoutOf(request).trim(), "200 Hello from the cred-auth emulator!");
  const cache = join(run.home, ".config", "cred", "cred_credentials.json");
  assert.equal(statSync(cache).mode & 0o777, 0o600, "the credentials were cached, private");
});

test("02-cache-choices: NOOP and REAUTH sign in, READ_WRITE reuses the file", { skip }, async () => {
  const run = await runNotebook("02-cache-choices.ipynb", { CRED_AUTH_REMOTE: "0" });
  assertRan(run);
  assert.equal(run.signIns.length, 2, "NOOP and REAUTH signed in; READ_WRITE did not");
  const out = codeCells(run).map(stdoutOf).join("");
  assert.match(out, /NOOP left the cache file untouched: true/);
  assert.match(out, /REAUTH wrote the cache file: true/);
  assert.match(out, /READ_WRITE reused the cached credentials: true/);
  const cards = codeCells(run)
    .map(htmlOf)
    .filter((html) => html.includes("cred-auth-sign-in"));
  assert.equal(cards.length, 2);
  for (const card of cards) assert.deepEqual(statusOf(card), ["signed-in"]);
});

test("03-load-files: saveUserCredentials, loadUserCredentials, loadServiceAccountCredentials", { skip }, async () => {
  const run = await runNotebook("03-load-files.ipynb", { CRED_AUTH_REMOTE: "0" });
  assertRan(run);
  assert.equal(run.signIns.length, 1, "only saving signs in");
  const out = codeCells(run).map(stdoutOf).join("");
  assert.match(out, /user credentials: 200 Hello from the cred-auth emulator!/);
  assert.match(out, /project: \S+/);
  assert.match(out, /service account: 200 Hello from the cred-auth emulator!/);
  const saved = codeCells(run)
    .map(htmlOf)
    .find((html) => html.includes("Saved to"));
  assert.ok(saved, "the card says where the credentials were saved");
  assert.match(saved, /user-credentials\.json/);
});

test("04-two-cell-sign-in: the first cell shows the link and ends with the credentials; completeSignIn(code) in the next cell makes them work", {
  skip,
}, async () => {
  const run = await runNotebook("04-two-cell-sign-in.ipynb", { CRED_AUTH_REMOTE: "1" });
  assertRan(run);
  assert.equal(run.signIns.length, 1);
  assert.match(run.signIns[0]!.redirectUri, /\/oauth\/code$/, "copy-paste flow: the page shows the code");
  const cells = codeCells(run);
  const first = cells.find((cell) => text(cell.source).includes("getUserCredentials"));
  assert.ok(first);
  const asked = run.cards.find((card) => card.status === "code");
  assert.ok(asked?.completeSignIn, "the first card asked for completeSignIn(code) in a new cell");
  assert.deepEqual(statusOf(htmlOf(first)), ["signed-in"], "the first cell's card was updated by the second cell");
  assert.deepEqual(
    (first.outputs ?? []).filter((o) => o.output_type === "stream" || o.output_type === "error"),
    [],
    "the first cell ended normally: no error, no line on stderr, only the card",
  );
  const last = cells.at(-1)!;
  assert.equal(stdoutOf(last).trim(), "200 Hello from the cred-auth emulator!", "the first cell's credentials work");
});
