// `cred-auth config init [CLIENT_FILE]`, the guided client setup, as a real process: the client
// files are those the Google Cloud console downloads, for clients the emulator knows (a Desktop
// client with a Google-shaped secret, the emulator's web client). A Desktop client is kept and a
// sign-in at the emulator then runs as it; a Web client, garbage, a missing file and a Desktop file
// without a loopback redirect are refused with one line and nothing kept; with no terminal the
// steps are printed and nothing waits; at a real terminal (tmux) each console page is opened, or
// only printed on a remote machine, and the typed path is taken, or the suggested one on a yes to its
// client and project (a drive-by download is the user's own newest file too).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEMO_WEB_CLIENT } from "cred-auth/emulator";
import { desktopClientFile } from "../docs/workspace.ts";
import { freePortRange, rangeEnv } from "../oauth/support.ts";
import { newestDownload } from "../../dist/oauth/client-download.js";
import { hasTmux, tmuxOn } from "../support/tmux.ts";
import { withEmulator } from "../support/emulator.ts";
import { CLI, collect, runCli, sandbox, startCli, type Sandbox } from "./support.ts";

const DESKTOP = {
  clientId: "1234-abcdef.apps.googleusercontent.com",
  clientSecret: "GOCSPX-k3y/with+plus=and/slash",
};
/** The client a planted file would make every sign-in run as. */
const OTHER_DESKTOP = { clientId: "9999-planted.apps.googleusercontent.com", clientSecret: "GOCSPX-planted" };
const emulator = await withEmulator({ clients: [{ ...DESKTOP, type: "installed", name: "my desktop client" }] });
const SIGN_IN_BROWSER = fileURLToPath(new URL("../docs/sign-in-browser.mjs", import.meta.url));
const STEP_PAGES = [
  "https://console.cloud.google.com/projectcreate",
  "https://console.cloud.google.com/auth/overview",
  "https://console.cloud.google.com/auth/clients/create",
];

/** A secret as it could leak: raw, percent-encoded (either case), base64, JSON-escaped, in a Basic header. */
function secretForms(secret: string, clientId: string): string[] {
  const percent = encodeURIComponent(secret);
  return [
    secret,
    percent,
    percent.replace(/%[0-9A-F]{2}/g, (s) => s.toLowerCase()),
    Buffer.from(secret).toString("base64"),
    JSON.stringify(secret).slice(1, -1),
    Buffer.from(`${clientId}:${secret}`).toString("base64"),
  ];
}

function noSecret(text: string, client = DESKTOP): void {
  for (const form of secretForms(client.clientSecret, client.clientId))
    assert.ok(!text.includes(form), `a form of the client secret was printed: ${form}`);
}

function settingsPath(box: Sandbox): string {
  return join(box.env.XDG_CONFIG_HOME ?? "", "cred-auth", "config.json");
}

function settings(box: Sandbox): Record<string, unknown> | undefined {
  return existsSync(settingsPath(box)) ? JSON.parse(readFileSync(settingsPath(box), "utf8")) : undefined;
}

function write(box: Sandbox, name: string, content: unknown): string {
  const path = join(box.dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

/** A browser that only records the addresses it is asked to open, one per line. */
function recordingBrowser(box: Sandbox): { env: string; opened(): string[] } {
  const log = join(box.dir, "opened.txt");
  const script = write(box, "browser.sh", `#!/bin/sh\nprintf '%s\\n' "$1" >> '${log}'\n`);
  execFileSync("chmod", ["+x", script]);
  return { env: script, opened: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : []) };
}

test("a Desktop client file is kept (id and secret, never printed), and a sign-in at the emulator then runs as it", async () => {
  const box = sandbox(emulator, {
    CRED_AUTH_REMOTE: "0",
    CRED_AUTH_LOOPBACK_PORTS: rangeEnv(await freePortRange(10)),
    BROWSER: `${process.execPath} ${SIGN_IN_BROWSER}`,
  });
  const earlier = write(box, "earlier.json", desktopClientFile(DESKTOP));
  assert.equal((await runCli(["config", "set", "client-secret-file", earlier], box.env)).code, 0);
  const file = write(box, "client_secret_1234-abcdef.apps.googleusercontent.com.json", desktopClientFile(DESKTOP));

  const init = await runCli(["config", "init", file], box.env);
  assert.equal(init.code, 0, init.stderr);
  assert.equal(init.stdout, "");
  assert.match(init.stderr, new RegExp(`the Desktop client ${DESKTOP.clientId} is kept there; the downloaded file`));
  assert.equal(init.stderr.split(settingsPath(box)).length - 1, 1, `the settings file is named once:\n${init.stderr}`);
  assert.match(init.stderr, /npx cred-auth login credentials\.json/);
  noSecret(init.stdout + init.stderr);
  assert.deepEqual(settings(box), { "client-id": DESKTOP.clientId, "client-secret": DESKTOP.clientSecret });
  const list = await runCli(["config", "list"], box.env);
  assert.equal(list.stdout, `client-id = ${DESKTOP.clientId}\nclient-secret = (hidden)\n`);

  const login = await collect(startCli(["login", join(box.dir, "creds.json"), "--use-local-webserver"], box.env));
  assert.equal(login.code, 0, login.stderr);
  noSecret(login.stdout + login.stderr);
  const saved = JSON.parse(readFileSync(join(box.dir, "creds.json"), "utf8")) as Record<string, string>;
  assert.deepEqual([saved.client_id, saved.client_secret], [DESKTOP.clientId, DESKTOP.clientSecret]);
});

test("refused with one line, nothing kept: a Web client, garbage, a missing file, a directory, no loopback redirect, no secret", async () => {
  const box = sandbox();
  const desktop = desktopClientFile(DESKTOP).installed as Record<string, unknown>;
  const web = { web: { client_id: DEMO_WEB_CLIENT.clientId, client_secret: DESKTOP.clientSecret } };
  mkdirSync(join(box.dir, "a-directory"));
  const cases: [string, string, RegExp][] = [
    ["web.json", JSON.stringify(web), /holds a "Web application" client; .* needs a "Desktop app" client/],
    ["garbage.json", `not json ${DESKTOP.clientSecret}`, /is not a Google client-secret JSON file/],
    ["array.json", "[]", /is not a Google client-secret JSON file/],
    [
      "key.json",
      JSON.stringify({ type: "service_account", client_email: "sa@p.iam.gserviceaccount.com", private_key: "x" }),
      /^cred-auth: \S+key\.json is a service-account key, not an OAuth client: use it as it is \(GOOGLE_APPLICATION_CREDENTIALS=FILE\); to sign in, download a "Desktop app" client's JSON \(step 3\)\. \(ERR_FILE_INVALID\)$/m,
    ],
    ["missing.json", "", /^cred-auth: Cannot read .*missing\.json \(ENOENT\)/],
    ["a-directory", "", /^cred-auth: Cannot read .*a-directory \(/],
    [
      "oob.json",
      JSON.stringify({ installed: { ...desktop, redirect_uris: ["urn:ietf:wg:oauth:2.0:oob"] } }),
      /is not a Desktop client: its redirect URIs do not include http:\/\/localhost/,
    ],
    [
      "https.json",
      JSON.stringify({ installed: { ...desktop, redirect_uris: ["https://localhost/"] } }),
      /is not a Desktop client/,
    ],
    [
      "no-secret.json",
      JSON.stringify({ installed: { ...desktop, client_secret: "" } }),
      /lacks its client_id or client_secret/,
    ],
  ];
  for (const [name, content, message] of cases) {
    const path = content ? write(box, name, content) : join(box.dir, name);
    const r = await runCli(["config", "init", path], box.env);
    assert.equal(r.code, 1, `${name}: ${r.stderr}`);
    const lines = r.stderr.split("\n").filter(Boolean);
    assert.equal(lines.length, 1, `${name}: ${r.stderr}`);
    assert.match(lines[0] ?? "", message, name);
    assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
    noSecret(r.stdout + r.stderr);
    assert.equal(settings(box), undefined, `${name}: something was kept`);
  }
  const two = await runCli(["config", "init", "a.json", "b.json"], box.env);
  assert.equal(two.code, 2);
  assert.match(two.stderr, /^cred-auth: config init takes at most one CLIENT_FILE/);
});

test("no terminal (stdin a pipe): the three steps and their pages are printed, no browser opens, exit 2 with the way on", async () => {
  const box = sandbox(undefined, { CRED_AUTH_REMOTE: "0" });
  const browser = recordingBrowser(box);
  const r = await runCli(["config", "init"], { ...box.env, BROWSER: browser.env }, { stdin: "\n\n\n" });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, "");
  for (const [i, page] of STEP_PAGES.entries()) {
    assert.ok(r.stderr.includes(`Step ${i + 1} of 3`), r.stderr);
    assert.ok(r.stderr.includes(`  ${page}\n`), `step ${i + 1}'s page is not printed`);
  }
  assert.match(r.stderr, /Desktop app/);
  assert.match(r.stderr, /Test users/);
  assert.match(
    r.stderr.trimEnd().split("\n").at(-1) ?? "",
    /^cred-auth: no terminal to ask in: .*`cred-auth config init CLIENT_FILE`/,
  );
  assert.deepEqual(browser.opened(), []);
  assert.equal(settings(box), undefined);
});

// At a real terminal: tmux runs the command; keys are typed as a person would.
const skip = hasTmux || process.env.CI ? false : "tmux is not installed";
if (skip) console.warn(`\n!!! SKIPPING the terminal tests of config init: ${skip}. They run under CI. !!!\n`);

const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

/** `cred-auth config init` in a fresh tmux session with `env` only; send keys, read the screen and the exit code. */
function inTerminal(box: Sandbox, env: NodeJS.ProcessEnv) {
  const socket = `cred-auth-init-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const exitFile = join(box.dir, "exit-code");
  const variables = { ...env, TERM: "xterm-256color" };
  const assignments = Object.entries(variables)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([k, v]) => `${k}=${shellQuote(v)}`)
    .join(" ");
  const command = `env -i ${assignments} ${shellQuote(process.execPath)} ${shellQuote(CLI)} config init; echo $? > ${shellQuote(exitFile)}`;
  const tmux = tmuxOn(socket);
  tmux("new-session", "-d", "-x", "200", "-y", "50", "-s", "init", command, ";", "set-option", "remain-on-exit", "on");
  const screen = (): string => tmux("capture-pane", "-p", "-J", "-t", "init");
  async function until(what: string, check: () => boolean): Promise<void> {
    for (let i = 0; i < 200; i++) {
      if (check()) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.fail(`never happened: ${what}\n--- screen ---\n${screen()}`);
  }
  return {
    screen,
    until,
    /** Waits for `prompt` to be shown `times` times, then types `text` and Enter. */
    async answer(prompt: string, times: number, text: string): Promise<void> {
      await until(`prompt ${prompt} #${times}`, () => screen().split(prompt).length - 1 >= times);
      if (text) tmux("send-keys", "-t", "init", "-l", text);
      tmux("send-keys", "-t", "init", "Enter");
    },
    /** Presses one key, such as `C-c`. */
    press: (key: string): void => void tmux("send-keys", "-t", "init", key),
    async exitCode(): Promise<number> {
      await until("the command ended", () => existsSync(exitFile) && readFileSync(exitFile, "utf8").trim() !== "");
      return Number(readFileSync(exitFile, "utf8").trim());
    },
    close: () => spawnSync("tmux", ["-L", socket, "kill-server"], { stdio: "ignore" }),
  };
}

function terminalEnv(box: Sandbox, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: box.dir,
    XDG_CONFIG_HOME: box.env.XDG_CONFIG_HOME,
    ...extra,
  };
}

test("at a terminal on this machine: each step's page opens in the browser, the typed path (~, quotes) is kept", {
  skip,
}, async (t) => {
  const box = sandbox();
  const browser = recordingBrowser(box);
  mkdirSync(join(box.dir, "Downloads"));
  write(box, "Downloads/client_secret_1234-abcdef.apps.googleusercontent.com.json", desktopClientFile(DESKTOP));
  const terminal = inTerminal(box, terminalEnv(box, { CRED_AUTH_REMOTE: "0", BROWSER: browser.env }));
  t.after(terminal.close);
  for (let step = 1; step <= 3; step++) {
    await terminal.until(`page ${step} opened`, () => browser.opened().length >= step);
    await terminal.answer("Press Enter when done.", step, "");
  }
  await terminal.answer(
    "The downloaded JSON file",
    1,
    "'~/Downloads/client_secret_1234-abcdef.apps.googleusercontent.com.json'",
  );
  assert.equal(await terminal.exitCode(), 0, terminal.screen());
  assert.deepEqual(browser.opened(), STEP_PAGES);
  assert.match(terminal.screen(), /Each page opens in your browser/);
  noSecret(terminal.screen());
  assert.deepEqual(settings(box), { "client-id": DESKTOP.clientId, "client-secret": DESKTOP.clientSecret });
});

test("at a terminal on a remote machine: nothing opens, the pages are printed; a refused path is asked again, Enter takes the newest download", {
  skip,
}, async (t) => {
  const box = sandbox();
  const browser = recordingBrowser(box);
  mkdirSync(join(box.dir, "Downloads"));
  const older = write(box, "Downloads/client_secret_old.json", { web: { client_id: "x", client_secret: "y" } });
  utimesSync(older, new Date(2020, 0, 1), new Date(2020, 0, 1));
  const newest = write(box, "Downloads/client_secret_new.json", desktopClientFile(DESKTOP));
  // No BROWSER (an explicit one would be used even here) and no display: were a browser launched
  // anyway, the system's opener would end at `www-browser` on PATH, which records the call.
  const openers = ["xdg-open", "www-browser"];
  mkdirSync(join(box.dir, "bin"));
  for (const opener of openers) write(box, `bin/${opener}`, readFileSync(browser.env, "utf8"));
  execFileSync("chmod", ["+x", ...openers.map((o) => join(box.dir, "bin", o))]);
  const terminal = inTerminal(
    box,
    terminalEnv(box, { CRED_AUTH_REMOTE: "1", PATH: `${box.dir}/bin:${process.env.PATH}` }),
  );
  t.after(terminal.close);
  for (let step = 1; step <= 3; step++) await terminal.answer("Press Enter when done.", step, "");
  await terminal.answer(`The downloaded JSON file [${newest}]`, 1, "nowhere.json");
  await terminal.until("the refusal", () => /Cannot read .*nowhere\.json \(ENOENT\)/.test(terminal.screen()));
  await terminal.answer(`The downloaded JSON file [${newest}]`, 2, "");
  await terminal.answer(
    `client_secret_new.json holds the Desktop client ${DESKTOP.clientId} (project my-project).`,
    1,
    "y",
  );
  assert.equal(await terminal.exitCode(), 0, terminal.screen());
  assert.deepEqual(browser.opened(), []);
  assert.match(terminal.screen(), /This machine shows no browser: open each address on your own computer/);
  for (const page of STEP_PAGES) assert.ok(terminal.screen().includes(page), page);
  assert.deepEqual(settings(box), { "client-id": DESKTOP.clientId, "client-secret": DESKTOP.clientSecret });
});

test("at a terminal, Ctrl+C cancels: exit 130, nothing kept", { skip }, async (t) => {
  const box = sandbox();
  const terminal = inTerminal(box, terminalEnv(box, { CRED_AUTH_REMOTE: "1" }));
  t.after(terminal.close);
  await terminal.answer("Press Enter when done.", 1, "");
  await terminal.until("step 2", () => terminal.screen().includes("Step 2 of 3"));
  terminal.press("C-c");
  assert.equal(await terminal.exitCode(), 130, terminal.screen());
  assert.match(terminal.screen(), /cred-auth: The client setup was cancelled; nothing was kept\./);
  assert.equal(settings(box), undefined);
});

// Attacker: another local user (or anyone, in a directory anyone may write) plants a newer
// client_secret file in ~/Downloads. Only a file that passes the file-trust rule is suggested.
const asRoot = process.getuid?.() === 0 ? false : "planting another user's file needs root (chown)";

test("a planted Downloads file is never suggested: another user's, writable by others, a link, or in an open directory", {
  skip: asRoot,
}, () => {
  const box = sandbox();
  const downloads = join(box.dir, "Downloads");
  mkdirSync(downloads);
  const mine = write(box, "Downloads/client_secret_mine.json", desktopClientFile(DESKTOP));
  utimesSync(mine, new Date(2020, 0, 1), new Date(2020, 0, 1));
  assert.equal(newestDownload(box.dir), mine);
  const foreign = write(box, "Downloads/client_secret_foreign.json", desktopClientFile(DESKTOP));
  chownSync(foreign, 65534, 65534);
  const shared = write(box, "Downloads/client_secret_shared.json", desktopClientFile(DESKTOP));
  chmodSync(shared, 0o666);
  const groupWritable = write(box, "Downloads/client_secret_group.json", desktopClientFile(DESKTOP));
  chmodSync(groupWritable, 0o664);
  symlinkSync(foreign, join(downloads, "client_secret_link.json"));
  mkdirSync(join(downloads, "client_secret_dir.json"));
  assert.equal(newestDownload(box.dir), mine, "the user's own file, though older than every planted one");
  chmodSync(downloads, 0o777);
  assert.equal(newestDownload(box.dir), undefined, "a Downloads anyone may write: nothing is suggested");
  chmodSync(downloads, 0o755);
  chownSync(downloads, 65534, 65534);
  assert.equal(newestDownload(box.dir), undefined, "another user's Downloads: nothing is suggested");
  assert.equal(newestDownload(join(box.dir, "nowhere")), undefined);
  assert.equal(newestDownload(undefined), undefined);
  assert.equal(newestDownload(""), undefined);
  chownSync(downloads, 0, 0);
  const notDir = sandbox();
  writeFileSync(join(notDir.dir, "Downloads"), "");
  assert.equal(newestDownload(notDir.dir), undefined, "a Downloads that is a file");
});

test("at a terminal: the planted newer file is not offered; a trusted file's escape codes are shown escaped", {
  skip: skip || asRoot,
}, async (t) => {
  const box = sandbox();
  mkdirSync(join(box.dir, "Downloads"));
  const hostile = "Downloads/client_secret_\u001b]0;owned\u0007.json";
  const mine = write(box, hostile, desktopClientFile(DESKTOP));
  utimesSync(mine, new Date(2020, 0, 1), new Date(2020, 0, 1));
  const planted = write(box, "Downloads/client_secret_planted.json", desktopClientFile(OTHER_DESKTOP));
  chownSync(planted, 65534, 65534);
  const terminal = inTerminal(box, terminalEnv(box, { CRED_AUTH_REMOTE: "1" }));
  t.after(terminal.close);
  for (let step = 1; step <= 3; step++) await terminal.answer("Press Enter when done.", step, "");
  await terminal.answer("The downloaded JSON file [", 1, "");
  await terminal.answer("Is it the one you created in step 3? (y/N)", 1, "yes");
  assert.equal(await terminal.exitCode(), 0, terminal.screen());
  assert.ok(!terminal.screen().includes("planted"), terminal.screen());
  assert.ok(terminal.screen().includes("client_secret_\\x1b]0;owned\\x07.json]"), terminal.screen());
  assert.deepEqual(settings(box), { "client-id": DESKTOP.clientId, "client-secret": DESKTOP.clientSecret });
});

// Attacker: a web page the user visited made the browser download a client-secret file of its own
// client. It is the user's own file (0644, newest) as the console's download is: nothing tells them
// apart but what the user knows, so Enter on the suggestion shows its client and project and keeps
// nothing without a yes.
test("at a terminal: a drive-by download suggested is shown with its client and project, and kept only on a yes", {
  skip,
}, async (t) => {
  const box = sandbox();
  mkdirSync(join(box.dir, "Downloads"));
  const mine = write(box, "Downloads/client_secret_mine.json", desktopClientFile(DESKTOP));
  utimesSync(mine, new Date(2020, 0, 1), new Date(2020, 0, 1));
  const driveBy = {
    installed: { ...(desktopClientFile(OTHER_DESKTOP).installed as object), project_id: "their-project" },
  };
  const dropped = write(box, "Downloads/client_secret_dropped.json", driveBy);
  chmodSync(dropped, 0o644);
  const terminal = inTerminal(box, terminalEnv(box, { CRED_AUTH_REMOTE: "1" }));
  t.after(terminal.close);
  for (let step = 1; step <= 3; step++) await terminal.answer("Press Enter when done.", step, "");
  await terminal.answer(`The downloaded JSON file [${dropped}]`, 1, "");
  await terminal.answer(
    `client_secret_dropped.json holds the Desktop client ${OTHER_DESKTOP.clientId} (project their-project).`,
    1,
    "",
  );
  await terminal.answer(`The downloaded JSON file [${dropped}]`, 2, mine);
  assert.equal(await terminal.exitCode(), 0, terminal.screen());
  assert.deepEqual(settings(box), { "client-id": DESKTOP.clientId, "client-secret": DESKTOP.clientSecret });
});
