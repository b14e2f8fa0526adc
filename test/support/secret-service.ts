// A real Linux Secret Service for the keychain tests: gnome-keyring-daemon, unlocked, on a private
// D-Bus session bus (dbus-run-session), with its keyrings in a directory of its own. .ci/run installs
// gnome-keyring, dbus-daemon and libsecret-tools; where they are missing the tests skip with a loud
// line (and fail under CI).
import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A running Secret Service. */
export interface SecretService {
  /** The bus address (DBUS_SESSION_BUS_ADDRESS) to reach it. */
  address: string;
  /** `secret-tool search --all service cred-auth [username PATH]`: its stdout (empty when nothing matches). */
  search(path?: string): Promise<string>;
  /** The daemon's process id (to stop and continue it: a hanging keychain). */
  daemonPid(): Promise<number>;
  stop(): void;
}

const SCRIPT = `
export HOME="$KEYRING_HOME" XDG_DATA_HOME="$KEYRING_HOME/data" XDG_RUNTIME_DIR="$KEYRING_HOME"
printf test-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
echo "$DBUS_SESSION_BUS_ADDRESS"
exec sleep 3600
`;

/** Why a Secret Service cannot be started here, or undefined. */
export function secretServiceMissing(): string | undefined {
  for (const tool of ["dbus-run-session", "gnome-keyring-daemon", "secret-tool", "gdbus"]) {
    if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) return `${tool} is not installed`;
  }
  return undefined;
}

/** Starts one; undefined (after a loud line, or an error under CI) when it cannot run here. */
export async function startSecretService(t: { skip(message: string): void }): Promise<SecretService | undefined> {
  const missing = secretServiceMissing();
  if (missing) {
    const why = `no Secret Service for the keychain tests: ${missing}`;
    if (process.env.CI) throw new Error(`${why}; .ci/run installs gnome-keyring, dbus-daemon and libsecret-tools.`);
    console.error(`SKIPPED: ${why}.`);
    t.skip(why);
    return undefined;
  }
  const home = mkdtempSync(join(tmpdir(), "cred-auth-keyring-"));
  const child: ChildProcess = spawn("dbus-run-session", ["--", "sh", "-c", SCRIPT], {
    env: { PATH: process.env.PATH, KEYRING_HOME: home },
    stdio: ["ignore", "pipe", "ignore"],
    detached: true,
  });
  const address = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("\n")) resolve(out.trim());
    });
    child.on("exit", () => reject(new Error("dbus-run-session ended before giving its address")));
  });
  const env = { PATH: process.env.PATH, DBUS_SESSION_BUS_ADDRESS: address };
  await daemonPid(env); // before any test asks it (else D-Bus would start a second, locked daemon)
  const stop = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL"); // its own process group: the bus, the daemon, sleep
    } catch {
      // already gone
    }
    rmSync(home, { recursive: true, force: true });
  };
  return {
    address,
    stop,
    async search(path) {
      const args = ["search", "--all", "service", "cred-auth", ...(path ? ["username", path] : [])];
      const { stdout, stderr } = await run("secret-tool", args, { env });
      return `${stdout}${stderr}`;
    },
    daemonPid: () => daemonPid(env),
  };
}

/** The daemon takes its bus name a moment after it says it is unlocked: ask until it has (10 s). */
async function daemonPid(env: NodeJS.ProcessEnv): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ownerPid(env);
    } catch (error) {
      if (attempt >= 40) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** The process id of the Secret Service's bus name on the bus `env` names. */
async function ownerPid(env: NodeJS.ProcessEnv): Promise<number> {
  const { stdout } = await run(
    "gdbus",
    [
      "call",
      "--session",
      "--dest",
      "org.freedesktop.DBus",
      "--object-path",
      "/org/freedesktop/DBus",
      "--method",
      "org.freedesktop.DBus.GetConnectionUnixProcessID",
      "org.freedesktop.secrets",
    ],
    { env },
  );
  return Number(/\d+/.exec(stdout.replace(/^\(uint32 /, ""))?.[0]);
}
