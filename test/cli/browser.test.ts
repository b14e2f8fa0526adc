// End to end in a real browser: headless Chromium opens the URL that `cred-auth login` prints,
// picks an account and clicks Allow (or Deny) on the emulator's consent page. Then the saved
// file is used the way SPEC.md's curl example does: print-token (twice: the second from the
// token cache) and a bearer request to the emulator's storage API.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import fetch from "node-fetch";
import { withEmulator } from "../support/emulator.ts";
import { freePortRange, rangeEnv } from "../oauth/support.ts";
import {
  CLI,
  CLOUD_PLATFORM,
  collect,
  runCli,
  sandbox,
  secretsIn,
  startCli,
  waitForStderr,
  type CliResult,
  type Sandbox,
} from "./support.ts";
import { chromiumAvailable, withBrowser } from "../support/chromium.ts";

const available = chromiumAvailable("the CLI end-to-end browser tests");
async function loginBox(emuHost: string): Promise<Sandbox> {
  return sandbox(undefined, {
    CRED_AUTH_EMULATOR_HOST: emuHost,
    CRED_AUTH_LOOPBACK_PORTS: rangeEnv(await freePortRange(10)),
  });
}

/** `cred-auth login DESTINATION`, with Chromium as the user's browser pressing `button`. */
async function loginInChromium(
  box: Sandbox,
  destination: string,
  button: "Allow" | "Deny",
  account?: string,
): Promise<{ run: CliResult; pageText: string }> {
  const child = startCli(["login", destination, "--use_local_webserver"], box.env);
  const done = collect(child, 120_000);
  try {
    const [, url] = await waitForStderr(child, /authorize this application: (\S+)/);
    const pageText = await withBrowser(async (browser) => {
      const page = await browser.newPage();
      await page.goto(url!);
      if (account) await page.getByRole("radio", { name: new RegExp(account.replace(/\./g, "\\.")) }).check();
      await page.getByRole("button", { name: button, exact: true }).click();
      // The browser comes back to the CLI's loopback receiver, which answers with a page.
      const consentOrigin = new URL(url!).origin;
      await page.waitForURL((u) => u.origin !== consentOrigin);
      await page.waitForLoadState();
      return page.locator("body").innerText();
    });
    return { run: await done, pageText };
  } catch (error) {
    child.kill("SIGKILL");
    await done;
    throw error;
  }
}

test("Chromium: login, Allow, then print-token twice (second from the cache) and a bearer request to the storage API", {
  skip: !available,
}, async () => {
  const emu = await withEmulator();
  const box = await loginBox(emu.host);
  const destination = join(box.dir, "creds.json");
  const { run, pageText } = await loginInChromium(box, destination, "Allow", "bob@example.com");
  assert.equal(run.code, 0, run.stderr);
  assert.match(pageText, /complete|close this window|signed in/i, "the browser shows that sign-in is done");
  assert.match(run.stderr, /export GOOGLE_APPLICATION_CREDENTIALS=/);

  const saved = JSON.parse(readFileSync(destination, "utf8")) as Record<string, unknown>;
  assert.deepEqual(
    Object.keys(saved)
      .filter((k) => ["type", "client_id", "client_secret", "refresh_token", "token_uri", "scopes"].includes(k))
      .sort(),
    ["client_id", "client_secret", "refresh_token", "scopes", "token_uri", "type"],
  );
  assert.equal(saved.type, "authorized_user");
  // The account scopes come along by default (as gcloud asks for them), so the account is named.
  assert.deepEqual(
    [...(saved.scopes as string[])].sort(),
    [CLOUD_PLATFORM, "openid", "https://www.googleapis.com/auth/userinfo.email"].sort(),
    "the granted scopes (Google orders them its own way)",
  );
  assert.equal(saved.account, "bob@example.com");
  if (process.platform !== "win32") assert.equal(statSync(destination).mode & 0o777, 0o600);

  const before = emu.stats().tokenRequests;
  const first = await runCli(["print-token", destination], box.env);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(emu.stats().tokenRequests, before, "the sign-in's own token was cached: no token request");
  const second = await runCli(["print-token", destination], box.env);
  assert.equal(second.stdout, first.stdout);
  assert.equal(emu.stats().tokenRequests, before, "the second print-token was served from the token cache too");
  const token = first.stdout.trim();
  assert.equal(emu.checkAccessToken(token)?.account, "bob@example.com");

  const objectUrl = `${emu.url}/storage/v1/b/demo-bucket/o/hello.txt?alt=media`;
  const withToken = await fetch(objectUrl, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(withToken.status, 200);
  assert.equal(await withToken.text(), "Hello from the cred-auth emulator!\n");
  const without = await fetch(objectUrl);
  assert.equal(without.status, 401, "the API really checks the bearer token");

  // SPEC.md's example, literally, in a shell.
  if (existsSync("/usr/bin/curl") && process.platform !== "win32") {
    const script = `cred-auth() { "$NODE" "$CLI" "$@"; }; curl -sS -f -H "Authorization: Bearer $(cred-auth print-token creds.json)" "$URL"`;
    const { stdout } = await promisify(execFile)("bash", ["-c", script], {
      cwd: box.dir,
      env: { ...box.env, NODE: process.execPath, CLI, URL: objectUrl },
    });
    assert.equal(stdout, "Hello from the cred-auth emulator!\n");
    assert.equal(emu.stats().tokenRequests, before, "curl's token came from the cache too");
  }
  for (const output of [run.stdout, run.stderr, first.stderr, second.stderr]) {
    assert.deepEqual(secretsIn(output, [String(saved.refresh_token), String(saved.client_secret)]), []);
  }
});

test("Chromium: Deny gives exit 1, a clear message, and writes nothing", { skip: !available }, async () => {
  const emu = await withEmulator();
  const box = await loginBox(emu.host);
  const destination = join(box.dir, "denied.json");
  const { run } = await loginInChromium(box, destination, "Deny");
  assert.equal(run.code, 1);
  const errors = run.stderr.split("\n").filter((l) => l.startsWith("cred-auth: "));
  assert.equal(errors.length, 1, run.stderr);
  assert.match(errors[0]!, /denied/i);
  assert.deepEqual(
    readdirSync(box.dir).filter((f) => f.startsWith("denied")),
    [],
  );
});
