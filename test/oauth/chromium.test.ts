// A real browser: Chromium (playwright-core) signs in through our loopback receiver, and shows docs/oauth.html.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { test } from "node:test";
import type { SignInEvent } from "cred-auth";
import { withEmulator } from "../support/emulator.ts";
import { freePortRange, signInWith } from "./support.ts";
import { chromiumAvailable, withBrowser } from "../support/chromium.ts";

const available = chromiumAvailable("the Chromium sign-in tests");
const OAUTH_HTML = fileURLToPath(new URL("../../docs/oauth.html", import.meta.url));

test("docs/oauth.html: its Content-Security-Policy hashes match its script and style, nothing external", () => {
  const html = readFileSync(OAUTH_HTML, "utf8");
  const hash = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
  const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
  const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1]!;
  assert.ok(csp.includes(`script-src ${hash(script)}`), "script hash is stale: recompute it after editing the script");
  assert.ok(csp.includes(`style-src ${hash(style)}`), "style hash is stale: recompute it after editing the style");
  assert.match(csp, /default-src 'none'/);
  assert.doesNotMatch(html, /\b(src|href)=/);
});

test("Chromium signs in through the loopback receiver: consent, Allow, success page", {
  skip: !available,
}, async () => {
  const emulator = await withEmulator();
  const env = { CRED_AUTH_EMULATOR_HOST: emulator.host, BROWSER: "none" };
  await withBrowser(async (browser) => {
    const page = await browser.newPage();
    let landed: Promise<string> | undefined;
    const presenter = {
      update(event: SignInEvent) {
        if (event.type !== "url") return;
        landed = (async () => {
          await page.goto(event.url);
          await page.getByRole("radio", { name: /carol@example\.com/ }).check();
          await page.getByRole("button", { name: "Allow", exact: true }).click();
          await page.waitForURL(/^http:\/\/localhost:\d+\//);
          return page.content();
        })();
        landed.catch(() => {});
      },
    };
    const result = await signInWith({
      scopes: ["openid", "email"],
      env,
      ports: await freePortRange(10),
      presenter,
      openBrowser: false,
    });
    assert.equal(result.account, "carol@example.com");
    assert.match(await landed!, /Signed in\. You may close this window\./);
  });
});

test("Chromium shows docs/oauth.html: the code with a Copy button and the warning, then clears the address", {
  skip: !available,
}, async () => {
  await withBrowser(async (browser) => {
    const page = await browser.newPage();
    const blocked: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy|Refused/i.test(message.text())) blocked.push(message.text());
    });
    await page.goto(`${pathToFileURL(OAUTH_HTML).href}?state=s&code=4%2F0Ab-code_xyz&scope=openid`);
    assert.equal(await page.locator("#code").inputValue(), "4/0Ab-code_xyz~s", "one sign-in code: CODE~STATE");
    assert.equal(await page.getByRole("button", { name: "Copy" }).isVisible(), true);
    assert.match(await page.locator(".warning").innerText(), /credential, like a password/);
    assert.equal(new URL(page.url()).search, "");
    assert.deepEqual(blocked, []);

    await page.goto(`${pathToFileURL(OAUTH_HTML).href}?error=access_denied`);
    assert.match(await page.locator("#error-text").innerText(), /Sign-in was denied\. \(access_denied\)/);
    assert.equal(await page.locator("#success").isVisible(), false);
    await page.goto(`${pathToFileURL(OAUTH_HTML).href}?error=%3Cimg%20src%3Dx%3E`);
    assert.match(await page.locator("#error-text").innerText(), /unknown_error/);
  });
});
