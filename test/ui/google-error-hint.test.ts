// Issue 18: Google answers a bad scope, client or redirect with its own error page and never
// redirects back, so a face that only says "waiting" would leave the user waiting out the
// whole timeout. Every face says, while it waits, what such a page means and what to do.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { cleanup, render } from "../support/ink-testing.ts";
import { linesFor } from "../../dist/ui/plain.js";
import { renderSignInHtml, renderSignInText } from "../../dist/ui/notebook.js";
import { INITIAL_STATE, reduce } from "../../dist/ui/view-state.js";
import { createTerminalPresenter } from "../../dist/ui/terminal/index.js";

after(() => cleanup());

const HINT = /If the browser shows an error from Google instead of coming back .*sign in again\./;
const URL_EVENT = {
  type: "url",
  url: "http://127.0.0.1:9/o/oauth2/v2/auth?x=1",
  mode: "loopback",
  scopes: ["https://www.googleapis.com/auth/cloud-platform"],
  browserOpened: false,
} as const;

test("plain: the waiting lines say what to do about an error page from Google", () => {
  assert.match(linesFor({ type: "waiting" }).join("\n"), HINT);
  assert.doesNotMatch(linesFor({ type: "signed-in" }).join("\n"), HINT, "only while waiting");
});

test("notebook card (HTML and text/plain): waiting says it, a finished card does not", () => {
  const waiting = reduce(reduce(INITIAL_STATE, URL_EVENT), { type: "waiting" });
  assert.match(renderSignInHtml(waiting).replace(/&#39;|&apos;/g, "'"), HINT);
  assert.match(renderSignInText(waiting), HINT);
  const done = reduce(waiting, { type: "signed-in", account: "a@example.com" });
  assert.doesNotMatch(renderSignInText(done), HINT);
});

test("terminal: the hint stands under the waiting spinner", async () => {
  let instance: ReturnType<typeof render> | undefined;
  const presenter = await createTerminalPresenter({
    abort: new AbortController(),
    mount: (element) => (instance = render(element)),
  });
  presenter.update(URL_EVENT);
  presenter.update({ type: "waiting" });
  for (let i = 0; i < 200 && !/error from Google/.test(instance?.lastFrame() ?? ""); i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.match((instance?.lastFrame() ?? "").replace(/\s+/g, " "), HINT);
  await presenter.close?.();
});
