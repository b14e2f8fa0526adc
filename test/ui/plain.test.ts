import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { CredCancelledError, CredCredentialsError } from "cred-auth";
import { createPlainPresenter, linesFor } from "../../dist/ui/plain.js";
import { selectPresenter } from "../../dist/ui/select.js";
import { openBrowser } from "../../dist/os/browser.js";
import { planSignIn } from "../../dist/credentials/sign-in/plan.js";

function streams() {
  const output = new PassThrough();
  const input = new PassThrough();
  let written = "";
  output.on("data", (chunk: Buffer) => (written += chunk.toString("utf8")));
  return { output, input, written: () => written };
}

test("the plain presenter prints the original's URL line, waiting, and who signed in", () => {
  const s = streams();
  const presenter = createPlainPresenter({ output: s.output, input: s.input });
  presenter.update({
    type: "url",
    url: "https://idp.example/auth?x=1",
    mode: "loopback",
    scopes: ["a"],
    browserOpened: false,
  });
  presenter.update({ type: "waiting" });
  presenter.update({ type: "signed-in", account: "u@example.org", savedTo: "/tmp/x.json" });
  const lines = s.written().trim().split("\n");
  assert.deepEqual(lines, [
    "Please visit this URL to authorize this application: https://idp.example/auth?x=1",
    "Waiting for the sign-in to complete in the browser...",
    "Signed in as u@example.org.",
    "Credentials saved to /tmp/x.json.",
  ]);
  assert.deepEqual(linesFor({ type: "signed-in" }), ["Signed in."]);
  assert.match(linesFor({ type: "code-needed" })[0]!, /works only for this sign-in/);
});

test("a refused paste says why, with its code, and that the sign-in goes on (the prompt asks again)", () => {
  const rejected = new CredCredentialsError("This address is from an older sign-in.");
  const refused = "Not accepted: This address is from an older sign-in. (ERR_CREDENTIALS) Still waiting: paste again.";
  assert.deepEqual(linesFor({ type: "waiting", paste: true, rejected }), [refused]);
  assert.deepEqual(linesFor({ type: "code-needed", rejected }), [refused]);
  const unreachable = linesFor({ type: "code-needed", rejected: new Error("The network is down.") });
  assert.deepEqual(unreachable, ["Not completed: The network is down. Still waiting: paste again."]);
});

test("readCode from a pipe: one line, the prompt as a line of its own, nothing echoed", async () => {
  const s = streams();
  const presenter = createPlainPresenter({ output: s.output, input: s.input });
  const code = presenter.readCode!(new AbortController().signal);
  s.input.write("4/0pasted-code\n");
  assert.equal(await code, "4/0pasted-code");
  assert.equal(s.written(), "Enter the authorization code:\n");
});

test("readCode after the input ended: at once, a second time too (no wait for an end that came already)", async () => {
  const s = streams();
  s.input.end();
  const presenter = createPlainPresenter({ output: s.output, input: s.input });
  await assert.rejects(presenter.readCode!(new AbortController().signal), { code: "ERR_INVALID_CODE" });
  assert.equal(s.input.readableEnded, true, "the first read reached the end");
  const started = Date.now();
  await assert.rejects(presenter.readCode!(new AbortController().signal), /input is closed \(end of file\)/);
  assert.ok(Date.now() - started < 1000);
});

test("the prompt on the controlling terminal: lines, prompt and echo go there, nothing to the redirected stderr", async () => {
  const log = streams();
  const tty = streams();
  let closed = false;
  const presenter = createPlainPresenter({
    output: log.output,
    input: log.input,
    prompt: "tty",
    notes: ["a note"],
    openTerminal: () => ({ input: tty.input, output: tty.output, close: () => (closed = true) }),
  });
  presenter.update({ type: "url", url: "https://idp.example/a", mode: "paste", scopes: [], browserOpened: false });
  presenter.update({ type: "code-needed" });
  const code = presenter.readCode!(new AbortController().signal);
  tty.input.write("4/0Secret-Code\n");
  assert.equal(await code, "4/0Secret-Code");
  presenter.update({ type: "failed", error: new CredCredentialsError("refused words", { code: "ERR_INVALID_GRANT" }) });
  await presenter.close?.();
  assert.equal(log.written(), "", "the log gets nothing from the face");
  assert.match(tty.written(), /^cred-auth: a note\nPlease visit this URL/);
  assert.match(tty.written(), /Enter the authorization code: /);
  assert.match(tty.written(), /cred-auth: refused words \(ERR_INVALID_GRANT\)/, "the end is said where the person is");
  assert.ok(closed, "the terminal is released");
});

test("readCode: closed input is a CredCredentialsError, abort a CredCancelledError", async () => {
  const closed = streams();
  const reading = createPlainPresenter({ output: closed.output, input: closed.input }).readCode!(
    new AbortController().signal,
  );
  closed.input.end();
  await assert.rejects(reading, CredCredentialsError);

  const s = streams();
  const controller = new AbortController();
  const aborted = createPlainPresenter({ output: s.output, input: s.input }).readCode!(controller.signal);
  controller.abort();
  await assert.rejects(aborted, CredCancelledError);
});

test("selectPresenter returns a given presenter as is, else one that reads codes", async () => {
  const mine = { update() {} };
  const plan = {
    fallback: false,
    color: true,
    prompt: "stdin",
    codeEntry: "second-cell",
    notes: [],
    details: [],
  } as const;
  assert.equal(await selectPresenter({ ...plan, face: mine }), mine);
  const plain = await selectPresenter({ ...plan, face: "plain" });
  assert.equal(typeof plain.update, "function");
  assert.equal(typeof plain.readCode, "function");
});

test("a browser is planned only where one can show: BROWSER, CI, SSH, display; a command that is not there opens none", async () => {
  const browserOf = (env: NodeJS.ProcessEnv) =>
    planSignIn({ scopes: ["openid"], options: { clientId: "i", clientSecret: "s" } }, { env, settings: () => ({}) })
      .flow.browser;
  assert.equal(browserOf({ BROWSER: "none", DISPLAY: ":0" }), "none");
  assert.deepEqual(browserOf({ BROWSER: "/opt/vscode/helper.sh", SSH_CONNECTION: "1 2 3 4" }), {
    command: "/opt/vscode/helper.sh",
  });
  assert.equal(browserOf({ CI: "true", DISPLAY: ":0" }), "none");
  assert.equal(browserOf({ SSH_TTY: "/dev/pts/0", DISPLAY: ":0" }), "none");
  assert.equal(await openBrowser("https://example.org/", "none"), false);
  assert.equal(await openBrowser("https://example.org/", { command: "/nonexistent/browser-command" }), false);
});

test("BROWSER names the command that gets the URL (with %s, or as last argument)", async (t) => {
  const { mkdtempSync, writeFileSync, readFileSync, existsSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const dir = mkdtempSync(join(tmpdir(), "cred-auth-browser-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const script = join(dir, "fake-browser.sh");
  writeFileSync(script, `#!/bin/sh\nprintf '%s|' "$@" > "${dir}/opened.$$"\nmv "${dir}/opened.$$" "${dir}/opened"\n`, {
    mode: 0o755,
  });
  const opened = join(dir, "opened");
  const waitForFile = async () => {
    for (let i = 0; i < 200 && !existsSync(opened); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    const text = readFileSync(opened, "utf8");
    rmSync(opened);
    return text;
  };
  assert.equal(await openBrowser("https://idp.example/a?b=1", { command: script }), true);
  assert.equal(await waitForFile(), "https://idp.example/a?b=1|");
  assert.equal(await openBrowser("https://idp.example/c", { command: `${script} --new-window %s --x` }), true);
  assert.equal(await waitForFile(), "--new-window|https://idp.example/c|--x|");
});

test("a browser is said opened only when its command did not fail at once (xdg-open without a display or with a stale one)", async (t) => {
  const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const dir = mkdtempSync(join(tmpdir(), "cred-auth-browser-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // What xdg-open does with no display, or a DISPLAY whose server is gone: it says so and exits 3.
  const failing = join(dir, "xdg-open");
  writeFileSync(failing, "#!/bin/sh\necho \"xdg-open: no method available for opening '$1'\" >&2\nexit 3\n", {
    mode: 0o755,
  });
  assert.equal(await openBrowser("https://idp.example/a", { command: failing }), false);
  // BROWSER may list several commands (as Python reads it): the next one is tried.
  assert.equal(await openBrowser("https://idp.example/a", { command: `${failing}:/bin/true` }), true);
});

test("after reading a code from a piped stdin that stays open, the process can exit", async () => {
  const { spawn } = await import("node:child_process");
  const script = `const { createPlainPresenter } = require(${JSON.stringify(new URL("../../dist/ui/plain.js", import.meta.url).pathname)});
createPlainPresenter().readCode(new AbortController().signal).then((code) => process.stdout.write("got " + code));`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk));
  child.stdin.write("the-code\n"); // stdin is deliberately left open
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const stuck = new Promise<"stuck">((resolve) => setTimeout(resolve, 20_000, "stuck").unref());
  const outcome = await Promise.race([exited, stuck]);
  if (outcome === "stuck") child.kill();
  assert.equal(outcome, 0, "the child stayed alive because of the open stdin");
  assert.equal(out, "got the-code");
});
