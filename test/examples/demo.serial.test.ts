// `npm run demo` (scripts/demo.mjs): the README's one command. Serial: `cred-auth login` binds a
// port in 8080-8089.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { collect, ROOT, tempDir } from "./support.ts";
import type { RunResult } from "./support.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) {
  if (process.env.CI) throw new Error(`Chromium not found at ${CHROMIUM}; CI must run the demo with a real browser.`);
  console.error(`\n!!! SKIPPING the demo with headless Chromium: no browser at ${CHROMIUM} (set CHROMIUM_PATH) !!!\n`);
}

function runDemo(chromiumPath: string): Promise<RunResult> {
  const home = tempDir("cred-auth-demo-test-");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    TMPDIR: home,
    CHROMIUM_PATH: chromiumPath,
    NO_PROXY: "127.0.0.1,localhost",
  };
  const child = spawn(process.execPath, [join(ROOT, "scripts", "demo.mjs")], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return collect(child, 180_000);
}

function assertDemoWorked(run: RunResult): void {
  assert.equal(run.code, 0, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  const out = run.stdout;
  assert.match(out, /2\. cred-auth login \S+credentials\.json/);
  assert.match(out, /\| Signed in as alice@example\.com\./);
  assert.match(out, /the file: mode 600, type authorized_user/);
  assert.match(out, /printed an access token: ya29\.emu\.\S{5}\.\.\. \(\d+ characters\)/);
  assert.match(out, /200 OK:\n\s+\| Hello from the cred-auth emulator!\n/);
  assert.match(out, /without the token: 401 Unauthorized/);
  assert.doesNotMatch(
    out + run.stderr,
    /ya29\.emu\.[\w-]{12,}|1\/\/emu\./,
    "a whole token appeared in the demo's output",
  );
  const work = /Cleaned up: emulator stopped, (\S+) removed\./.exec(out)?.[1];
  assert.ok(work, "the demo did not say what it cleaned up");
  assert.ok(!existsSync(work), `${work} was left behind`);
}

test("npm run demo signs in with headless Chromium and fetches hello.txt with the printed token", {
  skip: !haveChromium,
}, async () => {
  const run = await runDemo(CHROMIUM);
  assertDemoWorked(run);
  assert.match(run.stdout, /headless Chromium \(.+\) opens the consent page/);
  assert.match(run.stdout, /the browser landed on cred-auth's page/);
});

test("npm run demo falls back to the simulated browser when there is no Chromium, and says so", async () => {
  const run = await runDemo(join(tempDir(), "no-chromium-here"));
  assertDemoWorked(run);
  assert.match(run.stdout, /no Chromium at .+: the simulated browser submits the consent page/);
});
