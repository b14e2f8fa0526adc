// Terminal conventions (issue 26), in a real terminal (tmux), counting what reaches the screen and
// the log byte by byte: stderr redirected to a file (the prompt and what is typed stay on the
// terminal; no escape sequence, no address, no code in the log), NO_COLOR (no colour sequence),
// TERM=dumb (plain lines: no cursor movement or erase at all), 40 columns (the URL whole and on
// screen while waiting, no frame left in the scrollback), Ctrl+C (exit 130 and "cancelled").
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { approveSignIn } from "cred-auth/emulator";
import { hasTmux, type Login, tmuxLogins } from "../support/tmux.ts";

const skip = hasTmux || process.env.CI ? false : "tmux is not installed";
if (skip) console.warn(`\n!!! SKIPPING the terminal convention tests: ${skip}. They run under CI. !!!\n`);

const { tmux, startLogin, until } = tmuxLogins("conventions", skip);

/** A remote machine whose emulator serves as Google serves a Desktop client: the address is pasted back. */
const REMOTE_DESKTOP = { CRED_AUTH_REMOTE: "1", CRED_AUTH_EMULATOR_CODE_PAGE: "off" };

// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is counted
const ESCAPE = /\u001b/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the colour and style sequences (SGR)
const SGR = /\u001b\[[0-9;]*m/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: cursor movement and erase sequences
const CURSOR = /\u001b\[[0-9;?]*[ABCDEFGHJKSTfsu]/g;
const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0;

/** The sign-in URL wherever it is on the screen (plain lines put it after words). */
function urlIn(screen: string): string | undefined {
  return /http:\/\/127\.0\.0\.1:\d+\/o\/oauth2\/v2\/auth\?\S+/.exec(screen)?.[0];
}

/** Signs in on the consent page "from another machine": the final address, which the browser could not load. */
async function finalAddress(url: string, account = "bob@example.com"): Promise<string> {
  return (await approveSignIn(url, { account, followRedirect: false })).url;
}

/** Types `text`, then Enter. */
function type(login: Login, text: string): void {
  tmux("send-keys", "-t", login.name, "-l", text);
  tmux("send-keys", "-t", login.name, "Enter");
}

const ended = (login: Login) => until(() => login.exitCode(), "the command to end", login.screen);

test("stderr to a log: the conversation on the terminal, what is typed shown there; the log holds no escape, no address, no code", {
  skip,
}, async () => {
  const login = startLogin(REMOTE_DESKTOP, { stderrToFile: true });
  const url = await until(() => urlIn(login.screen()), "the URL on the terminal", login.screen);
  await until(() => (/Or paste the address here:/.test(login.screen()) ? true : undefined), "the prompt", login.screen);
  const wrong = "http://localhost:1/?state=not-this-sign-in&code=4/0AWrongWrongWrong";
  type(login, wrong);
  await until(() => (/Not accepted: .*\(ERR_STATE_MISMATCH\)/.test(login.screen()) ? true : undefined), "refused");
  const address = await finalAddress(url);
  type(login, address);
  assert.equal(await ended(login), 0, login.screen());
  const screen = login.screen();
  assert.ok(screen.includes(wrong) && screen.includes(address), "what was typed is shown, not masked");
  assert.match(screen, /Signed in as bob@example\.com\./);
  const log = login.log();
  assert.equal(count(log, ESCAPE), 0, `no escape sequence in the log:\n${JSON.stringify(log)}`);
  const code = new URL(address).searchParams.get("code")!;
  for (const secret of [address, code, encodeURIComponent(code), "state=", "Or paste the address here"])
    assert.ok(!log.includes(secret), `the log holds no ${secret.slice(0, 30)}`);
  assert.match(log, /To use the credentials saved to/, "the log gets the command's own result");
  assert.equal(count(login.raw(), SGR), 0, "plain lines: no colour on the terminal either");
});

test("Ctrl+C at the prompt with stderr to a log: exit 130, 'cancelled' on the terminal and as the log's last line", {
  skip,
}, async () => {
  const login = startLogin(REMOTE_DESKTOP, { stderrToFile: true });
  await until(() => (/Or paste the address here:/.test(login.screen()) ? true : undefined), "the prompt", login.screen);
  tmux("send-keys", "-t", login.name, "-l", "half-typed");
  tmux("send-keys", "-t", login.name, "C-c");
  assert.equal(await ended(login), 130, login.screen());
  assert.match(login.screen(), /^cred-auth: The sign-in was cancelled\. Nothing was saved\. \(ERR_CANCELLED\)$/m);
  assert.match(
    login.log().trim().split("\n").at(-1) ?? "",
    /^cred-auth: The sign-in was cancelled\. .*\(ERR_CANCELLED\)$/,
  );
  assert.equal(existsSync(login.destination), false);
});

test("TERM=dumb: plain lines, not one cursor movement or erase; Ctrl+C is exit 130 and 'cancelled'", {
  skip,
}, async () => {
  const login = startLogin({ ...REMOTE_DESKTOP, TERM: "dumb" });
  await until(() => (/Or paste the address here:/.test(login.screen()) ? true : undefined), "the prompt", login.screen);
  await new Promise((resolve) => setTimeout(resolve, 1000)); // a live face would have redrawn ~12 times by now
  tmux("send-keys", "-t", login.name, "C-c");
  assert.equal(await ended(login), 130, login.screen());
  const raw = login.raw();
  assert.equal(count(raw, CURSOR), 0, `no cursor movement or erase:\n${JSON.stringify(raw.slice(0, 400))}`);
  assert.equal(count(raw, SGR), 0, "no colour on a dumb terminal");
  assert.match(login.screen(), /cancelled.*\(ERR_CANCELLED\)$/m);
});

test("NO_COLOR: the live face draws without one colour or style sequence (it does with colour)", { skip }, async () => {
  const coloured = startLogin({ CRED_AUTH_REMOTE: "0" });
  const plainColours = startLogin({ CRED_AUTH_REMOTE: "0", NO_COLOR: "1" });
  for (const login of [coloured, plainColours])
    await until(
      () => (/Waiting… \(Ctrl\+C to cancel\)/.test(login.screen()) ? true : undefined),
      "the spinner",
      login.screen,
    );
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (const login of [coloured, plainColours]) tmux("send-keys", "-t", login.name, "C-c");
  assert.equal(await ended(plainColours), 130, plainColours.screen());
  assert.equal(await ended(coloured), 130);
  assert.ok(count(coloured.raw(), SGR) > 0, "the control: colour where it is allowed");
  assert.equal(count(plainColours.raw(), SGR), 0, JSON.stringify(plainColours.raw().match(SGR)));
  assert.ok(count(plainColours.raw(), CURSOR) > 0, "still the live face (it redraws), only without colour");
});

test("40 columns: the URL is whole and on screen while waiting; pastes leave no frame in the scrollback", {
  skip,
}, async () => {
  const login = startLogin(REMOTE_DESKTOP, { columns: 40, rows: 30 });
  const url = await until(() => urlIn(login.screen()), "the URL, whole", login.screen);
  await until(() => (/Address:/.test(login.screen()) ? true : undefined), "the address input", login.screen);
  const visible = tmux("capture-pane", "-p", "-t", login.name); // the screen only, lines as shown
  assert.ok(visible.includes(url.slice(0, 40)), `the URL's start is on screen while waiting:\n${visible}`);
  type(login, "http://localhost:1/?state=not-this-sign-in&code=4/0AWrongWrongWrongWrongWrongWrongWrong");
  await until(() => (/Not accepted/.test(login.screen()) ? true : undefined), "refused", login.screen);
  const address = await finalAddress(url);
  tmux("send-keys", "-t", login.name, "-l", address);
  await until(() => (login.screen().includes("code=") ? true : undefined), "the address shown as typed", login.screen);
  tmux("send-keys", "-t", login.name, "Enter");
  assert.equal(await ended(login), 0, login.screen());
  const history = login.history();
  assert.equal(count(history, /Waiting…/g), 0, `no spinner frame left behind:\n${history}`);
  assert.equal(count(history, /Address:/g), 0, "no input frame left behind");
  assert.equal(count(history, /Not accepted/g), 0, "the refusal was live too, and went");
  assert.equal(count(login.screen(), new RegExp(url.replace(/[.?+*()[\]\\^$|{}]/g, "\\$&"), "g")), 1, "the URL once");
  assert.match(login.screen(), /✔ Signed in as bob@example\.com/);
});
