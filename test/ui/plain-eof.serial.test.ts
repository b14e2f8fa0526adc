// Ctrl+D at the plain face's prompt in a real terminal (tmux): on the terminal (TERM=dumb) and on the
// controlling terminal while stderr goes to a log, it says the input ended and nothing was saved,
// not "run again where you can paste the code" (which a closed pipe says: test/cli/eof.test.ts).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { hasTmux, tmuxLogins } from "../support/tmux.ts";

const skip = hasTmux || process.env.CI ? false : "tmux is not installed";
if (skip) console.warn(`\n!!! SKIPPING the plain face's Ctrl+D test: ${skip}. It runs under CI. !!!\n`);

const { tmux, startLogin, until } = tmuxLogins("plain-eof", skip);

const ENDED =
  /^cred-auth: The input ended \(Ctrl\+D\) before a code was pasted, so the sign-in stopped and nothing was saved; sign in again\. \(ERR_INVALID_CODE\)$/m;

for (const [where, env, terminal] of [
  ["TERM=dumb", { CRED_AUTH_REMOTE: "1", TERM: "dumb" }, {}],
  ["stderr to a log", { CRED_AUTH_REMOTE: "1" }, { stderrToFile: true }],
] as const) {
  test(`Ctrl+D at the plain face's code prompt (${where}): exit 1, the input ended, nothing written`, {
    skip,
  }, async () => {
    const login = startLogin(env, terminal);
    await until(() => (/Enter the authorization code:/.test(login.screen()) ? true : undefined), "the prompt");
    tmux("send-keys", "-t", login.name, "C-d");
    assert.equal(await until(() => login.exitCode(), "the command to end", login.screen), 1, login.screen());
    assert.match(login.screen(), ENDED);
    assert.doesNotMatch(login.screen() + login.log(), /where you can paste/);
    assert.equal(existsSync(login.destination), false, "nothing written");
  });
}
