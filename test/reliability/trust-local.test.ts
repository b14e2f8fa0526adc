// The file-trust rule against a second local user (issue 24): a settings file planted by another
// user ("nobody", uid 65534) or swapped for a FIFO, and settings written into a directory another
// user owns. Real processes, the emulator, files chowned as root (these tests need root, as
// test/reliability/local-attacker.test.ts; CI runs them as root).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { DEMO_CLIENT, DEMO_WEB_CLIENT } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { tempDir } from "../support/files.ts";
import { isolatedEnv, runCli } from "./support.ts";

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const needsRoot = asRoot ? false : "needs root to plant files as another user (nobody) — SKIPPED LOCALLY";
if (!asRoot && process.env.CI === "true") throw new Error("CI must run test/reliability/trust-local.test.ts as root");

const emu = await withEmulator();
/** The client a sign-in uses when none is configured (installed or web, as the flow chosen here needs). */
const DEMO_CLIENTS: string[] = [DEMO_CLIENT.clientId, DEMO_WEB_CLIENT.clientId];
const ATTACKER_CLIENT = {
  "client-id": "attacker-client.apps.googleusercontent.com",
  "client-secret": "GOCSPX-Attacker/Own+Client=",
};

/** A home whose settings directory holds `config` (a JSON object, or "fifo"). */
function home(t: Parameters<typeof tempDir>[0], config: Record<string, unknown> | "fifo", owner?: number) {
  const dir = tempDir(t, "cred-auth-trust-local-");
  const settingsDir = join(dir, ".config", "cred-auth");
  mkdirSync(settingsDir, { recursive: true, mode: 0o700 });
  const file = join(settingsDir, "config.json");
  if (config === "fifo") execFileSync("mkfifo", [file]);
  else writeFileSync(file, JSON.stringify(config), { mode: 0o644 });
  if (owner !== undefined) chownSync(file, owner, owner);
  const env = isolatedEnv(dir, { CRED_AUTH_EMULATOR_HOST: emu.host, BROWSER: "none", CRED_AUTH_TOKEN_CACHE: "off" });
  return { dir, settingsDir, file, env };
}

/** `cred-auth login` until it prints its sign-in URL (then it is stopped): the URL, or the failure. */
async function signInUrl(env: NodeJS.ProcessEnv, destination: string) {
  const r = await runCli(["login", destination, "--no-browser", "--timeout", "2"], { env, killAfterMs: 20_000 });
  const url = /https?:\/\/\S+\/o\/oauth2\/v2\/auth\?\S+/.exec(r.stderr)?.[0];
  return { ...r, url: url === undefined ? undefined : new URL(url) };
}

test("a settings file planted by another user chooses neither the OAuth client nor the scopes", {
  skip: needsRoot,
}, async (t) => {
  const { dir, env } = home(t, { ...ATTACKER_CLIENT, scopes: ["https://www.googleapis.com/auth/drive"] }, NOBODY);
  const r = await signInUrl(env, join(dir, "adc.json"));
  assert.equal(r.signal, null, "did not hang");
  assert.ok(r.url, `a sign-in URL was printed: ${r.stderr}`);
  assert.ok(
    DEMO_CLIENTS.includes(r.url.searchParams.get("client_id") ?? ""),
    "the emulator's demo client, not the attacker's",
  );
  assert.doesNotMatch(r.url.searchParams.get("scope") ?? "", /drive/);
  assert.match(
    r.stderr,
    /cred-auth: warning: the settings file .*config\.json belongs to another user \(uid 65534\), who would choose your OAuth client; it is not used\n/,
  );
  const listed = await runCli(["config", "list"], { env });
  assert.equal(listed.stdout, "", "config list shows none of the planted settings");
});

test("a settings file others may write is not trusted either, even when it is yours", async (t) => {
  const { dir, file, env } = home(t, ATTACKER_CLIENT);
  execFileSync("chmod", ["666", file]);
  const r = await signInUrl(env, join(dir, "adc.json"));
  assert.ok(DEMO_CLIENTS.includes(r.url?.searchParams.get("client_id") ?? ""), r.stderr);
  assert.match(
    r.stderr,
    /the settings file .*config\.json may be written by others \(mode 666\), who would choose your OAuth client; it is not used/,
  );
});

test("a FIFO as the settings file hangs nothing: login goes on, config list and set answer", async (t) => {
  const { dir, file, env } = home(t, "fifo");
  const r = await signInUrl(env, join(dir, "adc.json"));
  assert.equal(r.signal, null, "login did not hang on the FIFO");
  assert.ok(DEMO_CLIENTS.includes(r.url?.searchParams.get("client_id") ?? ""), r.stderr);
  assert.match(r.stderr, /the settings file .*config\.json is not a regular file; settings are ignored/);
  const listed = await runCli(["config", "list"], { env, killAfterMs: 20_000 });
  assert.equal(listed.signal, null, "config list did not hang");
  assert.equal(listed.code, 0);
  const set = await runCli(["config", "set", "ui", "plain"], { env, killAfterMs: 20_000 });
  assert.equal(set.signal, null, "config set did not hang");
  assert.equal(set.code, 1, set.stderr);
  assert.match(
    set.stderr,
    /^cred-auth: Cannot keep settings: the settings file .*config\.json .*; remove it, then set again; cred-auth writes no secret there\. \(ERR_FILE_UNWRITABLE\)\n$/,
  );
  assert.ok(existsSync(file));
});

test("config set writes no secret into a directory, or over a file, that another user owns", {
  skip: needsRoot,
}, async (t) => {
  // The settings directory itself belongs to someone else (an XDG_CONFIG_HOME on a shared disk, say).
  const dir = tempDir(t, "cred-auth-trust-local-");
  const shared = join(dir, "shared");
  mkdirSync(join(shared, "cred-auth"), { recursive: true, mode: 0o755 });
  chownSync(join(shared, "cred-auth"), NOBODY, NOBODY);
  const env = isolatedEnv(dir, { XDG_CONFIG_HOME: shared });
  const secret = "GOCSPX-Never/In+Their=Dir";
  const r = await runCli(["config", "set", "client-id", "mine.apps.googleusercontent.com", "client-secret", secret], {
    env,
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /^cred-auth: Cannot keep settings: the settings directory .*shared\/cred-auth belongs to another user \(uid 65534\); cred-auth writes no secret there\. \(ERR_FILE_UNWRITABLE\)\n$/,
  );
  assert.deepEqual(readdirSync(join(shared, "cred-auth")), [], "nothing written there");
  assert.ok(!r.stderr.includes(secret));

  // Our own directory, with a settings file another user planted in it: refused, not laundered into ours.
  const planted = home(t, ATTACKER_CLIENT, NOBODY);
  const again = await runCli(["config", "set", "ui", "plain"], { env: planted.env });
  assert.equal(again.code, 1, again.stderr);
  assert.match(
    again.stderr,
    /the settings file .*config\.json belongs to another user \(uid 65534\); remove it, then set again/,
  );
});
