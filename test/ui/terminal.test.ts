import assert from "node:assert/strict";
import { after, test } from "node:test";
import { render, cleanup } from "../support/ink-testing.ts";
import { CredCancelledError } from "cred-auth";
import { createTerminalPresenter } from "../../dist/ui/terminal/presenter.js";

after(() => cleanup());

const LONG_URL =
  "http://127.0.0.1:9/o/oauth2/v2/auth?response_type=code&client_id=cred-auth-demo.apps.emulator.invalid&redirect_uri=http%3A%2F%2Flocalhost%3A8080%2F&scope=https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fcloud-platform&state=abcdefghijklmnopqrstuvwxyz0123456789&code_challenge=0123456789abcdefghijklmnopqrstuvwxyzABCDEFG&code_challenge_method=S256&access_type=offline&prompt=consent";
const SCOPES = [
  "https://www.googleapis.com/auth/cloud-platform",
  "https://www.googleapis.com/auth/userinfo.email",
  "https://example.com/custom",
];
const CTRL_C = "\u0003";
const ENTER = "\r";

async function start() {
  let instance: ReturnType<typeof render> | undefined;
  const abort = new AbortController();
  const presenter = await createTerminalPresenter({
    abort,
    mount: (element) => (instance = render(element)),
  });
  assert.ok(instance, "the presenter mounted its app");
  const ink = instance;
  return { presenter, abort, ink, output: () => ink.frames.join("\n"), last: () => ink.lastFrame() ?? "" };
}

/** Types like a person: one chunk, then a pause for React to re-attach the input handlers. */
async function type(ink: { stdin: { write(data: string): void } }, chunk: string): Promise<void> {
  ink.stdin.write(chunk);
  await new Promise((resolve) => setTimeout(resolve, 30));
}

/** Lets ink and React process input and effects (bounded). */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.fail(`never happened: ${what}`);
}

test("preparing: a spinner until the URL is known", async () => {
  const { presenter, last } = await start();
  assert.match(last(), /Preparing the sign-in/);
  await presenter.close?.();
});

test("loopback: header, scopes in words, the whole URL on one line, then a spinner", async () => {
  const { presenter, output, last } = await start();
  presenter.update({ type: "url", url: LONG_URL, mode: "loopback", scopes: SCOPES, browserOpened: true });
  presenter.update({ type: "waiting" });
  await until(() => output().includes(LONG_URL), "the URL is written");
  const lines = output().split("\n");
  assert.ok(
    lines.includes(LONG_URL),
    "the URL stands alone on a line, unwrapped, although it is wider than the terminal",
  );
  assert.ok(LONG_URL.length > 100);
  assert.match(output(), /cred-auth · Sign in to Google Cloud/);
  assert.match(output(), /See, edit, configure and delete your Google Cloud data/);
  assert.match(output(), /See your primary email address/);
  assert.match(output(), /custom/);
  assert.match(output(), /A browser window was opened/);
  await until(() => /Waiting… \(Ctrl\+C to cancel\)/.test(last()), "the spinner");
  await presenter.close?.();
});

test("the URL is written once, even when the state changes afterwards", async () => {
  const { presenter, output, last } = await start();
  presenter.update({ type: "url", url: LONG_URL, mode: "loopback", scopes: SCOPES, browserOpened: false });
  presenter.update({ type: "waiting" });
  presenter.update({ type: "signed-in", account: "ann@example.com" });
  await until(() => /Signed in as ann@example.com/.test(last()), "signed in");
  // ink writes the header above the live frame in the same write, then draws the frame alone.
  await until(() => output().includes("Open this link") && !last().includes(LONG_URL), "the live frame alone");
  assert.match(output(), /Open this link to sign in:/);
  const occurrences = output().split(LONG_URL).length - 1;
  assert.ok(occurrences >= 1);
  assert.ok(!last().includes("Open this link"), "the header is not part of the live frame");
  await presenter.close?.();
});

test("signed in: the account and where the credentials were saved", async () => {
  const { presenter, last } = await start();
  presenter.update({
    type: "url",
    url: "http://127.0.0.1:9/auth",
    mode: "loopback",
    scopes: SCOPES,
    browserOpened: false,
  });
  presenter.update({ type: "waiting" });
  presenter.update({ type: "signed-in", account: "ann@example.com", savedTo: "/tmp/creds/user.json" });
  await until(() => /Saved to \/tmp\/creds\/user.json/.test(last()), "saved to");
  assert.match(last(), /✔ Signed in as ann@example.com/);
  await presenter.close?.();
});

test("signed in without an account or a file", async () => {
  const { presenter, last } = await start();
  presenter.update({ type: "signed-in" });
  await until(() => /✔ Signed in/.test(last()), "signed in");
  assert.doesNotMatch(last(), /Saved to|Signed in as/);
  await presenter.close?.();
});

test("failed: the spinner goes and the error is left to the caller (the CLI prints it once); the final state stays", async () => {
  const { presenter, last, output } = await start();
  presenter.update({ type: "waiting" });
  await until(() => /Waiting/.test(last()), "waiting");
  presenter.update({
    type: "failed",
    error: new Error("Access was denied in the browser; run again and allow access.\nstack noise"),
  });
  presenter.update({ type: "waiting" });
  await until(() => last().trim() === "", "the live part cleared");
  assert.doesNotMatch(output(), /Access was denied|stack noise/, "not shown here: the thrown error says it");
  await presenter.close?.();
  assert.equal(last().trim(), "", "a failed state stays final: no spinner came back");
});

test("paste: the code is shown as typed (single-use, bound to this sign-in's PKCE verifier), Enter hands it over", async () => {
  const { presenter, ink, last, output } = await start();
  presenter.update({ type: "url", url: LONG_URL, mode: "paste", scopes: SCOPES, browserOpened: false });
  presenter.update({ type: "code-needed" });
  const code = presenter.readCode!(new AbortController().signal);
  await until(() => /Code:/.test(last()), "the input");
  assert.match(output(), /Open this link, sign in, and paste the code here \(Ctrl\+C to cancel\):/);
  ink.stdin.write("4/0AbCdEf");
  await until(() => last().includes("Code: 4/0AbCdEf"), "the code as typed");
  assert.equal(last().trim(), "Code: 4/0AbCdEf", "the live part is this one line; the rest was written once above");
  assert.doesNotMatch(output(), /\*\*\*/, "no mask");
  ink.stdin.write(ENTER);
  assert.equal(await code, "4/0AbCdEf");
  await until(() => /Checking the code/.test(last()), "checking");
  await presenter.close?.();
});

test("paste: a code longer than the terminal is wide keeps the space after the label", async () => {
  const { presenter, ink, last } = await start();
  const code = presenter.readCode!(new AbortController().signal);
  await until(() => /Code:/.test(last()), "the input");
  const long = `4/0A${"x".repeat(196)}`;
  ink.stdin.write(long);
  await until(() => last().includes("x".repeat(50)), "the long code");
  assert.match(last(), /Code: 4\/0Ax/, `a space between the label and the code:\n${last()}`);
  assert.doesNotMatch(last(), /Code:4/);
  ink.stdin.write(ENTER);
  assert.equal(await code, long);
  await presenter.close?.();
});

test("paste: the text and its Enter in one chunk (a paste with its line end, a fast terminal) hand it over", async () => {
  const { presenter, ink, last } = await start();
  presenter.update({ type: "url", url: LONG_URL, mode: "loopback", scopes: SCOPES, browserOpened: false });
  presenter.update({ type: "waiting", paste: true });
  const address = presenter.readCode!(new AbortController().signal);
  await until(() => /Address:/.test(last()), "the address input");
  ink.stdin.write(`http://localhost:1/?state=s&code=4/0Ab${ENTER}`);
  assert.equal(await address, "http://localhost:1/?state=s&code=4/0Ab");
  await presenter.close?.();
});

test("paste: an empty Enter does not submit", async () => {
  const { presenter, ink, last } = await start();
  const code = presenter.readCode!(new AbortController().signal);
  await until(() => /Code:/.test(last()), "the input");
  await type(ink, ENTER);
  await type(ink, "  ");
  await type(ink, ENTER);
  await type(ink, "xyz");
  await until(() => last().includes("xyz"), "typed after the blank Enter");
  await type(ink, ENTER);
  assert.equal(await code, "xyz", "the blank entries were not submitted; the code is trimmed");
  await presenter.close?.();
});

test("Ctrl+C while waiting aborts the flow with CredCancelledError and says so", async () => {
  const { presenter, ink, abort, last } = await start();
  presenter.update({
    type: "url",
    url: "http://127.0.0.1:9/auth",
    mode: "loopback",
    scopes: SCOPES,
    browserOpened: false,
  });
  presenter.update({ type: "waiting" });
  await until(() => /Waiting/.test(last()), "waiting");
  ink.stdin.write(CTRL_C);
  await until(() => abort.signal.aborted, "the abort");
  assert.ok(abort.signal.reason instanceof CredCancelledError);
  assert.match(
    abort.signal.reason.message,
    /^The sign-in was cancelled\. Nothing was saved\.$/,
    "what the CLI prints, once",
  );
  await until(() => last().trim() === "", "the spinner is gone");
  assert.doesNotMatch(last(), /cancelled/, "the face does not print it too");
  presenter.update({ type: "failed", error: new Error("other") });
  await presenter.close?.();
  assert.doesNotMatch(last(), /other|Waiting/);
});

test("Ctrl+C at the code prompt rejects readCode with CredCancelledError", async () => {
  const { presenter, ink, abort, last } = await start();
  presenter.update({ type: "code-needed" });
  const code = presenter.readCode!(new AbortController().signal);
  await until(() => /Code:/.test(last()), "the input");
  ink.stdin.write("abc");
  ink.stdin.write(CTRL_C);
  await assert.rejects(code, CredCancelledError);
  assert.ok(abort.signal.aborted);
  await assert.rejects(presenter.readCode!(new AbortController().signal), CredCancelledError);
  await presenter.close?.();
});

test("the flow's signal stops a pending readCode", async () => {
  const { presenter } = await start();
  const controller = new AbortController();
  const code = presenter.readCode!(controller.signal);
  controller.abort();
  await assert.rejects(code, CredCancelledError);
  await presenter.close?.();
});

test("close() unmounts and rejects a pending readCode; a second close is harmless", async () => {
  const { presenter, abort } = await start();
  const rejected = assert.rejects(presenter.readCode!(new AbortController().signal), CredCancelledError);
  await presenter.close?.();
  await rejected;
  await presenter.close?.();
  assert.equal(abort.signal.aborted, false, "closing is not cancelling");
});

test("NO_COLOR: no colour or style sequence in any frame; the cursor is not drawn in inverse", async () => {
  let instance: ReturnType<typeof render> | undefined;
  const presenter = await createTerminalPresenter({
    color: false,
    notes: ["loopback sign-in: a note from the plan"],
    mount: (element) => (instance = render(element)),
  });
  const ink = instance!;
  presenter.update({ type: "url", url: LONG_URL, mode: "loopback", scopes: SCOPES, browserOpened: false });
  presenter.update({ type: "waiting", paste: true });
  const code = presenter.readCode!(new AbortController().signal).catch((error: Error) => error);
  await until(() => /Address:/.test(ink.lastFrame() ?? ""), "the address input");
  ink.stdin.write("http://localhost:1/?state=s&code=c");
  await until(() => (ink.lastFrame() ?? "").includes("code=c"), "the address as typed");
  presenter.update({ type: "signed-in", account: "ann@example.com" });
  await until(() => /Signed in/.test(ink.lastFrame() ?? ""), "signed in");
  const everything = ink.frames.join("\n");
  assert.match(everything, /cred-auth: loopback sign-in: a note from the plan/, "the plan's notes come first");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: counting escape sequences is the point
  assert.equal(everything.match(/\u001b\[[0-9;]*m/g)?.length ?? 0, 0, "no SGR sequence at all");
  await presenter.close?.();
  assert.ok((await code) instanceof CredCancelledError, "Enter was never pressed: closing ends the read");
});
