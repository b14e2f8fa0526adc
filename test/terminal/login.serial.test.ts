// `cred-auth login` in a real terminal (tmux): the ink face, the URL read off the screen,
// the consent page driven like a browser, a pasted code typed with send-keys, and Ctrl+C.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { approveSignIn, startEmulator } from "cred-auth/emulator";

const cli = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));
const hasTmux = spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;
const skip = hasTmux || process.env.CI ? false : "tmux is not installed";
if (skip) console.warn(`\n!!! SKIPPING the terminal tests: ${skip}. They run under CI. !!!\n`);

const socket = `cred-auth-test-${process.pid}`;
let work: string;
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let sessions = 0;

before(async () => {
  if (skip) return;
  work = mkdtempSync(join(tmpdir(), "cred-auth-tmux-"));
  emulator = await startEmulator();
});

afterEach(() => {
  if (!skip) spawnSync("tmux", ["-L", socket, "kill-server"], { stdio: "ignore" });
});

after(async () => {
  await emulator?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const tmux = (...args: string[]): string => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

interface Login {
  name: string;
  destination: string;
  ports: { first: number; last: number };
  /** The pane's text, soft-wrapped lines joined (as a person selecting it would get it). */
  screen(): string;
  /** The exit code, once the command has ended (written by the shell around it). */
  exitCode(): number | undefined;
}

/** Starts `cred-auth login DEST` in a fresh 200x50 tmux session. */
function startLogin(env: Record<string, string>): Login {
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
    .map(([k, v]) => `${k}=${shellQuote(v)}`)
    .join(" ");
  const exitFile = join(work, `${name}.exit`);
  // The shell records the exit code: tmux's #{pane_dead_status} is sometimes empty.
  const command = `env -i ${assignments} ${shellQuote(process.execPath)} ${shellQuote(cli)} login ${shellQuote(destination)}; echo $? > ${shellQuote(exitFile)}`;
  tmux(
    "new-session",
    "-d",
    "-x",
    "200",
    "-y",
    "50",
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
  return {
    name,
    destination,
    ports,
    screen: () => tmux("capture-pane", "-p", "-J", "-t", name),
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

function portIsClosed(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

test("loopback: the URL is read off the screen whole, the browser comes back, the file is saved", {
  skip,
}, async () => {
  const login = startLogin({ CRED_AUTH_REMOTE: "0" });
  const url = await until(() => urlOn(login.screen()), "the URL on its own line", login.screen);
  assert.ok(url.length > 200, "the URL is wider than the terminal, yet one unbroken string");
  const redirect = new URL(new URL(url).searchParams.get("redirect_uri") ?? "");
  assert.equal(redirect.hostname, "localhost");
  assert.ok(
    Number(redirect.port) >= login.ports.first && Number(redirect.port) <= login.ports.last,
    "a port of the configured range",
  );
  assert.match(login.screen(), /cred-auth · Sign in to Google Cloud/);
  assert.match(login.screen(), /See, edit, configure and delete your Google Cloud data/);
  await until(
    () => (/Waiting for the sign-in in the browser/.test(login.screen()) ? true : undefined),
    "the spinner",
    login.screen,
  );

  const page = await approveSignIn(url, { account: "carol@example.com" });
  assert.equal(page.status, 200);
  assert.equal(await until(() => login.exitCode(), "the command to end", login.screen), 0, login.screen());
  const screen = login.screen();
  assert.match(screen, /✔ Signed in/);
  assert.ok(screen.split("\n").includes(`Saved to ${login.destination}`), "the face says where the credentials went");
  const saved = JSON.parse(readFileSync(login.destination, "utf8"));
  assert.equal(saved.type, "authorized_user");
  assert.equal(statSync(login.destination).mode & 0o777, 0o600);
  assert.ok(!screen.includes(saved.refresh_token), "no token on screen");
});

test("copy-paste: the code typed into the masked input is never shown, the file is saved", { skip }, async () => {
  const login = startLogin({ CRED_AUTH_REMOTE: "1" });
  const url = await until(() => urlOn(login.screen()), "the URL on its own line", login.screen);
  assert.match(new URL(url).searchParams.get("redirect_uri") ?? "", /\/oauth\/code$/);
  await until(() => (/Code:/.test(login.screen()) ? true : undefined), "the code prompt", login.screen);
  assert.match(login.screen(), /paste the code the page shows/);

  const page = await approveSignIn(url, { account: "bob@example.com" });
  assert.ok(page.code, "the code page shows the code");
  tmux("send-keys", "-t", login.name, "-l", page.code);
  await until(
    () => (login.screen().includes(`Code: ${"*".repeat(page.code!.length)}`) ? true : undefined),
    "the masked code",
    login.screen,
  );
  assert.ok(!login.screen().includes(page.code), "the code itself is not on screen");
  tmux("send-keys", "-t", login.name, "Enter");

  assert.equal(await until(() => login.exitCode(), "the command to end", login.screen), 0, login.screen());
  assert.match(login.screen(), /✔ Signed in/);
  assert.equal(JSON.parse(readFileSync(login.destination, "utf8")).type, "authorized_user");
});

test("Ctrl+C while waiting: exit code 130, the receiver is closed, nothing is written", { skip }, async () => {
  const login = startLogin({ CRED_AUTH_REMOTE: "0" });
  const url = await until(() => urlOn(login.screen()), "the URL", login.screen);
  await until(() => (/Waiting for the sign-in/.test(login.screen()) ? true : undefined), "the spinner", login.screen);
  tmux("send-keys", "-t", login.name, "C-c");
  assert.equal(await until(() => login.exitCode(), "the command to end", login.screen), 130, login.screen());
  assert.equal(login.screen().match(/cancelled/gi)?.length, 1, `said once: ${login.screen()}`);
  assert.equal(existsSync(login.destination), false, "nothing written");
  const port = Number(new URL(new URL(url).searchParams.get("redirect_uri")!).port);
  assert.equal(await portIsClosed(port), true, "the loopback receiver is closed");
});

test("Ctrl+C at the code prompt: exit code 130, nothing written", { skip }, async () => {
  const login = startLogin({ CRED_AUTH_REMOTE: "1" });
  await until(() => (/Code:/.test(login.screen()) ? true : undefined), "the code prompt", login.screen);
  tmux("send-keys", "-t", login.name, "-l", "half-typed");
  tmux("send-keys", "-t", login.name, "C-c");
  assert.equal(await until(() => login.exitCode(), "the command to end", login.screen), 130, login.screen());
  assert.equal(existsSync(login.destination), false);
});
