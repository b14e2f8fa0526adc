// The operating system's keychain (macOS Keychain, Windows Credential Manager, Linux Secret
// Service), through @napi-rs/keyring run in a short-lived child process: a keychain that is locked,
// prompts or hangs is killed at a deadline instead of blocking the caller's process (a native call
// cannot be abandoned, and a pending one would keep Node from exiting). The binding is never loaded
// into this process: importing this module loads nothing, a call spawns one `node` for one operation.
// Secrets travel over the child's stdin and stdout, never its arguments (which `ps` shows).
// docs/security.md says why this binding and this shape (measured).
import { execPath } from "node:process";
import { type SpawnSyncReturns, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";

/** How long one keychain operation may take before it counts as unusable, in milliseconds. */
export const KEYCHAIN_TIMEOUT_MS = 4000;

/** One operation of the child. */
export type KeychainRequest =
  | { op: "get"; account: string }
  | { op: "set"; account: string; secret: string }
  | { op: "delete"; account: string }
  | { op: "accounts" };

/** What the child answered, or why there is no answer. */
export type KeychainReply =
  | { ok: true; secret?: string | null; deleted?: boolean; accounts?: string[] }
  | { ok: false; why: string };

// The child: read one request from stdin, run it with the binding, write one JSON reply. Linux is
// pinned to the Secret Service: the binding's fallback, the kernel keyring, forgets at logout.
const CHILD = `
const { Entry, findCredentials } = require(process.argv[1]);
const opts = { linux: { store: "secret-service" } };
let input = "";
process.stdin.setEncoding("utf8").on("data", (c) => (input += c)).on("end", () => {
  let reply;
  try {
    const r = JSON.parse(input);
    const e = r.account === undefined ? undefined : new Entry(r.service, r.account, opts);
    if (r.op === "get") reply = { ok: true, secret: e.getPassword() };
    else if (r.op === "set") { e.setPassword(r.secret); reply = { ok: true }; }
    else if (r.op === "delete") reply = { ok: true, deleted: e.deleteCredential() };
    else reply = { ok: true, accounts: findCredentials(r.service).map((c) => c.account) };
  } catch (error) { reply = { ok: false, why: String(error && error.message || error).split("\\n")[0].slice(0, 200) }; }
  process.stdout.write(JSON.stringify(reply));
});
`;

/** Runs one keychain operation on `service`'s entries, bounded; never throws (a failure is `{ ok: false, why }`). */
export function keychain(
  service: string,
  request: KeychainRequest,
  env: NodeJS.ProcessEnv = process.env,
): Promise<KeychainReply> {
  const child = childCommand(env);
  if ("why" in child) return Promise.resolve({ ok: false, why: child.why });
  return new Promise((resolve) => {
    const proc = spawn(child.node, ["-e", CHILD, child.binding], {
      stdio: ["pipe", "pipe", "ignore"],
      env: childEnv(env),
    });
    let out = "";
    const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs(env));
    proc.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    proc.on("error", (error) => {
      clearTimeout(timer);
      resolve({ ok: false, why: error.message });
    });
    proc.on("close", (_code, signal) => {
      clearTimeout(timer);
      resolve(signal === "SIGKILL" ? timedOut(env) : replyOf(out));
    });
    proc.stdin.on("error", () => {}); // a child that died early: its close says why
    proc.stdin.end(JSON.stringify({ service, ...request }));
  });
}

/** {@link keychain}, synchronously (for readers that are synchronous: print-identity-token, status, revoke). */
export function keychainSync(
  service: string,
  request: KeychainRequest,
  env: NodeJS.ProcessEnv = process.env,
): KeychainReply {
  const child = childCommand(env);
  if ("why" in child) return { ok: false, why: child.why };
  const result: SpawnSyncReturns<string> = spawnSync(child.node, ["-e", CHILD, child.binding], {
    input: JSON.stringify({ service, ...request }),
    encoding: "utf8",
    stdio: ["pipe", "pipe", "ignore"],
    timeout: timeoutMs(env),
    killSignal: "SIGKILL",
    env: childEnv(env),
  });
  if (result.error && (result.error as NodeJS.ErrnoException).code === "ETIMEDOUT") return timedOut(env);
  if (result.error) return { ok: false, why: result.error.message };
  return replyOf(result.stdout);
}

/**
 * Why no keychain can be asked here, before spawning anything: on Linux and the BSDs the Secret
 * Service lives on the session's D-Bus, so without one (a container, CI, an SSH session) there is
 * none to ask.
 */
export function keychainAbsence(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (process.platform === "darwin" || process.platform === "win32") return undefined;
  if (env.DBUS_SESSION_BUS_ADDRESS) return undefined;
  return "no Secret Service: this session has no D-Bus (DBUS_SESSION_BUS_ADDRESS is not set)";
}

/** The child's environment: the caller's, without NODE_OPTIONS (a debugger's port, a loader: not for this child). */
function childEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _, ...rest } = env;
  return rest;
}

function childCommand(env: NodeJS.ProcessEnv): { node: string; binding: string } | { why: string } {
  const absent = keychainAbsence(env);
  if (absent) return { why: absent };
  let binding: string;
  try {
    binding = require.resolve("@napi-rs/keyring");
  } catch {
    return { why: "the @napi-rs/keyring package is not installed" };
  }
  const node = nodeExecutable(env);
  return node === undefined ? { why: "no node executable to run the keychain binding with" } : { node, binding };
}

/** This process's node, or (under Deno or Bun, whose binaries take other arguments) a `node` on PATH. */
function nodeExecutable(env: NodeJS.ProcessEnv): string | undefined {
  if (!("deno" in process.versions) && !("bun" in process.versions)) return execPath;
  const name = process.platform === "win32" ? "node.exe" : "node";
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

function timeoutMs(env: NodeJS.ProcessEnv): number {
  const value = Number(env.CRED_AUTH_KEYCHAIN_TIMEOUT_MS);
  return Number.isInteger(value) && value > 0 ? value : KEYCHAIN_TIMEOUT_MS;
}

function timedOut(env: NodeJS.ProcessEnv): KeychainReply {
  return { ok: false, why: `the keychain did not answer within ${timeoutMs(env)} ms (locked, prompting or hung)` };
}

function replyOf(out: string): KeychainReply {
  try {
    const reply = JSON.parse(out) as KeychainReply;
    if (typeof reply === "object" && reply !== null && typeof reply.ok === "boolean") return reply;
  } catch {
    // below
  }
  return { ok: false, why: "the keychain binding could not run on this platform" };
}
