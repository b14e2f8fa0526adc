// The operating system's keychain (macOS Keychain, Windows Credential Manager, Linux Secret Service)
// through @napi-rs/keyring, run in a helper `node` child: a keychain that is locked, prompts or hangs
// is killed at a deadline instead of blocking this process, and the binding never loads here. One
// helper per process at most, shared by the calls running at once and ended when the last one ends.
// Secrets cross only the helper's stdin and stdout. On Linux the helper first proves that the session
// bus and its Secret Service are the user's own (docs/security.md), before any secret is sent to it.
import { execPath } from "node:process";
import { type ChildProcessByStdio, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { Readable, Writable } from "node:stream";

/** How long one keychain operation may take, in milliseconds (`CRED_AUTH_KEYCHAIN_TIMEOUT_MS`). */
const KEYCHAIN_TIMEOUT_MS = 4000;

/** One operation of the helper. */
export type KeychainRequest =
  | { op: "get"; account: string }
  | { op: "set"; account: string; secret: string }
  | { op: "delete"; account: string }
  | { op: "list" };

/** What the helper answered, or why there is no answer (no keychain of the user's own, locked, hung). */
export type KeychainReply = { ok: true; secret?: string | null; accounts?: string[] } | { ok: false; why: string };

/** Asks the shared helper; a failure is a reply, never a throw. */
export type AskKeychain = (request: KeychainRequest) => Promise<KeychainReply>;

// The helper: proves the bus is the user's (Linux and the BSDs), says ready, then answers one JSON
// request per line. Linux is pinned to the Secret Service: the kernel keyring forgets at logout.
const CHILD = String.raw`
const [binding, service] = process.argv.slice(1), uid = process.getuid && process.getuid();
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
// The binding's words for a keyring it could not unlock (gnome-keyring with no prompt to show: a
// restarted daemon, a session without a display) blame a prompt nobody saw.
const words = (m) => /prompt was dismissed|IsLocked/.test(m) ? "the keychain is locked, and no unlock prompt could be shown here"
  : /no result found/.test(m) ? "the keychain has no unlocked keyring to keep it in, and no prompt could be shown here to unlock or create one"
  : m.replace(/^Couldn't access platform storage: /, "").slice(0, 200);
function w() { const b = [], o = { b,
  al(n) { while (b.length % n) b.push(0); return o; }, y(v) { b.push(v); return o; },
  u(v) { o.al(4); b.push(v & 255, (v >>> 8) & 255, (v >>> 16) & 255, v >>> 24); return o; },
  s(v) { const d = Buffer.from(v); o.u(d.length); b.push(...d, 0); return o; },
  g(v) { b.push(v.length, ...Buffer.from(v), 0); return o; } }; o.o = o.s; return o; }
function call(serial, member, sig, args) {
  const body = w(); [...sig].forEach((t, i) => body[t](args[i]));
  const h = w().y(108).y(1).y(0).y(1).u(body.b.length).u(serial).u(0);
  for (const [code, t, v] of [[1, "o", "/org/freedesktop/DBus"], [2, "s", "org.freedesktop.DBus"], [3, "s", member], [6, "s", "org.freedesktop.DBus"], ...(sig ? [[8, "g", sig]] : [])])
    h.al(8).y(code).g(t)[t](v);
  const n = h.b.length - 16; h.b.splice(12, 4, n & 255, (n >>> 8) & 255, 0, 0);
  return Buffer.from([...h.al(8).b, ...body.b]);
}
function secretsOwner(path) { return new Promise((resolve, reject) => {
  const sock = require("node:net").connect(path), replies = [];
  let buf = Buffer.alloc(0), authed = false;
  const ask = (serial, member, sig, args) => { sock.write(call(serial, member, sig, args)); return new Promise((r) => (replies[serial] = r)); };
  sock.on("error", reject);
  sock.on("connect", () => sock.write("\0AUTH EXTERNAL " + Buffer.from(String(uid)).toString("hex") + "\r\nBEGIN\r\n"));
  sock.on("data", async (d) => {
    buf = Buffer.concat([buf, d]);
    if (!authed) {
      const i = buf.indexOf("\r\n"); if (i < 0) return;
      if (!buf.subarray(0, i).toString().startsWith("OK ")) return reject(new Error("the session bus refused this user"));
      authed = true; buf = buf.subarray(i + 2);
      ask(1, "Hello", "", []).then(() => ask(2, "StartServiceByName", "su", ["org.freedesktop.secrets", 0]))
        .then(() => ask(3, "GetConnectionUnixUser", "s", ["org.freedesktop.secrets"]))
        .then(([type, body, r32]) => { sock.destroy(); type === 2 ? resolve(r32(body, 0)) : reject(new Error("no Secret Service answers on the session bus")); });
    }
    while (buf.length >= 16) {
      const le = buf[0] === 108, r32 = (b, p) => (le ? b.readUInt32LE(p) : b.readUInt32BE(p));
      const fields = r32(buf, 12), start = 16 + fields + ((8 - (fields % 8)) % 8), end = start + r32(buf, 4);
      if (buf.length < end) return;
      let p = 16, to;
      while (p < 16 + fields) {
        p = (p + 7) & ~7; const code = buf[p], t = String.fromCharCode(buf[p + 2]); p += 4;
        if (t === "g") p += buf[p] + 2; else { p = (p + 3) & ~3; if (code === 5) to = r32(buf, p); p += t === "u" ? 4 : r32(buf, p) + 5; }
      }
      const reply = [buf[1], buf.subarray(start, end), r32]; buf = buf.subarray(end);
      if (to && replies[to]) replies[to](reply);
    }
  });
}); }
async function busProblem() {
  if (process.platform === "darwin" || process.platform === "win32") return;
  const m = /^unix:(?:[^;]*,)?path=([^,;]+)[^;]*$/.exec(process.env.DBUS_SESSION_BUS_ADDRESS || "");
  if (!m) return "the session bus is not at a socket file whose owner can be checked";
  const path = decodeURIComponent(m[1]); let st;
  try { st = require("node:fs").lstatSync(path); } catch { return "the session bus is gone (" + path + " is missing)"; }
  if (!st.isSocket() || st.uid !== uid) return "the session bus at " + path + " belongs to another user (uid " + st.uid + ")";
  const owner = await secretsOwner(path);
  if (owner !== uid) return "the Secret Service on the session bus belongs to another user (uid " + owner + ")";
}
busProblem().catch((e) => e.message).then((why) => {
  if (why) return say({ ok: false, why });
  let Entry, findCredentials;
  try { ({ Entry, findCredentials } = require(binding)); } catch { return say({ ok: false, why: "the keychain binding could not load on this platform" }); }
  say({ ready: true });
  const opts = { linux: { store: "secret-service" } };
  require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
    try {
      const r = JSON.parse(line), e = r.account === undefined ? undefined : new Entry(service, r.account, opts);
      if (r.op === "get") say({ ok: true, secret: e.getPassword() });
      else if (r.op === "set") { e.setPassword(r.secret); say({ ok: true }); }
      else if (r.op === "delete") { e.deleteCredential(); say({ ok: true }); }
      else say({ ok: true, accounts: findCredentials(service).map((c) => c.account) });
    } catch (error) { say({ ok: false, why: words(String((error && error.message) || error).split("\n")[0]) }); }
  });
});
`;

/** The helper: its start's refusal (if any), the questions waiting for their answer, the calls sharing it, why it ended. */
interface Helper {
  child: ChildProcessByStdio<Writable, Readable, null>;
  ready: Promise<KeychainReply | undefined>;
  waiting: ((reply: KeychainReply) => void)[];
  calls: number;
  ended?: KeychainReply;
}

let helper: Helper | undefined;

/**
 * Runs `call` with a way to ask the keychain's `service`: the process's one helper, started on the
 * first question and ended when the last call that shares it ends.
 */
export async function withKeychain<T>(
  service: string,
  call: (ask: AskKeychain) => Promise<T>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<T> {
  let mine: Helper | undefined;
  const ask: AskKeychain = async (request) => {
    mine ??= joinHelper(env, service);
    return mine === undefined ? { ok: false, why: childCommand(env).why ?? "" } : request_(mine, request, env);
  };
  try {
    return await call(ask);
  } finally {
    if (mine !== undefined && --mine.calls === 0) {
      mine.child.stdin.end();
      if (helper === mine) helper = undefined;
    }
  }
}

/** One keychain operation, synchronously (for readers that are: print-token, status, revoke). */
export function keychainSync(
  service: string,
  request: KeychainRequest,
  env: NodeJS.ProcessEnv = process.env,
): KeychainReply {
  const command = childCommand(env);
  if (command.why !== undefined) return { ok: false, why: command.why };
  const result = spawnSync(command.node, ["-e", CHILD, command.binding, service], {
    input: `${JSON.stringify(request)}\n`,
    encoding: "utf8",
    stdio: ["pipe", "pipe", "ignore"],
    timeout: startMs(env) + timeoutMs(env),
    killSignal: "SIGKILL",
    env: childEnv(env),
  });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === "ETIMEDOUT") return timedOut(env);
  const [first = "", second = ""] = (result.stdout ?? "").split("\n");
  const reply = replyOf(first);
  return "ready" in reply ? answerOf(second) : reply;
}

/**
 * Why no keychain can be asked here, before starting anything: on Linux and the BSDs the Secret
 * Service lives on the session's D-Bus, so without one (a container, CI, SSH) there is none to ask.
 */
export function keychainAbsence(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (process.platform === "darwin" || process.platform === "win32" || env.DBUS_SESSION_BUS_ADDRESS) return undefined;
  return "no Secret Service: this session has no D-Bus (DBUS_SESSION_BUS_ADDRESS is not set)";
}

/** The shared helper (started now if there is none), counted as used by one more call; undefined when none can run. */
function joinHelper(env: NodeJS.ProcessEnv, service: string): Helper | undefined {
  if (helper === undefined) {
    const command = childCommand(env);
    if (command.why !== undefined) return undefined;
    const child = spawn(command.node, ["-e", CHILD, command.binding, service], {
      stdio: ["pipe", "pipe", "ignore"],
      env: childEnv(env),
    });
    const started: Helper = { child, ready: Promise.resolve(undefined), waiting: [], calls: 0 };
    started.ready = new Promise((resolve) => {
      const timer = setTimeout(() => child.kill("SIGKILL"), startMs(env));
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
        for (let end = out.indexOf("\n"); end >= 0; end = out.indexOf("\n")) {
          const reply = replyOf(out.slice(0, end));
          out = out.slice(end + 1);
          if ("ready" in reply) {
            clearTimeout(timer);
            resolve(undefined);
          } else if (started.waiting.length === 0) resolve(reply);
          else started.waiting.shift()?.(reply);
        }
      });
      child.on("close", (_code, signal) => {
        clearTimeout(timer);
        const reply = signal === "SIGKILL" ? timedOut(env) : { ok: false as const, why: "the keychain helper ended" };
        started.ended = reply;
        resolve(reply);
        for (const waiter of started.waiting.splice(0)) waiter(reply);
        if (helper === started) helper = undefined;
      });
      child.on("error", () => {}); // its close says why
      child.stdin.on("error", () => {});
    });
    helper = started;
  }
  helper.calls++;
  return helper;
}

async function request_(mine: Helper, request: KeychainRequest, env: NodeJS.ProcessEnv): Promise<KeychainReply> {
  const refused = (await mine.ready) ?? mine.ended;
  if (refused !== undefined) return refused;
  return new Promise((resolve) => {
    const timer = setTimeout(() => mine.child.kill("SIGKILL"), timeoutMs(env));
    mine.waiting.push((reply) => {
      clearTimeout(timer);
      resolve(reply);
    });
    mine.child.stdin.write(`${JSON.stringify(request)}\n`);
  });
}

/** The helper's environment: the caller's, without NODE_OPTIONS (a debugger's port, a loader: not for it). */
const childEnv = ({ NODE_OPTIONS: _, ...rest }: NodeJS.ProcessEnv): NodeJS.ProcessEnv => rest;

function childCommand(env: NodeJS.ProcessEnv): { node: string; binding: string; why?: undefined } | { why: string } {
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
  for (const dir of (env.PATH ?? "").split(delimiter)) if (dir && existsSync(join(dir, name))) return join(dir, name);
  return undefined;
}

function timeoutMs(env: NodeJS.ProcessEnv): number {
  const value = Number(env.CRED_AUTH_KEYCHAIN_TIMEOUT_MS);
  return Number.isInteger(value) && value > 0 ? value : KEYCHAIN_TIMEOUT_MS;
}

/** Starting the helper (node, the binding, the bus's check) may take longer on a loaded machine than one operation. */
function startMs(env: NodeJS.ProcessEnv): number {
  return 4 * timeoutMs(env);
}

function timedOut(env: NodeJS.ProcessEnv): KeychainReply {
  return { ok: false, why: `the keychain did not answer within ${timeoutMs(env)} ms (locked, prompting or hung)` };
}

/** A line of the helper's: ready, or an answer (anything else: the helper could not run). */
function replyOf(line: string): KeychainReply | { ready: true } {
  try {
    const reply = JSON.parse(line) as KeychainReply | { ready: true };
    if ("ready" in reply || typeof reply.ok === "boolean") return reply;
  } catch {
    // below
  }
  return { ok: false, why: "the keychain binding could not run on this platform" };
}

function answerOf(line: string): KeychainReply {
  const reply = replyOf(line);
  return "ready" in reply ? { ok: false, why: "the keychain helper answered twice" } : reply;
}
