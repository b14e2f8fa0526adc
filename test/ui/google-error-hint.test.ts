// Issue 18: Google answers a bad scope, client or redirect with its own error page and never
// redirects back. What such a page means and what to do is one of the sign-in's details
// (issue 48): folded in the notebook card, a CRED_AUTH_DEBUG line on a terminal, never on the
// waiting screen itself.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { planSignIn } from "../../dist/credentials/sign-in/plan.js";
import { renderSignInHtml, renderSignInText } from "../../dist/ui/notebook.js";
import { linesFor } from "../../dist/ui/plain.js";
import { INITIAL_STATE, reduce } from "../../dist/ui/view-state.js";

const HINT =
  /If Google shows an error page \(such as Error 400: invalid_scope\) instead of coming back, .*sign in again\./;
const URL_EVENT = {
  type: "url",
  url: "http://127.0.0.1:9/o/oauth2/v2/auth?x=1",
  mode: "loopback",
  scopes: ["https://www.googleapis.com/auth/cloud-platform"],
  browserOpened: false,
} as const;

test("the hint is one of the plan's details, not a line of the waiting screen", () => {
  const plan = planSignIn(
    { scopes: ["openid"], options: { clientId: "i", clientSecret: "s" } },
    { env: {}, settings: () => ({}) },
  );
  assert.match(plan.face.details.join("\n"), HINT);
  assert.doesNotMatch(plan.face.notes.join("\n"), HINT);
  assert.doesNotMatch(linesFor({ type: "waiting" }).join("\n"), HINT, "plain lines");
});

test("notebook card: the hint is folded in its details while it waits; the text form leaves it out", () => {
  const waiting = reduce(reduce(INITIAL_STATE, URL_EVENT), { type: "waiting" });
  const html = renderSignInHtml({
    ...waiting,
    folded: [
      "If Google shows an error page (such as Error 400: invalid_scope) instead of coming back, x: sign in again.",
    ],
  });
  assert.match(/<details data-cred-auth-notes[^>]*>(.*?)<\/details>/.exec(html)?.[1] ?? "", HINT);
  assert.doesNotMatch(renderSignInText({ ...waiting, folded: ["hint"] }), /hint/);
});

test("terminal: the hint is a CRED_AUTH_DEBUG line", () => {
  const script = `const { planSignIn } = require(${JSON.stringify(new URL("../../dist/credentials/sign-in/plan.js", import.meta.url).pathname)});
const { debug } = require(${JSON.stringify(new URL("../../dist/util/debug.js", import.meta.url).pathname)});
for (const detail of planSignIn({ scopes: ["openid"], options: { clientId: "i", clientSecret: "s" } }, { env: process.env, settings: () => ({}) }).face.details) debug(process.env, detail);`;
  const run = (env: Record<string, string>) =>
    spawnSync(process.execPath, ["-e", script], { env: { PATH: process.env.PATH ?? "", ...env }, encoding: "utf8" });
  assert.match(run({ CRED_AUTH_DEBUG: "1" }).stderr, HINT);
  assert.equal(run({}).stderr, "");
});
