// Where a documented block runs (shell-blocks.test.ts, ts-blocks.test.ts): a fresh directory inside
// the consumer project that installed the packed tarball, against the installed package's emulator.
//
// WHAT A BLOCK FINDS (for whoever writes docs; each item stands for a step a page tells the reader):
// - CRED_AUTH_EMULATOR_HOST set to a running `cred-auth emulator` (getting-started.md, "the emulator"),
//   which knows the service account deployer@my-project.iam.gserviceaccount.com that
//   alice@example.com may impersonate (getting-started.md's `--service-account` line; checked below).
// - A person at the browser: BROWSER opens the sign-in URL, signs in as alice@example.com and
//   presses Allow; the machine counts as local (CRED_AUTH_REMOTE=0); the loopback ports are free ones.
// - In the directory: `credentials.json` and `creds.json` (authorized_user files, as
//   `npx cred-auth login credentials.json` writes them) and `key.json` (a service-account key),
//   minted through the emulator's admin API; in HOME: `client_secret.json`, the emulator's demo
//   Desktop client in the shape the Google Cloud console downloads.
// - The directory is a project that installed cred-auth's tarball and the client libraries
//   (package.json, node_modules), so `npx cred-auth` and `node node_modules/cred-auth/...` work.
// - A HOME, XDG_CONFIG_HOME and XDG_CACHE_HOME of its own, `cred-auth` on PATH too, and the tools
//   of this machine (bash, curl, jq, node 22). No network beyond loopback.
import { spawn } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEMO_CLIENT } from "cred-auth/emulator";
import { freePortRange, rangeEnv } from "../oauth/support.ts";
import { CONSUMER_PATH, type Consumer, consumerWorkspace, type PackagedEmulator } from "../package/consumer.ts";

const BROWSER_SCRIPT = fileURLToPath(new URL("./sign-in-browser.mjs", import.meta.url));
const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";

/** Blocks run at the same time (each in its own directory, with its own ports; each run is mostly waiting). */
export const RUN_CONCURRENCY = 3;

/** The service account the emulator of the blocks knows, and getting-started.md's line that registers it. */
export const DEPLOYER = "deployer@my-project.iam.gserviceaccount.com";
export const EMULATOR_ARGS = ["--service-account", `${DEPLOYER}=user:alice@example.com`] as const;

/** The Desktop client file the Google Cloud console downloads, for one of the emulator's clients. */
export function desktopClientFile(client: { clientId: string; clientSecret: string }): Record<string, unknown> {
  return {
    installed: {
      client_id: client.clientId,
      project_id: "my-project",
      auth_uri: "https://accounts.google.com/o/oauth2/auth",
      token_uri: "https://oauth2.googleapis.com/token",
      auth_provider_x509_cert_url: "https://www.googleapis.com/oauth2/v1/certs",
      client_secret: client.clientSecret,
      redirect_uris: ["http://localhost"],
    },
  };
}

/** A fresh directory for one block, with the files and environment above. */
export async function blockWorkspace(
  consumer: Consumer,
  emulator: PackagedEmulator,
): Promise<{ dir: string; env: NodeJS.ProcessEnv }> {
  const base = consumerWorkspace(consumer, "block-");
  const home = join(base, "home");
  const dir = join(base, "work");
  mkdirSync(home, { mode: 0o700 });
  // The project's own directory, as a user stands in it: its package.json and node_modules.
  mkdirSync(dir);
  writeFileSync(join(dir, "package.json"), `{ "name": "my-project", "version": "1.0.0", "private": true }\n`);
  symlinkSync(join(consumer.dir, "node_modules"), join(dir, "node_modules"), "dir");
  const write = (path: string, json: unknown): void =>
    writeFileSync(path, `${JSON.stringify(json, null, 2)}\n`, { mode: 0o600 });
  for (const name of ["credentials.json", "creds.json"])
    write(join(dir, name), await emulator.admin("refresh-token", { scopes: [CLOUD_PLATFORM] }));
  write(join(dir, "key.json"), await emulator.admin("service-account-key", {}));
  write(join(home, "client_secret.json"), desktopClientFile(DEMO_CLIENT));
  const env: NodeJS.ProcessEnv = {
    PATH: [join(consumer.dir, "node_modules", ".bin"), CONSUMER_PATH].join(delimiter),
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    CRED_AUTH_EMULATOR_HOST: emulator.host,
    CRED_AUTH_LOOPBACK_PORTS: rangeEnv(await freePortRange(10)),
    CRED_AUTH_REMOTE: "0",
    BROWSER: `${process.execPath} ${BROWSER_SCRIPT}`,
    NO_PROXY: "127.0.0.1,localhost",
    npm_config_update_notifier: "false",
    npm_config_offline: "true",
    LANG: "C.UTF-8",
  };
  return { dir, env };
}

/**
 * Runs `command` in its own process group in `cwd`; resolves its exit code and output (stdout and
 * stderr interleaved). Killed, with whatever it started in the background, after `timeoutMs` and
 * when it ends.
 */
export function runInGroup(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const killGroup = (): void => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(killGroup, timeoutMs);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      killGroup();
      resolve({ code, output });
    });
  });
}

/** Runs `tasks` with at most `limit` at once. */
export async function pool(tasks: readonly (() => Promise<void>)[], limit: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) await tasks[next++]?.();
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
}
