// Deny on another machine, its address pasted at the ink face's Address prompt in a real terminal
// (tmux): the sign-in ends there, once, in the one wording of a denial; no spinner or prompt is
// left waiting (issue 48: it said "choose Allow" while the prompt asked again).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { approveSignIn } from "cred-auth/emulator";
import { hasTmux, tmuxLogins } from "../support/tmux.ts";

const skip = hasTmux || process.env.CI ? false : "tmux is not installed";
if (skip) console.warn(`\n!!! SKIPPING the paste-back Deny test: ${skip}. It runs under CI. !!!\n`);

const { tmux, startLogin, until, urlOn } = tmuxLogins("deny", skip);

test("Deny, the address pasted at the Address prompt: exit 1, said once as a denial, no prompt left", {
  skip,
}, async () => {
  const login = startLogin({ SSH_CONNECTION: "10.0.0.1 50000 10.0.0.2 22", CRED_AUTH_EMULATOR_CODE_PAGE: "off" });
  const url = await until(() => urlOn(login.screen()), "the URL", login.screen);
  await until(() => (/Address:/.test(login.screen()) ? true : undefined), "the address input", login.screen);
  const denied = (await approveSignIn(url, { decision: "deny", followRedirect: false })).url;
  assert.match(denied, /error=access_denied/);
  tmux("send-keys", "-t", login.name, "-l", denied);
  tmux("send-keys", "-t", login.name, "Enter");
  assert.equal(await until(() => login.exitCode(), "the command to end", login.screen), 1, login.screen());
  const screen = login.screen();
  assert.equal(screen.match(/^.*denied.*$/gm)?.length, 1, `said once:\n${screen}`);
  assert.match(
    screen,
    /^cred-auth: The sign-in was denied in the browser \(access_denied\): sign in again and choose Allow\. \(ERR_ACCESS_DENIED\)$/m,
  );
  assert.doesNotMatch(screen, /Address:|Waiting…|Not accepted|Still waiting/, "nothing is left asking");
  assert.equal(existsSync(login.destination), false, "nothing written");
});
