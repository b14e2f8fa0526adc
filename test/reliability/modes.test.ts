// File modes: under umask 000, every file cred-auth writes (credentials files, the cache file,
// token cache files, lock files) is 0600 and every directory it creates 0700, so the modes are
// set explicitly, not left to the umask. Directories that already existed keep their mode.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { approveSignIn } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { tempDir } from "../support/files.ts";
import { freePortRange, rangeEnv } from "../oauth/support.ts";
import { isolatedEnv, runCli } from "./support.ts";

const CHILD = fileURLToPath(new URL("./modes-child.mjs", import.meta.url));
const emu = await withEmulator();

/** Every entry under `root` with a mode other than 0600 (files) / 0700 (directories), except `preexisting`. */
function wrongModes(root: string, preexisting: readonly string[] = []): string[] {
  const wrong: string[] = [];
  const walk = (path: string): void => {
    const name = relative(root, path) || ".";
    const stats = lstatSync(path);
    const mode = stats.mode & 0o777;
    if (!preexisting.includes(name)) {
      if (stats.isDirectory() && mode !== 0o700) wrong.push(`${name}/ ${mode.toString(8)}`);
      if (!stats.isDirectory() && mode !== 0o600) wrong.push(`${name} ${mode.toString(8)}`);
    }
    if (stats.isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
  };
  walk(root);
  return wrong;
}

/** The relative paths of every entry under `root`. */
function entries(root: string): string[] {
  return readdirSync(root, { recursive: true }).map(String).sort();
}

function runUnderUmask000(
  script: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", 'umask 000 && exec "$0" "$@"', process.execPath, script], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

test("the library under umask 000: credentials files, the cache, token cache and lock are 0600, new directories 0700", async (t) => {
  const home = tempDir(t, "cred-auth-modes-");
  // Already there before cred-auth runs: a loose directory and a loose file in it.
  mkdirSync(join(home, "existing"));
  chmodSync(join(home, "existing"), 0o755);
  writeFileSync(join(home, "existing", "loose.json"), "{}");
  chmodSync(join(home, "existing", "loose.json"), 0o644);

  const env = isolatedEnv(home, {
    CRED_AUTH_EMULATOR_HOST: emu.host,
    CRED_AUTH_LOOPBACK_PORTS: rangeEnv(await freePortRange(3)),
  });
  const result = await runUnderUmask000(CHILD, env);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(JSON.parse(result.stdout).lockMode, 0o600, "the token-cache lock file is 0600");

  const written = entries(home);
  for (const expected of [
    "new/a/b/creds.json",
    ".config/cred/cred_credentials.json",
    "saved/deep/adc.json",
    ".cache/cred-auth/tokens",
  ]) {
    assert.ok(written.includes(expected), `${expected} was written (${written.join(", ")})`);
  }
  assert.ok(
    written.some((name) => /^\.cache\/cred-auth\/tokens\/a{64}\.json$/.test(name)),
    "a token cache file was written",
  );
  assert.deepEqual(
    wrongModes(home, ["existing"]),
    [],
    "every file 0600, every created directory 0700 (the replaced 0644 file too)",
  );
  assert.equal(lstatSync(join(home, "existing")).mode & 0o777, 0o755, "an existing directory keeps its mode");
});

test("the CLI under umask 000: login's destination and print-token's token cache are 0600 in 0700 directories", async (t) => {
  const home = tempDir(t, "cred-auth-modes-cli-");
  const env = isolatedEnv(home, {
    CRED_AUTH_EMULATOR_HOST: emu.host,
    CRED_AUTH_LOOPBACK_PORTS: rangeEnv(await freePortRange(3)),
  });
  const destination = join(home, "login", "new", "creds.json");
  let browsed = false;
  const login = await runCli(
    ["login", destination, "--use_local_webserver", "--no-browser", "--ui", "plain", "--timeout", "60"],
    {
      env,
      umask: "000",
      onStderr: (stderr) => {
        const url = /(http:\/\/127\.0\.0\.1:\d+\/o\/oauth2\/v2\/auth\?\S+)/.exec(stderr)?.[1];
        if (url && !browsed) {
          browsed = true;
          void approveSignIn(url);
        }
      },
    },
  );
  assert.equal(login.code, 0, login.stderr);

  const printed = await runCli(["print-token", destination], { env, umask: "000" });
  assert.equal(printed.code, 0, printed.stderr);
  assert.ok(emu.checkAccessToken(printed.stdout.trim()), "a real token was printed");
  const written = entries(home);
  assert.ok(written.includes("login/new/creds.json"));
  assert.ok(
    written.some((name) => /^\.cache\/cred-auth\/tokens\/[0-9a-f]{64}\.json$/.test(name)),
    `a token cache file (${written.join(", ")})`,
  );
  assert.deepEqual(wrongModes(home), []);
});
