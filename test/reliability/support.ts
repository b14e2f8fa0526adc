// Shared by the reliability tests: the CLI as a real process, closed ports, byte-exact
// snapshots of directories, bounded concurrency.
import { spawn } from "node:child_process";
import { lstatSync, readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import type { TestContext } from "node:test";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const CLI = join(ROOT, "dist", "cli.js");
export const SCOPES = ["https://www.googleapis.com/auth/cloud-platform"];

/**
 * Preloaded into CLI children (`--require`) to shorten the per-attempt token timeout from
 * 20 s: the only way to see a slow token server time out in a bounded test.
 */

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: NodeJS.ProcessEnv;
  /** Node flags before the script, e.g. `--require` a preload. */
  nodeArgs?: string[];
  /** Run under this umask (through /bin/sh). */
  umask?: string;
  /** Killed after this long (default 60 s): a hang fails the test instead of stalling it. */
  killAfterMs?: number;
  /** Called with all of stderr so far, after each chunk (to act on a printed URL, say). */
  onStderr?: (stderr: string) => void;
}

/** Runs `cred-auth ARGS` as a child process and collects its output and exit code. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return runNode([CLI, ...args], options);
}

/** Runs `node ARGV` (after `options.nodeArgs`) as a child process and collects its output and exit code. */
export function runNode(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const argv = [...(options.nodeArgs ?? []), ...args];
  const [command, commandArgs] =
    options.umask === undefined
      ? [process.execPath, argv]
      : ["/bin/sh", ["-c", `umask ${options.umask} && exec "$0" "$@"`, process.execPath, ...argv]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, commandArgs, { env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      options.onStderr?.(stderr);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.killAfterMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** An environment for a child: HOME, XDG dirs and the token cache inside `home`, no emulator, no ADC. */
export function isolatedEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (
      name.startsWith("CRED_AUTH_") ||
      name.startsWith("GOOGLE_") ||
      name === "GCE_METADATA_HOST" ||
      name === "NODE_OPTIONS"
    )
      delete env[name];
  }
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    CLOUDSDK_CONFIG: join(home, "gcloud"),
    CRED_AUTH_HOSTED: "off",
    ...extra,
  };
}

export { closedPort } from "../support/net.ts";

/** Every entry under `dir` (recursively): its mode and, for files, its bytes (base64). */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string): void => {
    const stats = lstatSync(path);
    const key = relative(dir, path) || ".";
    if (stats.isDirectory()) {
      out[key] = `dir ${(stats.mode & 0o777).toString(8)}`;
      for (const name of readdirSync(path).sort()) walk(join(path, name));
    } else {
      out[key] =
        `file ${(stats.mode & 0o777).toString(8)} ${stats.isFile() ? readFileSync(path).toString("base64") : "special"}`;
    }
  };
  walk(dir);
  return out;
}

/** Runs `work` over `items` with at most `limit` at a time, in order of start. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** The lines of `text`, without the empty last one. */
export function lines(text: string): string[] {
  return text.split("\n").filter((line, i, all) => line !== "" || i < all.length - 1);
}

type Warning = Error & { code?: string };
type WarningListener = (warning: Warning) => void;

/** The interceptions under way, and Node's own warning listeners while any is (one dispatcher for all). */
const intercepting = new Set<{ keep: (warning: Warning) => boolean; warnings: Error[] }>();
let paused: WarningListener[] | undefined;

function dispatchWarning(warning: Warning): void {
  let kept = false;
  for (const interception of intercepting)
    if (interception.keep(warning)) {
      interception.warnings.push(warning);
      kept = true;
    }
  if (!kept) for (const print of paused ?? []) print(warning);
}

/**
 * Collects the process warnings `keep` accepts until the test ends; Node's own printing of
 * those is paused meanwhile (dozens of expected warnings are noise), others still print.
 * Calls may overlap (several in one test): one dispatcher serves them all, and Node's listeners
 * come back, once, when the last one ends. (Each call used to save and restore the listeners it
 * found, which put earlier calls' collectors back for good: 11 listeners, MaxListenersExceededWarning.)
 */
export function interceptWarnings(t: TestContext, keep: (warning: Warning) => boolean): Error[] {
  const interception = { keep, warnings: [] as Error[] };
  if (paused === undefined) {
    paused = process.listeners("warning") as WarningListener[];
    process.removeAllListeners("warning");
    process.on("warning", dispatchWarning);
  }
  intercepting.add(interception);
  t.after(() => {
    intercepting.delete(interception);
    if (intercepting.size > 0 || paused === undefined) return;
    process.off("warning", dispatchWarning);
    for (const print of paused) process.on("warning", print);
    paused = undefined;
  });
  return interception.warnings;
}

/** Every way an echoing server could write `secret` back. */
export function echoes(secret: string): string[] {
  const percent = encodeURIComponent(secret);
  const form = new URLSearchParams({ v: secret }).toString().slice(2);
  return [
    secret,
    percent,
    percent.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    form,
    form.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    JSON.stringify(secret).slice(1, -1).replaceAll("/", "\\/"),
    Buffer.from(secret).toString("base64"),
    Buffer.from(secret).toString("base64url"),
  ];
}
