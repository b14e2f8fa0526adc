// Where a page's blocks run (pages.test.ts): a reader's folder, empty but for what the pages tell a
// reader to set up, against the installed package's emulator. A page's blocks run in order in one
// such folder, as a reader goes down the page: what a block writes (a file, HOME's settings and
// caches) is there for the blocks after it; what it exports is not (each block is a new shell).
//
// WHAT A PAGE FINDS (for whoever writes docs; each item is a step a page tells the reader):
// - The folder is a project that installed cred-auth's tarball and google-auth-library (README's
//   Install: `npm init -y`, `npm pkg set type=module`, `npm install ...`), and only the client
//   libraries the page's `page-needs` mark names (blocks.ts rule 3): its package.json says
//   `"type": "module"`, and `npx cred-auth` and `node node_modules/cred-auth/...` work.
// - CRED_AUTH_EMULATOR_HOST set to a running `cred-auth emulator` (README's); with `deployer` in the
//   page's needs, one that knows the service account deployer@my-project.iam.gserviceaccount.com that
//   alice@example.com may impersonate (getting-started.md's `--service-account` line; checked by
//   shell-blocks.test.ts).
// - A person at the browser: BROWSER opens the sign-in URL, signs in as alice@example.com and
//   presses Allow; the machine counts as local (CRED_AUTH_REMOTE=0); the loopback ports are free ones.
// - NO files: no credentials file, no key, no client file. A page that uses one makes it first
//   (`npx cred-auth login FILE`, the emulator's admin API) or says where it comes from in a block
//   that makes it.
// - A HOME, XDG_CONFIG_HOME and XDG_CACHE_HOME of its own, `cred-auth` on PATH too, and the tools
//   of this machine (bash, curl, jq, node 22). No network beyond loopback.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { after } from "node:test";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePortRange, rangeEnv } from "../oauth/support.ts";
import { CONSUMER_PATH, type Consumer, type PackagedEmulator } from "../package/consumer.ts";

const BROWSER_SCRIPT = fileURLToPath(new URL("./sign-in-browser.mjs", import.meta.url));

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

/** A reader's fresh, empty project folder for one page, with the environment above. */
export async function readerWorkspace(
  consumer: Consumer,
  emulator: PackagedEmulator,
  packages: readonly string[],
): Promise<{ dir: string; env: NodeJS.ProcessEnv }> {
  // Outside the consumer's folder: no node_modules above it holds what the page did not install.
  const base = mkdtempSync(join(tmpdir(), "cred-auth-page-"));
  after(() => rmSync(base, { recursive: true, force: true }));
  const home = join(base, "home");
  const dir = join(base, "work");
  mkdirSync(home, { mode: 0o700 });
  // The project of the Install step: `npm init -y; npm pkg set type=module; npm install ...`.
  mkdirSync(dir);
  writeFileSync(
    join(dir, "package.json"),
    `{ "name": "my-project", "version": "1.0.0", "private": true, "type": "module" }\n`,
  );
  // README's install, and what the page says it needs: a sample importing anything else fails.
  const modules = join(dir, "node_modules");
  for (const name of [".bin", "cred-auth", "google-auth-library", ...packages]) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(consumer.dir, "node_modules", name), join(modules, name), "dir");
  }
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
 * A shell block as a reader's shell runs it: every command runs, even after one failed, and the
 * block fails when any command (or pipeline, with pipefail) did what a reader would see fail: exit
 * non-zero on its own line. A command before `&&` or `||` is a test the reader reads, not a failure.
 */
export function readerScript(script: string): string[] {
  const trap = `__failed=0; trap 'echo "(docs harness) line $((LINENO - 1)) exited $?" >&2; __failed=1' ERR`;
  return ["-o", "pipefail", "-c", `${trap}\n${script}\nexit $__failed`];
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
