// Helpers for running the examples in child processes against the emulator.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after } from "node:test";
import { DEMO_CLIENT } from "cred-auth/emulator";
import type { Emulator } from "cred-auth/emulator";

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
export function exampleEnv(home: string, emulator: Emulator, extra: Record<string, string> = {}): Record<string, string> {
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

/** Runs `examples/<name>` with Node's type stripping; kills it after `timeoutMs`. */
export function runExample(name: string, args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<RunResult> {
  const child = spawn(process.execPath, ["--disable-warning=ExperimentalWarning", join(ROOT, "examples", name), ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return collect(child, timeoutMs);
}

/** Output and exit code of a child process, killed after `timeoutMs`. */
export function collect(child: ReturnType<typeof spawn>, timeoutMs: number): Promise<RunResult> {
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
