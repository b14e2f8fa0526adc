// Helpers for running the examples in child processes against the emulator, from the installed package.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after } from "node:test";
import { approveSignIn, DEMO_CLIENT } from "cred-auth/emulator";
import type { Emulator } from "cred-auth/emulator";
import { consumerWorkspace, installedPackage } from "../package/consumer.ts";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";

/** A temp directory removed after the current file. */
export function tempDir(prefix = "cred-auth-examples-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** An access token minted by the emulator for `scopes`, through its token endpoint. */
export async function accessToken(emulator: Emulator, scopes: string[], account?: string): Promise<string> {
  const refreshToken = emulator.issueRefreshToken({ scopes, ...(account ? { account } : {}) });
  const response = await fetch(`${emulator.url}/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: DEMO_CLIENT.clientId,
      client_secret: DEMO_CLIENT.clientSecret,
    }),
  });
  if (!response.ok) throw new Error(`token endpoint answered ${response.status}`);
  const body = (await response.json()) as { access_token: string };
  return body.access_token;
}

/**
 * The environment of an example: a fresh HOME, the emulator for OAuth, the given API base URL,
 * and nothing inherited from this machine but PATH (no real ADC, proxy, hosted notebook or CI).
 */
export function exampleEnv(
  home: string,
  emulator: Emulator,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    APPDATA: join(home, "AppData"),
    CLOUDSDK_CONFIG: join(home, "gcloud"),
    CRED_AUTH_EMULATOR_HOST: emulator.host,
    CRED_AUTH_HOSTED: "off",
    METADATA_SERVER_DETECTION: "none",
    NO_PROXY: "127.0.0.1,localhost",
    EXAMPLE_API_URL: emulator.url,
    GOOGLE_CLOUD_PROJECT: "example-project",
    ...extra,
  };
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Starts the example `name` (examples/NAME.ts) as a user of the package runs it: the JavaScript
 * the package ships beside it (node_modules/cred-auth/examples/NAME.js), in a directory of the
 * project that installed the packed tarball, on the Node the suite runs on (22).
 */
async function spawnExample(name: string, args: string[], env: Record<string, string>): Promise<ChildProcess> {
  const consumer = await installedPackage();
  const script = join(consumer.packageDir, "examples", name.replace(/\.ts$/, ".js"));
  return spawn(process.execPath, [script, ...args], {
    cwd: consumerWorkspace(consumer, "example-"),
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/** Runs the installed example `name` with no input; kills it after `timeoutMs`. */
export async function runExample(
  name: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 120_000,
): Promise<RunResult> {
  const child = await spawnExample(name, args, env);
  child.stdin?.end();
  return collect(child, timeoutMs);
}

/** What a sign-in looked like from the outside. */
export interface SignInRun extends RunResult {
  /** The authorization URL the example printed. */
  authUrl: string;
}

const AUTH_URL = /https?:\/\/\S+\/o\/oauth2\/v2\/auth\?\S+/;

/**
 * Runs an example that signs in, and plays the person at the browser: waits for the URL on
 * stderr, approves it on the emulator's consent page as `account`, and either lets the
 * redirect reach the example's loopback receiver or pastes the code shown (copy-paste flow).
 */
export async function runExampleWithSignIn(
  name: string,
  args: string[],
  env: Record<string, string>,
  account: string,
  timeoutMs = 120_000,
): Promise<SignInRun> {
  const child = await spawnExample(name, args, env);
  const done = collect(child, timeoutMs);
  const stderrMatch = waitForStderr(child);
  const authUrl = (await stderrMatch(AUTH_URL))?.[0];
  if (!authUrl) return { ...(await done), authUrl: "" };
  // The copy-paste flow redirects to the emulator's own code page; the loopback flow to the example.
  const redirectUri = new URL(authUrl).searchParams.get("redirect_uri") ?? "";
  const loopback = new URL(redirectUri).origin !== new URL(authUrl).origin;
  const result = await approveSignIn(authUrl, { account, followRedirect: loopback });
  if (!loopback) {
    if (!result.code) throw new Error(`no code after approving the sign-in: ${result.error ?? result.status}`);
    // Type the code once asked, as a person would, and leave the input open like a terminal.
    if (await stderrMatch(/Enter the authorization code:/)) child.stdin?.write(`${result.code}\n`);
    await stderrMatch(/Signed in|failed/);
  }
  child.stdin?.end();
  return { ...(await done), authUrl };
}

/** Waits for a pattern in what the child wrote to stderr so far or writes next; undefined once it exits. */
function waitForStderr(child: ChildProcess): (pattern: RegExp) => Promise<RegExpExecArray | undefined> {
  let seen = "";
  let exited = false;
  const waiters = new Set<() => void>();
  const wake = (): void => {
    for (const w of waiters) w();
  };
  child.stderr?.on("data", (chunk: Buffer | string) => {
    seen += String(chunk);
    wake();
  });
  child.on("close", () => {
    exited = true;
    wake();
  });
  return (pattern) =>
    new Promise((resolve) => {
      const check = (): void => {
        const match = pattern.exec(seen);
        if (!match && !exited) return;
        waiters.delete(check);
        resolve(match ?? undefined);
      };
      waiters.add(check);
      check();
    });
}

/** Output and exit code of a child process, killed after `timeoutMs`. */
export function collect(child: ChildProcess, timeoutMs: number): Promise<RunResult> {
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
