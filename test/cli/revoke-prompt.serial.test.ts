// `cred-auth revoke` without FILE in a real terminal (tmux): it names the file it found and where the
// revocation goes, and asks (Y/n) as gcloud's `auth application-default revoke` does. "n" (or
// Ctrl+C) leaves the file byte for byte and revokes nothing; Enter or "y" revokes and removes it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { hasTmux, tmuxOn } from "../support/tmux.ts";
import { testCredentialsFile, withEmulator } from "../support/emulator.ts";

const skip = hasTmux || process.env.CI ? false : "tmux is not installed";
if (skip) console.warn(`\n!!! SKIPPING the revoke prompt tests: ${skip}. They run under CI. !!!\n`);

const cli = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));
const socket = `cred-auth-revoke-${process.pid}`;
const work = mkdtempSync(join(tmpdir(), "cred-auth-revoke-prompt-"));
after(() => {
  spawnSync("tmux", ["-L", socket, "kill-server"], { stdio: "ignore" });
  rmSync(work, { recursive: true, force: true });
});
const emu = skip ? undefined : await withEmulator();
const tmux = tmuxOn(socket);
const quote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;
let sessions = 0;

/** `cred-auth revoke` in a fresh terminal whose gcloud ADC file is a signed-in user's. */
async function revokeInTerminal() {
  const name = `revoke${++sessions}`;
  const home = mkdtempSync(join(work, "home-"));
  const gcloud = join(home, "gcloud");
  const file = await testCredentialsFile(emu!, gcloud, {
    scopes: ["https://www.googleapis.com/auth/cloud-platform"],
    filename: "application_default_credentials.json",
  });
  const exitFile = join(work, `${name}.exit`);
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    CLOUDSDK_CONFIG: gcloud,
    METADATA_SERVER_DETECTION: "none",
    CRED_AUTH_EMULATOR_HOST: emu!.host,
    CRED_AUTH_TOKEN_CACHE: "off",
    TERM: "xterm-256color",
  };
  const assignments = Object.entries(env)
    .map(([k, v]) => `${k}=${quote(v)}`)
    .join(" ");
  const command = `env -i ${assignments} ${quote(process.execPath)} ${quote(cli)} revoke; echo $? > ${quote(exitFile)}`;
  tmux(
    "new-session",
    "-d",
    "-x",
    "200",
    "-y",
    "50",
    "-s",
    name,
    command,
    ";",
    "set-option",
    "-t",
    name,
    "remain-on-exit",
    "on",
  );
  const screen = () => tmux("capture-pane", "-p", "-J", "-t", name);
  const exitCode = () => (existsSync(exitFile) ? Number(readFileSync(exitFile, "utf8").trim()) : undefined);
  return { name, file, bytes: readFileSync(file), screen, exitCode };
}

async function until<T>(read: () => T | undefined, what: string, screen: () => string): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`never happened: ${what}\n--- screen ---\n${screen()}`);
}

const QUESTION =
  /You are about to revoke the sign-in at the emulator at 127\.0\.0\.1:\d+ and remove gcloud's ADC file ".*application_default_credentials\.json" with its cached tokens\.\nDo you want to continue \(Y\/n\)\?/;

// A no is an answer (exit 1, as gcloud's "Aborted by user"); Ctrl+C is an interrupt (130).
for (const [answer, keys, exit, last] of [
  ["n", ["n", "Enter"], 1, /Nothing was revoked or removed: the answer was no\. \(ERR_NOT_CONFIRMED\)/],
  ["Ctrl+C", ["C-c"], 130, /Nothing was revoked or removed\./],
] as const) {
  test(`revoke without FILE at a terminal asks; ${answer}: exit ${exit}, nothing revoked, the file byte for byte`, {
    skip,
  }, async () => {
    const run = await revokeInTerminal();
    const revocations = emu!.stats().revocations;
    await until(() => (QUESTION.test(run.screen()) ? true : undefined), "the question", run.screen);
    for (const key of keys) tmux("send-keys", "-t", run.name, key);
    const code = await until(run.exitCode, "the end", run.screen);
    assert.equal(code, exit, run.screen());
    assert.match(run.screen(), last);
    assert.deepEqual(readFileSync(run.file), run.bytes, "the file is untouched");
    assert.equal(emu!.stats().revocations, revocations, "nothing was sent");
  });
}

test("revoke without FILE at a terminal asks; Enter (the default, Y): revoked at the emulator, the file removed", {
  skip,
}, async () => {
  const run = await revokeInTerminal();
  const revocations = emu!.stats().revocations;
  await until(() => (QUESTION.test(run.screen()) ? true : undefined), "the question", run.screen);
  tmux("send-keys", "-t", run.name, "Enter");
  assert.equal(await until(run.exitCode, "the end", run.screen), 0, run.screen());
  assert.match(
    run.screen(),
    /revoked the sign-in at the emulator at 127\.0\.0\.1:\d+: its refresh and access tokens no longer work\./,
  );
  assert.equal(existsSync(run.file), false);
  assert.equal(emu!.stats().revocations, revocations + 1);
});
