// Shared by the CLI tests: run the built `dist/cli.js` as a real process in an isolated home.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after } from "node:test";
import type { Emulator } from "cred-auth/emulator";
import { testCredentialsFile } from "../support/emulator.ts";

export const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));
export const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  /** stderr without the emulator notice (kept apart in `notice`, so tests read the rest exactly). */
  stderr: string;
  /** The "CRED_AUTH_EMULATOR_HOST is set" line, when the CLI printed it. */
  notice?: string;
}

/** The line cred-auth prints (once) when CRED_AUTH_EMULATOR_HOST points it at the emulator. */
export const EMULATOR_NOTICE =
  /^cred-auth: CRED_AUTH_EMULATOR_HOST: using the local emulator at http:\/\/[^ ]+, not Google\.\n/m;

/** Splits the emulator notice off `stderr`; at most one may be there. */
export function withoutNotice(stderr: string): { stderr: string; notice?: string } {
  const match = EMULATOR_NOTICE.exec(stderr);
  if (!match) return { stderr };
  const rest = stderr.slice(0, match.index) + stderr.slice(match.index + match[0].length);
  if (EMULATOR_NOTICE.test(rest)) throw new Error(`the emulator notice was printed more than once:\n${stderr}`);
  return { stderr: rest, notice: match[0] };
}

/** A temporary home for one test: HOME, XDG dirs and the token cache all inside it; removed after the file. */
export interface Sandbox {
  dir: string;
  tokenCache: string;
  env: NodeJS.ProcessEnv;
}

/** A fresh sandbox. `emulator` points CRED_AUTH_EMULATOR_HOST at it. */
export function sandbox(emulator?: Emulator, extra: NodeJS.ProcessEnv = {}): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), "cred-auth-cli-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const tokenCache = join(dir, "token-cache");
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, ".config"),
    XDG_CACHE_HOME: join(dir, ".cache"),
    CRED_AUTH_TOKEN_CACHE: tokenCache,
    BROWSER: "none",
    NO_PROXY: "127.0.0.1,localhost",
    ...(emulator ? { CRED_AUTH_EMULATOR_HOST: emulator.host } : {}),
    ...extra,
  };
  return { dir, tokenCache, env };
}

/** Everything each started process has written to stderr so far. */
const stderrSoFar = new WeakMap<ChildProcess, { text: string }>();

/** Starts `node dist/cli.js ...args`; with `wrapper` (such as `strace -o FILE`), under that command. */
export function startCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  nodeArgs: readonly string[] = [],
  wrapper: readonly string[] = [],
): ChildProcess {
  const command = [...wrapper, process.execPath, ...nodeArgs, CLI, ...args];
  const child = spawn(command[0]!, command.slice(1), { env, stdio: ["pipe", "pipe", "pipe"] });
  const seen = { text: "" };
  stderrSoFar.set(child, seen);
  child.stderr!.on("data", (chunk: Buffer | string) => (seen.text += chunk.toString()));
  return child;
}

/** Runs the CLI to completion (killed after `timeoutMs`) and collects its output. */
export function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  options: { nodeArgs?: readonly string[]; timeoutMs?: number; stdin?: string } = {},
): Promise<CliResult> {
  const child = startCli(args, env, options.nodeArgs);
  if (options.stdin !== undefined) child.stdin!.end(options.stdin);
  else child.stdin!.end();
  return collect(child, options.timeoutMs ?? 60_000);
}

/** Waits for `child` to exit (killing it after `timeoutMs`) and returns what it printed. */
export function collect(child: ChildProcess, timeoutMs = 60_000): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      try {
        resolve({ code, signal, stdout, ...withoutNotice(stderr) });
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** Resolves with the first match of `pattern` in all that `child` (from startCli) wrote to stderr; rejects when it exits first. */
export function waitForStderr(child: ChildProcess, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
  const seen = stderrSoFar.get(child) ?? { text: "" };
  const already = seen.text.match(pattern);
  if (already) return Promise.resolve(already);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => done(new Error(`timed out waiting for ${pattern} in stderr: ${seen.text}`)),
      timeoutMs,
    );
    // Registered after startCli's own listener, so `seen.text` already holds this chunk.
    const onData = (): void => {
      const match = seen.text.match(pattern);
      if (match) done(undefined, match);
    };
    const onExit = (): void => done(new Error(`process exited before ${pattern} appeared in stderr: ${seen.text}`));
    function done(error?: Error, match?: RegExpMatchArray): void {
      clearTimeout(timer);
      child.stderr!.off("data", onData);
      child.off("exit", onExit);
      if (error) reject(error);
      else resolve(match!);
    }
    child.stderr!.on("data", onData);
    child.once("exit", onExit);
  });
}

/** An authorized_user file the emulator accepts, in the sandbox; returns its path and contents. */
export async function userFile(
  emulator: Emulator,
  box: Sandbox,
  name = "user.json",
  scopes = [CLOUD_PLATFORM],
): Promise<{ path: string; json: Record<string, string> }> {
  const path = await testCredentialsFile(emulator, box.dir, { scopes, filename: name });
  return { path, json: JSON.parse(readFileSync(path, "utf8")) };
}

/** A service-account key file the emulator accepts, in the sandbox. */
export function serviceAccountFile(
  emulator: Emulator,
  box: Sandbox,
  name = "sa.json",
): { path: string; json: Record<string, string> } {
  const json = emulator.createServiceAccountKey();
  const path = join(box.dir, name);
  writeFileSync(path, JSON.stringify(json), { mode: 0o600 });
  return { path, json };
}

/** Fails when any secret of `secrets` appears in `text`. */
export function secretsIn(text: string, secrets: readonly (string | undefined)[]): string[] {
  return secrets.filter((s): s is string => typeof s === "string" && s.length >= 8 && text.includes(s));
}
