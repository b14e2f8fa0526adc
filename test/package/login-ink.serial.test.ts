// The command line's screen comes with the package (issue 46): in a project that installed only the
// tarball and google-auth-library (no ink, no React in its node_modules), `npx cred-auth login` in a
// real terminal (tmux) draws ink's face (the spinner beside the link, the code box) and completes a
// sign-in against the emulator. Serial: a real terminal.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { approveSignIn } from "cred-auth/emulator";
import { hasTmux, tmuxLogins } from "../support/tmux.ts";
import { CONSUMER_PATH, type Consumer, installedWithGoogleAuthLibraryAlone } from "./consumer.ts";

const skip = hasTmux || process.env.CI ? false : "tmux is not installed";
if (skip) console.warn(`\n!!! SKIPPING the installed login's terminal tests: ${skip}. They run under CI. !!!\n`);

let consumer: Consumer;
before(async () => {
  if (!skip) consumer = await installedWithGoogleAuthLibraryAlone();
});

const { tmux, startLogin, until, urlOn } = tmuxLogins("installed", skip, () => ({
  cwd: consumer.dir,
  command: ["npx", "--no-install", "cred-auth"],
}));

/** A spinner frame before the waiting words: ink's face, not the plain one ("Waiting for the sign-in to complete"). */
const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Waiting… \(Ctrl\+C to cancel\)/;

test("the installed project holds the package, google-auth-library and theirs: no ink, no React", { skip }, () => {
  const modules = join(consumer.dir, "node_modules");
  for (const name of ["cred-auth", "google-auth-library"]) assert.ok(existsSync(join(modules, name)), name);
  for (const name of ["ink", "react", "ink-text-input", "conf", "open"])
    assert.ok(!existsSync(join(modules, name)), `${name} was installed`);
});

test("npx cred-auth login (loopback): ink's spinner beside the link on its own line, then signed in", {
  skip,
}, async () => {
  const login = startLogin({ PATH: CONSUMER_PATH, CRED_AUTH_REMOTE: "0" });
  const url = await until(() => urlOn(login.screen()), "the URL on its own line", login.screen);
  await until(() => (SPINNER.test(login.screen()) ? true : undefined), "ink's spinner", login.screen);
  const page = await approveSignIn(url, { account: "carol@example.com" });
  assert.equal(page.status, 200);
  assert.equal(await until(() => login.exitCode(), "the command to end", login.screen), 0, login.screen());
  assert.match(login.screen(), /✔ Signed in/);
  assert.equal(JSON.parse(readFileSync(login.destination, "utf8")).type, "authorized_user");
});

test("npx cred-auth login (copy-paste): ink's code box shows the code as typed, then signed in", { skip }, async () => {
  const login = startLogin({ PATH: CONSUMER_PATH, CRED_AUTH_REMOTE: "1" });
  const url = await until(() => urlOn(login.screen()), "the URL on its own line", login.screen);
  await until(() => (/Code:/.test(login.screen()) ? true : undefined), "the code box", login.screen);
  const page = await approveSignIn(url, { account: "bob@example.com" });
  assert.ok(page.code, "the code page shows the code");
  tmux("send-keys", "-t", login.name, "-l", page.code);
  await until(
    () => (login.screen().includes(`Code: ${page.code}`) ? true : undefined),
    "the code as typed",
    login.screen,
  );
  tmux("send-keys", "-t", login.name, "Enter");
  assert.equal(await until(() => login.exitCode(), "the command to end", login.screen), 0, login.screen());
  assert.match(login.screen(), /✔ Signed in/);
  assert.equal(JSON.parse(readFileSync(login.destination, "utf8")).type, "authorized_user");
});
