// A real Linux Secret Service for the keychain tests: gnome-keyring-daemon, unlocked, on a private
// D-Bus session bus (dbus-run-session), with its keyrings in a directory of its own. .ci/run installs
// gnome-keyring, dbus-daemon and libsecret-tools; where they are missing the tests skip with a loud
// line (and fail under CI).
import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
  /** Every entry of service `cred-auth`: its account and secret. */
  entries(): Promise<{ account: string; secret: string }[]>;
  /** Writes an entry as @napi-rs/keyring does (as cred-auth before this version, or another program). */
  plant(account: string, secret: string): Promise<void>;
  /** Kills the daemon and starts a new one on the same bus, its keyring locked (a restart without a login). */
  restart(): Promise<void>;
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
    // The bus's own environment is what D-Bus starts a stopped daemon with: the same keyring, as at a login.
    env: {
      PATH: process.env.PATH,
      KEYRING_HOME: home,
      HOME: home,
      XDG_DATA_HOME: join(home, "data"),
      XDG_RUNTIME_DIR: home,
    },
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
    async entries() {
      const { stdout } = await run("secret-tool", ["search", "--all", "--unlock", "service", "cred-auth"], { env });
      return stdout
        .split(/^\[/m)
        .slice(1)
        .map((item) => ({
          account: /^label = keyring:(.*)@cred-auth$/m.exec(item)?.[1] ?? "", // the binding's label: the attributes go to stderr
          secret: /^secret = (.*)$/m.exec(item)?.[1] ?? "",
        }));
    },
    async plant(account, secret) {
      const script = `const { Entry } = require("@napi-rs/keyring"); new Entry("cred-auth", process.argv[1], { linux: { store: "secret-service" } }).setPassword(process.argv[2]);`;
      await run(process.execPath, ["-e", script, account, secret], { env });
    },
    async restart() {
      process.kill(await daemonPid(env), "SIGKILL");
      await run("sh", ["-c", "gnome-keyring-daemon --start --components=secrets >/dev/null 2>&1"], {
        env: { ...env, HOME: home, XDG_DATA_HOME: join(home, "data"), XDG_RUNTIME_DIR: home },
      });
      await daemonPid(env);
    },
  };
}

/**
 * A session bus at a socket file that another user (uid 65534) listens on, with a Secret Service of
 * theirs: the bus a local attacker puts where a victim's bus used to be. With `ownSocket`, the bus is
 * the caller's own but the Secret Service on it is uid 65534's. Its `entries()` are the attacker's.
 */
export async function startForeignBus(
  t: { after(fn: () => void): void },
  ownSocket: boolean,
): Promise<{ address: string; entries(): Promise<string> }> {
  const dir = mkdtempSync(join(tmpdir(), "cred-auth-foreign-bus-"));
  chmodSync(dir, 0o755);
  for (const sub of ["", "/home"]) {
    mkdirSync(`${dir}${sub}`, { recursive: true });
    chownSync(`${dir}${sub}`, 65534, 65534);
  }
  const socket = join(dir, "bus");
  const config = join(dir, "bus.conf");
  writeFileSync(
    config,
    `<busconfig><type>session</type><listen>unix:path=${socket}</listen><auth>EXTERNAL</auth>
     <policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy></busconfig>`,
  );
  const as65534 = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"];
  const bus = spawn(
    ownSocket ? "dbus-daemon" : as65534[0],
    [...(ownSocket ? [] : as65534.slice(1).concat("dbus-daemon")), `--config-file=${config}`, "--nofork"],
    {
      stdio: "ignore",
      detached: true,
    },
  );
  const address = `unix:path=${socket}`;
  const attacker = {
    PATH: process.env.PATH,
    DBUS_SESSION_BUS_ADDRESS: address,
    HOME: `${dir}/home`,
    XDG_DATA_HOME: `${dir}/home`,
    XDG_RUNTIME_DIR: `${dir}/home`,
  };
  await poll(() => existsSync(socket) || undefined, "the other user's bus did not start");
  const keyring = spawn(
    "sh",
    ["-c", `printf pw | ${as65534.join(" ")} gnome-keyring-daemon --unlock --components=secrets --foreground`],
    {
      env: attacker,
      stdio: "ignore",
      detached: true,
    },
  );
  // Asked as uid 65534: a bus that uid runs answers that uid (and the caller's own bus answers anyone).
  const nameOwner = ["gdbus", ...busCall("GetNameOwner")];
  await poll(
    () =>
      spawnSync(as65534[0], [...as65534.slice(1), ...nameOwner], { env: attacker, timeout: 5000 }).status === 0 ||
      undefined,
    "the other user's Secret Service did not start",
  );
  t.after(() => {
    for (const child of [keyring, bus]) {
      try {
        process.kill(-(child.pid ?? 0), "SIGKILL");
      } catch {}
    }
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    address,
    async entries() {
      const { stdout } = await run(
        as65534[0],
        [...as65534.slice(1), "secret-tool", "search", "--all", "service", "cred-auth"],
        { env: attacker },
      );
      return stdout;
    },
  };
}

/** The daemon takes its bus name a moment after it says it is unlocked: ask until it has (10 s). */
async function daemonPid(env: NodeJS.ProcessEnv): Promise<number> {
  return poll(() => ownerPid(env).catch(() => undefined), "the Secret Service took no bus name");
}

/** Asks `check` every 250 ms until it gives a value, for 10 s at most (daemons start at their own pace). */
async function poll<T>(check: () => T | undefined | Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 1; attempt <= 40; attempt++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(what);
}

/** The process id of the Secret Service's bus name on the bus `env` names. */
async function ownerPid(env: NodeJS.ProcessEnv): Promise<number> {
  const { stdout } = await run("gdbus", busCall("GetConnectionUnixProcessID"), { env });
  return Number(/\d+/.exec(stdout.replace(/^\(uint32 /, ""))?.[0]);
}

/** gdbus's arguments asking the session bus `method` about the Secret Service's name. */
function busCall(method: string): string[] {
  const bus = ["--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus"];
  return ["call", "--session", ...bus, "--method", `org.freedesktop.DBus.${method}`, "org.freedesktop.secrets"];
}
