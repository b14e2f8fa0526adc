// The peers (gcloud, Python google-auth) run against the emulator through the Google proxy: where
// they are, the environment that keeps them on loopback, and a run under strace that lists every
// address they tried to reach. Used by test/peers/*.test.ts.
import { execFile, spawnSync } from "node:child_process";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import type { TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import type { Emulator } from "cred-auth/emulator";
import type { GoogleProxy } from "./google-proxy.ts";

export const ADC_TOKEN_SCRIPT = fileURLToPath(new URL("../peers/adc_token.py", import.meta.url));
/** The same for google-auth-library, run by this Node. */
export const ADC_TOKEN_NODE_SCRIPT = fileURLToPath(new URL("../peers/adc_token.mjs", import.meta.url));
/** Debian's python3-google-auth (1.5.1 on bookworm) is imported by the system interpreter. */
const SYSTEM_PYTHON = "/usr/bin/python3";

export type PeerName = "gcloud" | "python" | "debian-python" | "google-auth-library";

export interface PeerTools {
  /** The `gcloud` on PATH, resolved. */
  gcloud?: string;
  /** gcloud's bundled interpreter and the directory that holds its google-auth (2.39 in gcloud 528). */
  bundledPython?: { python: string; path: string; googleAuth: string };
  /** The system interpreter, when it imports google.auth (Debian's python3-google-auth). */
  debianPython?: { python: string; googleAuth: string };
  strace?: string;
  openssl?: string;
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const file = join(dir, name);
    if (dir && existsSync(file)) return realpathSync(file);
  }
  return undefined;
}

function googleAuthVersion(versionFile: string): string | undefined {
  if (!existsSync(versionFile)) return undefined;
  return /__version__\s*=\s*"([^"]+)"/.exec(readFileSync(versionFile, "utf8"))?.[1];
}

/** Finds the peers and the tools the peer tests need; nothing is installed or downloaded. */
export function findPeerTools(): PeerTools {
  const tools: PeerTools = {};
  const gcloud = onPath("gcloud");
  if (gcloud) {
    tools.gcloud = gcloud;
    // .../google-cloud-sdk/bin/gcloud -> .../google-cloud-sdk
    const root = dirname(dirname(gcloud));
    const python = join(root, "platform", "bundledpythonunix", "bin", "python3");
    const path = join(root, "lib", "third_party");
    const googleAuth = googleAuthVersion(join(path, "google", "auth", "version.py"));
    if (existsSync(python) && googleAuth) tools.bundledPython = { python, path, googleAuth };
  }
  if (existsSync(SYSTEM_PYTHON)) {
    const probe = spawnSync(
      SYSTEM_PYTHON,
      ["-c", "import importlib.metadata as m, google.auth; print(m.version('google-auth'))"],
      {
        encoding: "utf8",
        timeout: 20_000,
      },
    );
    if (probe.status === 0) tools.debianPython = { python: SYSTEM_PYTHON, googleAuth: probe.stdout.trim() };
  }
  const strace = onPath("strace");
  if (strace && spawnSync(strace, ["-f", "-qq", "-o", "/dev/null", "--", "true"]).status === 0) tools.strace = strace;
  tools.openssl = onPath("openssl");
  return tools;
}

/** What is missing to run `peer` (empty: nothing). */
export function missingFor(tools: PeerTools, peer: PeerName): string[] {
  const missing: string[] = [];
  if (peer === "gcloud" && !tools.gcloud) missing.push("gcloud (the google-cloud-cli package)");
  if (peer === "python" && !tools.bundledPython) missing.push("gcloud's bundled Python with google-auth");
  if (peer === "debian-python" && !tools.debianPython)
    missing.push("python3 with google-auth (Debian's python3-google-auth)");
  if (!tools.strace) missing.push("strace (a working one: ptrace allowed)");
  if (!tools.openssl) missing.push("openssl");
  return missing;
}

/**
 * Skips the test with a loud message when a tool is missing. Under CI a missing tool that .ci/run
 * installs (strace, openssl, Debian's google-auth) fails it instead. gcloud is the exception: it
 * comes with the machine's image (Google's google-cloud-cli package, not a Debian one, so .ci/run
 * cannot install it), and the peers are tested where they are present.
 */
export function requirePeer(t: TestContext, tools: PeerTools, peer: PeerName): boolean {
  const missing = missingFor(tools, peer);
  if (missing.length === 0) return true;
  const message = `peer test not run: ${missing.join(", ")} not found`;
  const onlyTheImage = missing.every((what) => what.startsWith("gcloud"));
  if (process.env.CI && !onlyTheImage) throw new Error(`${message}, and CI must run it (see .ci/run)`);
  process.stderr.write(`\n!!! ${message} (it runs when they are installed; under CI it fails instead)\n\n`);
  t.skip(message);
  return false;
}

/** Only loopback addresses may appear in a peer's connect/send calls. */
const LOOPBACK = /^(?:127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/** The addresses outside loopback in an strace log of connect/send calls. */
export function addressesOutsideLoopback(log: string): string[] {
  const seen = new Set<string>();
  for (const match of log.matchAll(/inet_addr\("([^"]*)"\)|inet_pton\(AF_INET6, "([^"]*)"/g)) {
    const address = match[1] ?? match[2] ?? "";
    if (!LOOPBACK.test(address)) seen.add(address);
  }
  return [...seen];
}

export interface PeerRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The access token the peer printed. */
  token: string;
  /** Python and google-auth-library: the credentials class the library chose, and the library's version. */
  credentials?: string;
  version?: string;
  /** Every non-loopback address the peer (or a child) tried to connect or send to: must be empty. */
  outsideLoopback: string[];
}

/**
 * The environment of a peer: nothing of ours, its own HOME and gcloud config, Google's hosts through
 * the proxy, its CA trusted, the GCE metadata server looked for on the emulator (gcloud and
 * google-auth otherwise resolve metadata.google.internal through DNS), no usage reports or update checks.
 */
export function peerEnv(
  emulator: Emulator,
  proxy: GoogleProxy,
  home: string,
  adcFile: string | undefined,
): NodeJS.ProcessEnv {
  const noProxy = "127.0.0.1,localhost,::1";
  return {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    LANG: "C.UTF-8",
    CLOUDSDK_CONFIG: join(home, "gcloud"),
    ...(adcFile ? { GOOGLE_APPLICATION_CREDENTIALS: adcFile } : {}),
    HTTPS_PROXY: proxy.url,
    https_proxy: proxy.url,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
    REQUESTS_CA_BUNDLE: proxy.caFile,
    CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE: proxy.caFile,
    GCE_METADATA_ROOT: emulator.host,
    GCE_METADATA_HOST: emulator.host,
    GCE_METADATA_IP: emulator.host,
    CLOUDSDK_CORE_DISABLE_USAGE_REPORTING: "true",
    CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK: "true",
    CLOUDSDK_CORE_DISABLE_PROMPTS: "1",
  };
}

function execute(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // Asynchronous on purpose: the proxy and the emulator answer from this process's event loop.
    execFile(file, args, { env, encoding: "utf8", timeout: 120_000, maxBuffer: 4 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Runs a peer once with the ADC file `adc` (JSON written to a fresh directory), under strace, and
 * returns what it printed and where it tried to go.
 */
export async function runPeer(
  peer: PeerName,
  tools: PeerTools,
  emulator: Emulator,
  proxy: GoogleProxy,
  adc: Record<string, unknown> | null,
): Promise<PeerRun> {
  const home = await mkdtemp(join(tmpdir(), `peer-${peer}-`));
  try {
    await mkdir(join(home, "gcloud"), { recursive: true, mode: 0o700 });
    const adcFile = join(home, "adc.json");
    if (adc) await writeFile(adcFile, JSON.stringify(adc, null, 2), { mode: 0o600 });
    const env = peerEnv(emulator, proxy, home, adc ? adcFile : undefined);
    const [command, args] = peerCommand(peer, tools);
    if (peer === "python") env.PYTHONPATH = tools.bundledPython?.path;
    if (peer === "google-auth-library") env.NODE_EXTRA_CA_CERTS = proxy.caFile;
    const log = join(home, "strace.log");
    const traced = ["-f", "-qq", "-s", "0", "-e", "trace=connect,sendto,sendmsg,sendmmsg", "-o", log, "--"];
    const result = await execute(tools.strace ?? "strace", [...traced, command, ...args], env);
    const outsideLoopback = addressesOutsideLoopback(await readFile(log, "utf8").catch(() => ""));
    return { ...result, ...printed(peer, result.stdout), outsideLoopback };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

function peerCommand(peer: PeerName, tools: PeerTools): [string, string[]] {
  if (peer === "gcloud") return [tools.gcloud ?? "gcloud", ["auth", "application-default", "print-access-token"]];
  if (peer === "python") return [tools.bundledPython?.python ?? "python3", [ADC_TOKEN_SCRIPT]];
  if (peer === "google-auth-library") return [process.execPath, [ADC_TOKEN_NODE_SCRIPT]];
  return [tools.debianPython?.python ?? SYSTEM_PYTHON, [ADC_TOKEN_SCRIPT]];
}

function printed(peer: PeerName, stdout: string): { token: string; credentials?: string; version?: string } {
  if (peer === "gcloud") return { token: stdout.trim() };
  try {
    const { token, credentials, version } = JSON.parse(stdout) as Record<string, string>;
    return { token: token ?? "", credentials, version };
  } catch {
    return { token: "" };
  }
}
