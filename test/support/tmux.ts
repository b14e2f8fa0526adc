// A real terminal for `cred-auth login` (tmux): a fresh session per login (200x50 unless told),
// with a clean environment pointed at a test emulator, the screen as a person would select it,
// every byte the program wrote to the terminal, stderr redirected to a file when asked, the exit
// code. Shared by the terminal tests in test/cli/.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before } from "node:test";
import { fileURLToPath } from "node:url";
import { startEmulator } from "cred-auth/emulator";

const cli = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

/** Whether tmux is installed. */
export const hasTmux = spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;

/**
 * tmux on its own `socket`, throwing what it says on failure. A new-session is started again when
 * it reached a server on its way out: the last session just killed (or `kill-server` just run),
 * the server exits, and a client that connected meanwhile gets "server exited unexpectedly" (a CI
 * run met it). The next attempt starts a new server.
 */
export function tmuxOn(socket: string): (...args: string[]) => string {
  const run = (args: string[]): string => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
  return (...args) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return run(args);
      } catch (error) {
        const stderr = String((error as { stderr?: unknown }).stderr ?? "");
        if (args[0] !== "new-session" || attempt === 5 || !stderr.includes("server exited unexpectedly")) throw error;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100 * attempt);
      }
    }
  };
}

export interface Login {
  name: string;
  destination: string;
  ports: { first: number; last: number };
  /** The pane's text, soft-wrapped lines joined (as a person selecting it would get it). */
  screen(): string;
  /** The pane's whole history, scrollback included, lines as the terminal shows them (not joined). */
  history(): string;
  /** Every byte written to the terminal so far (tmux pipe-pane), escape sequences included. */
  raw(): string;
  /** What the command wrote to its redirected stderr (with `stderrToFile`), else "". */
  log(): string;
  /** The exit code, once the command has ended (written by the shell around it). */
  exitCode(): number | undefined;
}

/** How a login's terminal is set up. */
export interface TerminalOptions {
  /** The terminal's size (default 200x50). */
  columns?: number;
  rows?: number;
  /** `2> FILE`: stderr goes to a log file, as `cred-auth login ... 2>log` does. */
  stderrToFile?: boolean;
}

/** Which `cred-auth` a login runs: by default this checkout's dist/cli.js with this Node. */
export interface Launcher {
  /** The directory the command starts in. */
  cwd: string;
  /** The command before `login DEST` (`npx --no-install cred-auth` in an installed project). */
  command: readonly string[];
}

/**
 * Registers the test file's hooks (an emulator, a work directory, a tmux server on its own
 * socket killed after each test) and returns what the tests drive. Nothing starts when `skip`.
 */
export function tmuxLogins(prefix: string, skip: string | false, launcher?: () => Launcher) {
  const socket = `cred-auth-${prefix}-${process.pid}`;
  let work: string;
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  let sessions = 0;

  before(async () => {
    if (skip) return;
    work = mkdtempSync(join(tmpdir(), `cred-auth-${prefix}-`));
    emulator = await startEmulator();
  });
  afterEach(() => {
    if (!skip) spawnSync("tmux", ["-L", socket, "kill-server"], { stdio: "ignore" });
  });
  after(async () => {
    await emulator?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const tmux = tmuxOn(socket);
  const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;
  /** Starts `cred-auth login DEST` in a fresh tmux session (200x50 unless `terminal` says). */
  function startLogin(env: Record<string, string | undefined>, terminal: TerminalOptions = {}): Login {
    const name = `login${++sessions}`;
    const home = mkdtempSync(join(work, "home-"));
    const destination = join(work, `${name}.json`);
    const first = 30000 + Math.floor(Math.random() * 3000) * 10;
    const ports = { first, last: first + 9 };
    // A clean environment: CI variables of the test run would make the CLI a plain pipe.
    const variables = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      CRED_AUTH_EMULATOR_HOST: emulator.host,
      CRED_AUTH_LOOPBACK_PORTS: `${ports.first}-${ports.last}`,
      CRED_AUTH_TOKEN_CACHE: "off",
      BROWSER: "none",
      TERM: "xterm-256color",
      ...env,
    };
    const assignments = Object.entries(variables)
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([k, v]) => `${k}=${shellQuote(v)}`)
      .join(" ");
    const exitFile = join(work, `${name}.exit`);
    const logFile = join(work, `${name}.log`);
    const rawFile = join(work, `${name}.raw`);
    const redirect = terminal.stderrToFile ? ` 2> ${shellQuote(logFile)}` : "";
    // The shell records the exit code: tmux's #{pane_dead_status} is sometimes empty. It waits for
    // a key first, so that tmux's pipe-pane is attached before the command writes anything.
    const { cwd, command: program } = launcher?.() ?? { cwd: process.cwd(), command: [process.execPath, cli] };
    const run = program.map(shellQuote).join(" ");
    const command = `read -r _; cd ${shellQuote(cwd)} && env -i ${assignments} ${run} login ${shellQuote(destination)}${redirect}; echo $? > ${shellQuote(exitFile)}`;
    const [columns, rows] = [String(terminal.columns ?? 200), String(terminal.rows ?? 50)];
    tmux(
      "new-session",
      "-d",
      "-x",
      columns,
      "-y",
      rows,
      "-s",
      name,
      command,
      ";",
      "set-option",
      "-t",
      name,
      "remain-on-exit",
      "on",
    );
    tmux("pipe-pane", "-o", "-t", name, `cat >> ${shellQuote(rawFile)}`);
    tmux("send-keys", "-t", name, "Enter");
    const read = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : "");
    return {
      name,
      destination,
      ports,
      screen: () => tmux("capture-pane", "-p", "-J", "-t", name),
      history: () => tmux("capture-pane", "-p", "-S", "-", "-t", name),
      raw: () => read(rawFile),
      log: () => read(logFile),
      exitCode() {
        const recorded = existsSync(exitFile) ? readFileSync(exitFile, "utf8").trim() : "";
        return recorded === "" ? undefined : Number(recorded);
      },
    };
  }

  /** Polls (bounded) until `read` returns something. */
  async function until<T>(read: () => T | undefined, what: string, screen?: () => string): Promise<T> {
    for (let i = 0; i < 300; i++) {
      const value = read();
      if (value !== undefined) return value;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.fail(`never happened: ${what}${screen ? `\n--- screen ---\n${screen()}` : ""}`);
  }

  /** The sign-in URL: a whole line of the screen. */
  function urlOn(screen: string): string | undefined {
    return screen
      .split("\n")
      .find((line) => /^http:\/\/127\.0\.0\.1:\d+\/o\/oauth2\/v2\/auth\?\S+$/.test(line.trim()))
      ?.trim();
  }

  return { tmux, startLogin, until, urlOn, emulator: () => emulator, work: () => work };
}
