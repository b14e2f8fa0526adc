// `cred-auth login` on a remote machine with a Desktop client (no code page), in a real terminal
// (tmux) with a real Chromium: the consent page redirects to a loopback address the browser
// cannot reach (it is "on another machine"), the test copies the browser's final address and
// pastes it beside the spinner. A pasted address of another sign-in is refused and the sign-in
// stays pending.
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { chromium, type Browser } from "playwright-core";
import { CHROMIUM, chromiumAvailable } from "../support/chromium.ts";
import { closedPort } from "../support/net.ts";
import { hasTmux, type Login, tmuxLogins } from "../support/tmux.ts";

const skip =
  (hasTmux || process.env.CI) && chromiumAvailable("the paste-back terminal test")
    ? false
    : "tmux or Chromium is missing";
if (skip) console.warn(`\n!!! SKIPPING the terminal tests: ${skip}. They run under CI. !!!\n`);

const { tmux, startLogin, until, urlOn } = tmuxLogins("paste", skip);

/**
 * A Chromium "on another machine": every request to localhost goes through a proxy that
 * nobody runs, so the loopback redirect fails as it would there (the emulator, on 127.0.0.1,
 * is reached directly).
 */
async function withRemoteBrowser<T>(run: (browser: Browser) => Promise<T>): Promise<T> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync"],
    proxy: { server: `http://127.0.0.1:${await closedPort()}`, bypass: "<-loopback>,127.0.0.1" },
  });
  try {
    return await run(browser);
  } finally {
    await browser.close();
  }
}

/** Signs in on the consent page; resolves with the loopback address the browser failed to load. */
async function finalAddress(page: Page, url: string, account: string): Promise<string> {
  let address: string | undefined;
  // A failed request, not just a request: the receiver was not reached.
  page.on("requestfailed", (request) => {
    if (/^http:\/\/localhost:\d+\/\?/.test(request.url())) address = request.url();
  });
  await page.goto(url);
  await page.getByRole("radio", { name: new RegExp(account.replace(/\./g, "\\.")) }).check();
  await page
    .getByRole("button", { name: "Allow", exact: true })
    .click()
    .catch(() => {});
  return until(() => address, "the redirect the browser could not follow");
}

/** Types `text` into the pane, then Enter. */
function paste(login: Login, text: string): void {
  tmux("send-keys", "-t", login.name, "-l", text);
  tmux("send-keys", "-t", login.name, "Enter");
}

test("remote, Desktop client: the browser's final address pasted beside the spinner saves the file; another sign-in's is refused", {
  skip,
}, async () => {
  await withRemoteBrowser(async (browser) => {
    // An address from another sign-in (another login that the user abandoned).
    const other = startLogin({ CRED_AUTH_REMOTE: "1", CRED_AUTH_EMULATOR_CODE_PAGE: "off" });
    const otherUrl = await until(() => urlOn(other.screen()), "the other URL", other.screen);
    const otherAddress = await finalAddress(await browser.newPage(), otherUrl, "alice@example.com");
    // The other session ends after the next one starts: killing the last session ends tmux's server.
    const login = startLogin({ CRED_AUTH_REMOTE: "1", CRED_AUTH_EMULATOR_CODE_PAGE: "off" });
    tmux("kill-session", "-t", other.name);
    const url = await until(() => urlOn(login.screen()), "the URL on its own line", login.screen);
    const screen = login.screen();
    assert.doesNotMatch(screen, /looks remote/, "why this flow is a CRED_AUTH_DEBUG line, not on the screen");
    assert.match(new URL(url).searchParams.get("redirect_uri") ?? "", /^http:\/\/localhost:\d+\/$/);
    await until(
      () =>
        /Waiting… \(Ctrl\+C to cancel\)/.test(login.screen()) && /Address:/.test(login.screen()) ? true : undefined,
      "the spinner with the paste prompt beside it",
      login.screen,
    );
    assert.match(login.screen(), /from another machine, paste the address it ends on:/, "one line says what to copy");

    paste(login, otherAddress);
    await until(
      () => (/Not accepted: .*another sign-in/.test(login.screen()) ? true : undefined),
      "the other sign-in's address refused",
      login.screen,
    );
    assert.equal(login.exitCode(), undefined, "still pending");
    assert.equal(existsSync(login.destination), false);

    const address = await finalAddress(await browser.newPage(), url, "bob@example.com");
    assert.match(address, /^http:\/\/localhost:\d+\/\?.*code=/);
    paste(login, address);
    assert.equal(await until(() => login.exitCode(), "the command to end", login.screen), 0, login.screen());
    assert.match(login.screen(), /Signed in as bob@example\.com/);
    const saved = JSON.parse(readFileSync(login.destination, "utf8"));
    assert.equal(saved.type, "authorized_user");
    assert.equal(saved.account, "bob@example.com");
    assert.equal(statSync(login.destination).mode & 0o777, 0o600);
    assert.ok(!login.screen().includes(new URL(address).searchParams.get("code")!), "the code is not on screen");
  });
});
