// `cred-auth login` in a real terminal (tmux): the ink face, the URL read off the screen,
// the consent page driven like a browser, a pasted code typed with send-keys, and Ctrl+C.
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { connect } from "node:net";
import { test } from "node:test";
import { approveSignIn } from "cred-auth/emulator";
import { hasTmux, tmuxLogins } from "../support/tmux.ts";

const skip = hasTmux || process.env.CI ? false : "tmux is not installed";
if (skip) console.warn(`\n!!! SKIPPING the terminal tests: ${skip}. They run under CI. !!!\n`);

const { tmux, startLogin, until, urlOn } = tmuxLogins("tmux", skip);

function portIsClosed(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

test("loopback: the URL is read off the screen whole, the browser comes back, the file is saved", {
  skip,
}, async () => {
  const login = startLogin({ CRED_AUTH_REMOTE: "0" });
  const url = await until(() => urlOn(login.screen()), "the URL on its own line", login.screen);
  assert.ok(url.length > 200, "the URL is wider than the terminal, yet one unbroken string");
  const redirect = new URL(new URL(url).searchParams.get("redirect_uri") ?? "");
  assert.equal(redirect.hostname, "localhost");
  assert.ok(
    Number(redirect.port) >= login.ports.first && Number(redirect.port) <= login.ports.last,
    "a port of the configured range",
  );
  assert.match(login.screen(), /cred-auth · Sign in to Google Cloud/);
  assert.match(login.screen(), /See, edit, configure and delete your Google Cloud data/);
  await until(
    () => (/Waiting… \(Ctrl\+C to cancel\)/.test(login.screen()) ? true : undefined),
    "the spinner",
    login.screen,
  );

  const page = await approveSignIn(url, { account: "carol@example.com" });
  assert.equal(page.status, 200);
  assert.equal(await until(() => login.exitCode(), "the command to end", login.screen), 0, login.screen());
  const screen = login.screen();
  assert.match(screen, /✔ Signed in/);
  assert.ok(screen.split("\n").includes(`Saved to ${login.destination}`), "the face says where the credentials went");
  const saved = JSON.parse(readFileSync(login.destination, "utf8"));
  assert.equal(saved.type, "authorized_user");
  assert.equal(statSync(login.destination).mode & 0o777, 0o600);
  assert.ok(!screen.includes(saved.refresh_token), "no token on screen");
});

test("copy-paste: the code is shown as typed (single-use, bound to this sign-in), the file is saved", {
  skip,
}, async () => {
  const login = startLogin({ CRED_AUTH_REMOTE: "1" });
  const url = await until(() => urlOn(login.screen()), "the URL on its own line", login.screen);
  assert.match(new URL(url).searchParams.get("redirect_uri") ?? "", /\/oauth\/code$/);
  await until(() => (/Code:/.test(login.screen()) ? true : undefined), "the code prompt", login.screen);
  assert.match(login.screen(), /Open this link, sign in, and paste the code here/);

  const page = await approveSignIn(url, { account: "bob@example.com" });
  assert.ok(page.code, "the code page shows the code");
  tmux("send-keys", "-t", login.name, "-l", page.code);
  await until(
    () => (login.screen().includes(`Code: ${page.code}`) ? true : undefined),
    "the code as typed",
    login.screen,
  );
  assert.ok(!login.screen().includes("*****"), "not masked");
  tmux("send-keys", "-t", login.name, "Enter");

  assert.equal(await until(() => login.exitCode(), "the command to end", login.screen), 0, login.screen());
  assert.match(login.screen(), /✔ Signed in/);
  assert.equal(JSON.parse(readFileSync(login.destination, "utf8")).type, "authorized_user");
});

test("Ctrl+C while waiting: exit code 130, the receiver is closed, nothing is written", { skip }, async () => {
  const login = startLogin({ CRED_AUTH_REMOTE: "0" });
  const url = await until(() => urlOn(login.screen()), "the URL", login.screen);
  await until(
    () => (/Waiting… \(Ctrl\+C to cancel\)/.test(login.screen()) ? true : undefined),
    "the spinner",
    login.screen,
  );
  tmux("send-keys", "-t", login.name, "C-c");
  assert.equal(await until(() => login.exitCode(), "the command to end", login.screen), 130, login.screen());
  assert.equal(login.screen().match(/^.*cancelled.*$/gim)?.length, 1, `said once, with its code: ${login.screen()}`);
  assert.match(login.screen(), /^cred-auth: The sign-in was cancelled\. Nothing was saved\. \(ERR_CANCELLED\)$/m);
  assert.equal(existsSync(login.destination), false, "nothing written");
  const port = Number(new URL(new URL(url).searchParams.get("redirect_uri")!).port);
  assert.equal(await portIsClosed(port), true, "the loopback receiver is closed");
});

test("Ctrl+C at the code prompt: exit code 130, nothing written", { skip }, async () => {
  const login = startLogin({ CRED_AUTH_REMOTE: "1" });
  await until(() => (/Code:/.test(login.screen()) ? true : undefined), "the code prompt", login.screen);
  tmux("send-keys", "-t", login.name, "-l", "half-typed");
  tmux("send-keys", "-t", login.name, "C-c");
  assert.equal(await until(() => login.exitCode(), "the command to end", login.screen), 130, login.screen());
  assert.equal(existsSync(login.destination), false);
});

test("Ctrl+D at the Address prompt (the ink face) ends the sign-in as the end of input ends the plain face's: exit 1, one line, nothing written", {
  skip,
}, async () => {
  const login = startLogin({ CRED_AUTH_REMOTE: "1", CRED_AUTH_EMULATOR_CODE_PAGE: "off" });
  await until(() => (/Address:/.test(login.screen()) ? true : undefined), "the address prompt", login.screen);
  const started = Date.now();
  tmux("send-keys", "-t", login.name, "C-d");
  assert.equal(await until(() => login.exitCode(), "the command to end", login.screen), 1, login.screen());
  assert.ok(Date.now() - started < 5000, "at once, not after the sign-in's timeout");
  assert.match(
    login.screen(),
    /^cred-auth: The input ended \(Ctrl\+D\) before a code was pasted, so the sign-in stopped and nothing was saved; sign in again\. \(ERR_INVALID_CODE\)$/m,
  );
  assert.doesNotMatch(login.screen(), /Address: d/, "Ctrl+D is not typed as a d");
  assert.equal(existsSync(login.destination), false);
});
