// A real browser on the consent and code pages: Chromium (through playwright-core) clicks as a person would.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEMO_WEB_CLIENT, EMULATOR_PATHS } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { authUrl, pkcePair, startReceiver, tokenRequest, postForm } from "./support.ts";
import { chromiumAvailable, withBrowser } from "../support/chromium.ts";

const available = chromiumAvailable("the Chromium consent-page tests");

test("Chromium: choose an account, press Allow, land on the loopback app with a code that exchanges", {
  skip: !available,
}, async () => {
  const emu = await withEmulator();
  const receiver = await startReceiver();
  const { verifier, challenge } = pkcePair();
  const url = authUrl(emu, {
    redirect_uri: receiver.redirectUri,
    state: "st",
    code_challenge: challenge,
    code_challenge_method: "S256",
  });
  await withBrowser(async (browser) => {
    const page = await browser.newPage();
    await page.goto(url);
    assert.equal(await page.title(), "Sign in - cred-auth emulator");
    await page.getByRole("radio", { name: /bob@example\.com/ }).check();
    await page.getByRole("button", { name: "Allow", exact: true }).click();
    await page.waitForURL((u) => u.toString().startsWith(receiver.redirectUri));
    assert.match(await page.content(), /authentication flow has completed/);
  });
  // Chromium also asks the app for /favicon.ico: pick the redirect itself.
  const landed = receiver.received.find((u) => u.searchParams.has("state"))!;
  assert.equal(landed.searchParams.get("state"), "st");
  const reply = await tokenRequest(emu, {
    grant_type: "authorization_code",
    code: landed.searchParams.get("code")!,
    code_verifier: verifier,
    redirect_uri: receiver.redirectUri,
  });
  assert.equal(reply.status, 200);
  assert.equal(emu.checkAccessToken(String(reply.json.access_token))?.account, "bob@example.com");
});

test("Chromium: Deny lands on the app with error=access_denied", { skip: !available }, async () => {
  const emu = await withEmulator();
  const receiver = await startReceiver();
  await withBrowser(async (browser) => {
    const page = await browser.newPage();
    await page.goto(authUrl(emu, { redirect_uri: receiver.redirectUri, state: "d" }));
    await page.getByRole("button", { name: "Deny", exact: true }).click();
    await page.waitForURL((u) => u.toString().startsWith(receiver.redirectUri));
  });
  assert.equal(receiver.received.find((u) => u.searchParams.has("state"))!.searchParams.get("error"), "access_denied");
});

test("Chromium: copy-paste flow shows the code on the code page and Copy puts it on the clipboard", {
  skip: !available,
}, async () => {
  const emu = await withEmulator();
  const redirectUri = `${emu.url}${EMULATOR_PATHS.codePage}`;
  await withBrowser(async (browser) => {
    const context = await browser.newContext();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: emu.url });
    const page = await context.newPage();
    await page.goto(authUrl(emu, { client_id: DEMO_WEB_CLIENT.clientId, redirect_uri: redirectUri }));
    await page.getByRole("button", { name: "Allow", exact: true }).click();
    await page.waitForURL((u) => u.pathname === EMULATOR_PATHS.codePage);
    const code = (await page.locator("code#code").textContent())!.trim();
    assert.match((await page.locator("#warning").textContent()) ?? "", /like a password/);
    await page.getByRole("button", { name: "Copy" }).click();
    await page.getByText("Copied.").waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), code);
    const reply = await postForm(`${emu.url}/token`, {
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      client_id: DEMO_WEB_CLIENT.clientId,
      client_secret: DEMO_WEB_CLIENT.clientSecret,
    });
    assert.equal(reply.status, 200, JSON.stringify(reply.json));
  });
});
