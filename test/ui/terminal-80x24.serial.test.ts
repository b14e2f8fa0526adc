// The terminal face's waiting screen at 80x24 in a real terminal (tmux), on a remote machine (an
// SSH session): with the emulator's default client (the copy-paste flow) and with a Desktop client
// (the address pasted back, the tallest screen) it holds at most 60 words (issue 48), the title,
// what it asks, the link and the one action, and one line of diagnostics (the emulator). All of it
// fits, so its first line is the screen's first line and nothing scrolled off; lines break at spaces,
// never mid-word; the URL is whole; how to cancel and what to copy are on screen, after a refusal
// too. Why the flow was chosen is a CRED_AUTH_DEBUG line, not on the screen.
import assert from "node:assert/strict";
import { test } from "node:test";
import { hasTmux, type Login, tmuxLogins } from "../support/tmux.ts";
import { wordsOf } from "../support/words.ts";

const skip = hasTmux || process.env.CI ? false : "tmux is not installed";
if (skip) console.warn(`\n!!! SKIPPING the 80x24 terminal test: ${skip}. It runs under CI. !!!\n`);

const { tmux, startLogin, until, urlOn } = tmuxLogins("small", skip);

/** A remote machine (an SSH session) whose emulator serves a Desktop client: the address is pasted back. */
const SSH_DESKTOP = { SSH_CONNECTION: "10.0.0.1 50000 10.0.0.2 22", CRED_AUTH_EMULATOR_CODE_PAGE: "off" };

/** The screen's lines, as shown or with the lines the terminal wrapped joined; the spinner's frame left out. */
const lines = (login: Login, ...join: string[]): string[] =>
  tmux("capture-pane", "-p", ...join, "-t", login.name)
    .trimEnd()
    .split("\n")
    .map((line) => line.replace(/^[\u2800-\u28ff] /, "").trimEnd()); // -J keeps trailing spaces
/** How many lines scrolled off the top of the screen into the pane's history. */
const scrolledOff = (login: Login): number =>
  Number(tmux("display-message", "-p", "-t", login.name, "#{history_size}"));

/** The whole text is on the screen: nothing above it scrolled off, no line cut by the terminal but the URL's. */
function assertFits(login: Login, url: string, input = "Address:"): void {
  const screen = lines(login);
  assert.equal(scrolledOff(login), 0, `nothing scrolled off:\n${login.history()}`);
  assert.match(
    screen.find((line) => line !== "") ?? "", // under the line the command was started from
    /^cred-auth: CRED_AUTH_EMULATOR_HOST: using the local emulator/,
    "the first line, whole",
  );
  // A line the terminal cut at the edge is joined again by capture-pane -J: outside the URL there is none.
  const joined = lines(login, "-J");
  const cut = joined.filter((line) => !screen.includes(line) && line.trim() !== url);
  assert.deepEqual(cut, [], `lines cut mid-word by the terminal:\n${screen.join("\n")}`);
  const words = screen.join(" ");
  assert.doesNotMatch(words, /looks remote/, "why the flow was chosen is no line of the screen");
  assert.match(words, /Open this link/);
  assert.match(words, /\(Ctrl\+C to cancel\)/, "how to cancel");
  assert.ok(words.includes(input), input);
}

/** The words on the screen (lines joined: the URL is one word). */
const wordsOn = (login: Login): string[] => wordsOf(lines(login, "-J").join("\n"));

test("80x24, remote over SSH: the whole waiting screen fits, first line first, broken at spaces, the URL whole", {
  skip,
}, async () => {
  const login = startLogin(SSH_DESKTOP, { columns: 80, rows: 24 });
  const url = await until(() => urlOn(login.screen()), "the URL, whole on its own line", login.screen);
  await until(() => (/Address:/.test(login.screen()) ? true : undefined), "the address input", login.screen);
  assertFits(login, url);
  const words = wordsOn(login);
  console.log(`the paste-back waiting screen: ${words.length} words`);
  assert.ok(words.length <= 60, `at most 60 words, not ${words.length}:\n${login.screen()}`);
  assert.match(lines(login).join(" "), /from another machine, paste the address it ends on:/);
  tmux("send-keys", "-t", login.name, "-l", "http://localhost:1/?state=not-this-sign-in&code=4/0AWrong");
  tmux("send-keys", "-t", login.name, "Enter");
  await until(() => (/Not accepted/.test(login.screen()) ? true : undefined), "the refusal", login.screen);
  const refusal = lines(login).join(" ").replace(/\s+/g, " "); // ink breaks the line itself
  assert.match(refusal, /Not accepted: .* Still waiting: paste again\./, "the sign-in goes on");
  assertFits(login, url);
  tmux("send-keys", "-t", login.name, "C-c");
  assert.equal(await until(() => login.exitCode(), "the command to end", login.screen), 130, login.screen());
});

test("80x24, remote over SSH, the default client: the copy-paste screen fits in at most 60 words and says how to cancel", {
  skip,
}, async () => {
  const login = startLogin({ SSH_CONNECTION: SSH_DESKTOP.SSH_CONNECTION }, { columns: 80, rows: 24 });
  const url = await until(() => urlOn(login.screen()), "the URL, whole on its own line", login.screen);
  await until(() => (/Code:/.test(login.screen()) ? true : undefined), "the code input", login.screen);
  assertFits(login, url, "Code:");
  const words = wordsOn(login);
  console.log(`the copy-paste waiting screen: ${words.length} words`);
  assert.ok(words.length <= 60, `at most 60 words, not ${words.length}:\n${login.screen()}`);
  const diagnostics = lines(login).filter((line) => line.startsWith("cred-auth:"));
  assert.equal(diagnostics.length, 1, "one line of diagnostics: the emulator's");
  tmux("send-keys", "-t", login.name, "C-c");
  assert.equal(await until(() => login.exitCode(), "the command to end", login.screen), 130, login.screen());
});
