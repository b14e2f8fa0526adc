// `cred-auth login` as a real process with the plain presenter: the test reads the URL from
// stderr and answers the emulator's consent page the way a browser would (approveSignIn).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { execFileSync, spawnSync, type ChildProcess } from "node:child_process";
import { approveSignIn, DEMO_CLIENT } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { freePortRange, rangeEnv } from "../oauth/support.ts";
import {
  CLI,
  CLOUD_PLATFORM,
  collect,
  runCli,
  sandbox,
  secretsIn,
  startCli,
  waitForStderr,
  type CliResult,
  type Sandbox,
} from "./support.ts";

/** Asked for with every sign-in by default, so the account can be named. */
const ACCOUNT_SCOPES = ["openid", "https://www.googleapis.com/auth/userinfo.email"];

const emu = await withEmulator();
const outputs: string[] = [];
const secrets: string[] = [DEMO_CLIENT.clientSecret];

async function loginBox(): Promise<Sandbox> {
  return sandbox(emu, { CRED_AUTH_LOOPBACK_PORTS: rangeEnv(await freePortRange(10)) });
}

/** Runs `cred-auth login ...args`, hands the printed URL to `act`, returns the finished run. */
async function login(
  box: Sandbox,
  args: string[],
  act: (url: string, child: ChildProcess) => Promise<void>,
): Promise<CliResult> {
  const child = startCli(["login", ...args], box.env);
  const done = collect(child, 120_000);
  try {
    const [, url] = await waitForStderr(child, /authorize this application: (\S+)/);
    await act(url!, child);
  } catch (error) {
    child.kill("SIGKILL");
    await done;
    throw error;
  }
  const r = await done;
  outputs.push(r.stdout, r.stderr);
  return r;
}

function savedFile(path: string): Record<string, unknown> {
  const json = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  secrets.push(String(json.refresh_token));
  return json;
}

test("loopback login: Allow saves an ADC authorized_user file (0600) and says how to use it; print-token then works", async () => {
  const box = await loginBox();
  const destination = join(box.dir, "nested", "adc.json");
  const r = await login(box, [destination, "--use_local_webserver"], async (url) => {
    const result = await approveSignIn(url, { account: "bob@example.com" });
    assert.equal(result.error, undefined);
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "", "stdout stays clean");
  assert.match(
    r.stderr,
    new RegExp(`export GOOGLE_APPLICATION_CREDENTIALS=${destination.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}\\n`),
  );
  const saved = savedFile(destination);
  assert.equal(saved.type, "authorized_user");
  assert.equal(saved.client_id, DEMO_CLIENT.clientId);
  assert.equal(saved.client_secret, DEMO_CLIENT.clientSecret);
  assert.equal(typeof saved.refresh_token, "string");
  assert.equal(saved.token_uri, `${emu.url}/token`);
  // Google grants in its own order (the strict emulator): compare as sets.
  assert.deepEqual(
    [...(saved.scopes as string[])].sort(),
    [CLOUD_PLATFORM, ...ACCOUNT_SCOPES].sort(),
    "the account scopes come along by default",
  );
  assert.equal(saved.access_token, undefined, "no access token in the ADC file");
  if (process.platform !== "win32") assert.equal(statSync(destination).mode & 0o777, 0o600);

  const token = await runCli(["print-token", destination], box.env);
  assert.equal(token.code, 0, token.stderr);
  assert.equal(emu.checkAccessToken(token.stdout.trim())?.account, "bob@example.com");
});

test("--scopes are requested and recorded; kebab-case flags work the same", async () => {
  const box = await loginBox();
  const destination = join(box.dir, "scoped.json");
  const scopes = ["https://www.googleapis.com/auth/bigquery", "https://www.googleapis.com/auth/devstorage.read_only"];
  const r = await login(
    box,
    [
      destination,
      "--scopes",
      ` ${scopes[0]}, ,${scopes[1]} `,
      "--use-local-webserver",
      "--client-id",
      DEMO_CLIENT.clientId,
      "--client-secret",
      DEMO_CLIENT.clientSecret,
    ],
    async (url) => {
      assert.equal(new URL(url).searchParams.get("scope"), [...scopes, ...ACCOUNT_SCOPES].join(" "));
      await approveSignIn(url, {});
    },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([...(savedFile(destination).scopes as string[])].sort(), [...scopes, ...ACCOUNT_SCOPES].sort());
});

test("--client-secret-file: the client comes from a Google client-secret JSON file", async () => {
  const box = await loginBox();
  const secretFile = join(box.dir, "client_secret.json");
  writeFileSync(
    secretFile,
    JSON.stringify({
      installed: {
        client_id: DEMO_CLIENT.clientId,
        client_secret: DEMO_CLIENT.clientSecret,
        redirect_uris: ["http://localhost"],
      },
    }),
  );
  const destination = join(box.dir, "from-secret-file.json");
  const r = await login(
    box,
    [destination, "--use_local_webserver", "--client-secret-file", secretFile],
    async (url) => {
      assert.equal(new URL(url).searchParams.get("client_id"), DEMO_CLIENT.clientId);
      await approveSignIn(url, {});
    },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(savedFile(destination).client_id, DEMO_CLIENT.clientId);

  writeFileSync(secretFile, JSON.stringify({ something: "else" }));
  const bad = await runCli(["login", `${destination}.2`, "--client-secret-file", secretFile], box.env);
  outputs.push(bad.stdout, bad.stderr);
  assert.equal(bad.code, 1);
  assert.match(
    bad.stderr,
    /^cred-auth: The OAuth client-secret file .*client_secret\.json is not a Google client-secret JSON file/,
  );
  assert.ok(!existsSync(`${destination}.2`));

  // A service-account key where the client belongs: named for what it is, and what to do with it.
  writeFileSync(secretFile, JSON.stringify({ type: "service_account", client_email: "sa@p.iam.gserviceaccount.com" }));
  const key = await runCli(["login", `${destination}.3`, "--client-secret-file", secretFile], box.env);
  outputs.push(key.stdout, key.stderr);
  assert.equal(key.code, 1);
  assert.equal(
    key.stderr,
    `cred-auth: The OAuth client-secret file ${secretFile} is a service-account key, not an OAuth client: use it as it is (GOOGLE_APPLICATION_CREDENTIALS=FILE); to sign in, give a "Desktop app" client's JSON. (ERR_FILE_INVALID)\n`,
  );
  assert.ok(!existsSync(`${destination}.3`));
});

test("copy-paste login (--nouse_local_webserver): the code pasted on stdin completes it", async () => {
  const box = await loginBox();
  const destination = join(box.dir, "pasted.json");
  const r = await login(box, [destination, "--nouse_local_webserver"], async (url, child) => {
    await waitForStderr(child, /Enter the authorization code:\n/);
    const result = await approveSignIn(url, { account: "carol@example.com" });
    assert.ok(result.code, "the code page shows a code");
    child.stdin!.end(`${result.code}\n`);
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(savedFile(destination).type, "authorized_user");
  const token = await runCli(["print-token", destination], box.env);
  assert.equal(emu.checkAccessToken(token.stdout.trim())?.account, "carol@example.com");
});

test("Deny: exit 1, a clear one-line reason, nothing written", async () => {
  const box = await loginBox();
  const destination = join(box.dir, "denied.json");
  const r = await login(box, [destination, "--use_local_webserver"], async (url) => {
    await approveSignIn(url, { decision: "deny" });
  });
  assert.equal(r.code, 1);
  const errors = r.stderr.split("\n").filter((l) => l.startsWith("cred-auth: "));
  assert.equal(errors.length, 1, r.stderr);
  assert.match(errors[0]!, /denied/i);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
  assert.deepEqual(
    readdirSync(box.dir).filter((f) => f.startsWith("denied")),
    [],
    "no file, no temporary file",
  );
});

test("Ctrl+C (SIGINT) while waiting for the browser: exit 130, nothing written", {
  skip: process.platform === "win32",
}, async () => {
  const box = await loginBox();
  const destination = join(box.dir, "cancelled.json");
  const r = await login(box, [destination, "--use_local_webserver"], async (_url, child) => {
    await waitForStderr(child, /Waiting for the sign-in/);
    child.kill("SIGINT");
  });
  assert.equal(r.code, 130, r.stderr);
  assert.match(r.stderr, /^cred-auth: .*cancelled/im);
  assert.ok(!existsSync(destination));
});

test("--timeout: the sign-in gives up, exit 1, nothing written", async () => {
  const box = await loginBox();
  const destination = join(box.dir, "late.json");
  const r = await login(box, [destination, "--use_local_webserver", "--timeout", "1"], async () => {});
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^cred-auth: .*(time|timed out)/im);
  assert.ok(!existsSync(destination));
});

test("a destination that cannot be written fails before any sign-in", {
  skip: process.platform === "win32",
}, async () => {
  const box = await loginBox();
  const locked = join(box.dir, "locked");
  mkdirSync(locked);
  chmodSync(locked, 0o500);
  // root writes anywhere: run the CLI as "nobody" then, who may enter the sandbox but not write there.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chmodSync(box.dir, 0o711);
  const child = spawnSync(process.execPath, [CLI, "login", join(locked, "adc.json")], {
    env: box.env,
    encoding: "utf8",
    timeout: 60_000,
    ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
  });
  chmodSync(locked, 0o700);
  assert.equal(child.status, 1, child.stderr);
  assert.match(child.stderr, /^cred-auth: Cannot save credentials to .* is not writable\. \(ERR_FILE_UNWRITABLE\)\n$/);
  assert.doesNotMatch(child.stderr, /authorize this application/);
});

test("an impossible destination fails first, with one line, before the emulator notice or any URL: /proc, a FIFO, another user's directory", {
  skip: process.platform !== "linux",
}, async () => {
  const box = await loginBox();
  const fifo = join(box.dir, "fifo.json");
  execFileSync("mkfifo", [fifo]);
  const cases: Array<[string, RegExp]> = [
    // root may "access" /proc for writing (mode bits are not asked of root), yet nothing can be created there
    [join("/proc", "adc.json"), /the directory "\/proc" is not writable\. \(ERR_FILE_UNWRITABLE\)$/],
    [join("/proc", "sys", "adc.json"), /the directory "\/proc\/sys" is not writable\. \(ERR_FILE_UNWRITABLE\)$/],
    [fifo, /fifo\.json": it is not a regular file; give a file path\. \(ERR_FILE_UNWRITABLE\)$/],
    [box.dir, /: it is a directory; give a file path\. \(ERR_FILE_UNWRITABLE\)$/],
  ];
  if (process.getuid?.() === 0) {
    const theirs = join(box.dir, "theirs");
    mkdirSync(theirs);
    chownSync(theirs, 65534, 65534);
    cases.push([
      join(theirs, "adc.json"),
      /the directory ".*theirs" belongs to another user \(uid 65534\); cred-auth writes no secret there\. \(ERR_FILE_UNWRITABLE\)$/,
    ]);
  }
  for (const [destination, problem] of cases) {
    const r = await runCli(["login", destination, "--no-browser"], box.env);
    assert.equal(r.code, 1, `${destination}: ${r.stderr}`);
    assert.equal(r.notice, undefined, `${destination}: refused before anything else was said`);
    assert.match(r.stderr, /^cred-auth: Cannot save credentials to "[^\n]*\n$/, destination);
    assert.match(r.stderr.trim(), problem, destination);
    assert.doesNotMatch(r.stderr, /oauth2|authorize/i);
  }
});

test("a destination under a file fails before any sign-in", async () => {
  const box = await loginBox();
  writeFileSync(join(box.dir, "plain-file"), "x");
  const r = await runCli(["login", join(box.dir, "plain-file", "adc.json")], box.env);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^cred-auth: Cannot save credentials to .*plain-file.* is not a directory\. \(ERR_FILE_UNWRITABLE\)\n$/,
  );
});

/** An emulator that also knows a Google-shaped "Desktop app" client, and its client-secret file. */
async function ownClient(box: Sandbox): Promise<{ emulator: Awaited<ReturnType<typeof withEmulator>>; file: string }> {
  const client = { clientId: "1234-own.apps.googleusercontent.com", clientSecret: "GOCSPX-own/se+cret=" };
  secrets.push(client.clientSecret);
  const emulator = await withEmulator({ clients: [{ ...client, type: "installed", name: "My tool" }] });
  const file = join(box.dir, "client_secret.json");
  writeFileSync(
    file,
    JSON.stringify({ installed: { client_id: client.clientId, client_secret: client.clientSecret } }),
  );
  box.env.CRED_AUTH_EMULATOR_HOST = emulator.host;
  return { emulator, file };
}

test("remote, --client-secret-file of a Desktop client: loopback with the address pasted back, and no advice that cannot work", async () => {
  const box = await loginBox();
  const { file } = await ownClient(box);
  box.env.CRED_AUTH_REMOTE = "1"; // the emulator offers a code page: a Web client would paste a code
  box.env.CRED_AUTH_DEBUG = "1"; // why this flow is a debug line
  const destination = join(box.dir, "desktop.json");
  const r = await login(box, [destination, "--client-secret-file", file], async (url) => {
    assert.match(new URL(url).searchParams.get("redirect_uri") ?? "", /^http:\/\/localhost:\d+\/$/);
    await approveSignIn(url, {});
  });
  assert.equal(r.code, 0, r.stderr);
  const line = r.stderr.split("\n").find((l) => l.includes("sign-in with"));
  assert.match(line ?? "", /loopback sign-in with the address pasted back: .* a Desktop client has no code page\.$/);
  assert.doesNotMatch(
    r.stderr,
    /--no-use-local-webserver|--redirect-uri|code page instead/,
    "no flag that fails for it",
  );
});

test("--remember keeps the client-secret file; the next login takes its client from the settings", async () => {
  const box = await loginBox();
  const { file } = await ownClient(box);
  const first = join(box.dir, "first.json");
  const r = await login(box, [first, "--use_local_webserver", "--client-secret-file", file, "--remember"], (url) =>
    approveSignIn(url, {}).then(() => undefined),
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /cred-auth: set client-secret-file in .*cred-auth\/config\.json\n/);
  const list = await runCli(["config", "list"], box.env);
  assert.equal(list.stdout, `client-secret-file = ${file}\n`);

  const second = join(box.dir, "second.json");
  const again = await login(box, [second, "--use_local_webserver"], async (url) => {
    assert.equal(new URL(url).searchParams.get("client_id"), "1234-own.apps.googleusercontent.com");
    await approveSignIn(url, {});
  });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(savedFile(second).client_id, "1234-own.apps.googleusercontent.com");
});

test("without --remember and without a terminal, login keeps no setting", async () => {
  const box = await loginBox();
  const { file } = await ownClient(box);
  const r = await login(box, [join(box.dir, "c.json"), "--use_local_webserver", "--client-secret-file", file], (url) =>
    approveSignIn(url, {}).then(() => undefined),
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal((await runCli(["config", "list"], box.env)).stdout, "");
});

test("options and environment win over the settings; the settings' scopes and ports are used without options", async () => {
  const box = await loginBox();
  const { file } = await ownClient(box);
  const ports = await freePortRange(3);
  const { CRED_AUTH_LOOPBACK_PORTS: _, ...env } = box.env;
  box.env = env;
  const set = await runCli(
    ["config", "set", "client-secret-file", file, "scopes", "openid,email", "loopback-ports", rangeEnv(ports)],
    box.env,
  );
  assert.equal(set.code, 0, set.stderr);
  const destination = join(box.dir, "from-settings.json");
  const r = await login(box, [destination, "--use_local_webserver"], async (url) => {
    const params = new URL(url).searchParams;
    assert.equal(params.get("scope"), "openid email");
    const port = Number(new URL(params.get("redirect_uri")!).port);
    assert.ok(port >= ports.first && port <= ports.last, `port ${port} outside the setting's range`);
    await approveSignIn(url, {});
  });
  assert.equal(r.code, 0, r.stderr);
  // The scopes Google granted, in its spelling and order (the strict emulator, issue 18).
  assert.deepEqual(savedFile(destination).scopes, ["https://www.googleapis.com/auth/userinfo.email", "openid"]);

  // The demo client through the options, the environment's ports: both beat the settings.
  const other = await freePortRange(3);
  box.env = { ...box.env, CRED_AUTH_LOOPBACK_PORTS: rangeEnv(other) };
  const flags = join(box.dir, "from-flags.json");
  const r2 = await login(
    box,
    [
      flags,
      "--use_local_webserver",
      "--client_id",
      DEMO_CLIENT.clientId,
      "--client_secret",
      DEMO_CLIENT.clientSecret,
      "--scopes",
      CLOUD_PLATFORM,
    ],
    async (url) => {
      const params = new URL(url).searchParams;
      assert.equal(params.get("client_id"), DEMO_CLIENT.clientId);
      assert.equal(Number(new URL(params.get("redirect_uri")!).port) >= other.first, true);
      await approveSignIn(url, {});
    },
  );
  assert.equal(r2.code, 0, r2.stderr);
  assert.deepEqual([...(savedFile(flags).scopes as string[])].sort(), [CLOUD_PLATFORM, ...ACCOUNT_SCOPES].sort());
});

test("--remember with a home that cannot be written: the credentials are saved, a warning says the client was not kept", async () => {
  const box = await loginBox();
  const { file } = await ownClient(box);
  // The settings directory would have to be created under a regular file (root ignores modes).
  writeFileSync(join(box.dir, "config-file"), "");
  box.env.XDG_CONFIG_HOME = join(box.dir, "config-file");
  const destination = join(box.dir, "kept.json");
  const r = await login(
    box,
    [destination, "--use_local_webserver", "--client-secret-file", file, "--remember"],
    (url) => approveSignIn(url, {}).then(() => undefined),
  );
  assert.equal(r.code, 0, r.stderr);
  assert.ok(existsSync(destination));
  assert.match(
    r.stderr,
    /cred-auth: warning: the OAuth client was not remembered: Cannot write the settings file .* \(ENOTDIR\)/,
  );
});

test("no client anywhere (at Google): gcloud's sign-in first when gcloud is installed, then config init; two lines", async () => {
  const box = sandbox();
  const { mkdirSync, writeFileSync } = await import("node:fs");
  const { dirname } = await import("node:path");
  const withGcloud = join(box.dir, "gcloud-bin");
  mkdirSync(withGcloud);
  writeFileSync(join(withGcloud, "gcloud"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  const node = dirname(process.execPath); // a PATH that holds node, and gcloud only where asked
  const say = async (path: string, scopes: string[] = []) => {
    const r = await runCli(["login", join(box.dir, "x.json"), "--use_local_webserver", ...scopes], {
      ...box.env,
      PATH: path,
    });
    outputs.push(r.stdout, r.stderr);
    assert.equal(r.code, 1);
    return r.stderr.trimEnd().split("\n");
  };
  const [line, ...rest] = await say(`${withGcloud}:${node}`);
  assert.deepEqual(rest, []);
  assert.equal(
    line,
    "cred-auth: No OAuth client configured: run `gcloud auth application-default login --scopes=https://www.googleapis.com/auth/cloud-platform`, or make your own client with `cred-auth config init` (docs/oauth-client.md). (ERR_NO_OAUTH_CLIENT)",
  );
  assert.ok(line!.length <= 240, "two lines of a 120-column terminal");
  const [drive] = await say(`${withGcloud}:${node}`, ["--scopes", "https://www.googleapis.com/auth/drive.readonly"]);
  assert.match(
    drive!,
    /`gcloud auth application-default login --scopes=https:\/\/www\.googleapis\.com\/auth\/cloud-platform,https:\/\/www\.googleapis\.com\/auth\/drive\.readonly`/,
    "the scopes asked, with the cloud-platform gcloud needs",
  );
  const without = await say(node);
  assert.deepEqual(without, [
    "cred-auth: No OAuth client configured: `cred-auth config init` creates your own client once (or set CRED_AUTH_CLIENT_SECRET_FILE); see docs/oauth-client.md. (ERR_NO_OAUTH_CLIENT)",
  ]);
  for (const said of [line!, drive!, ...without]) assert.doesNotMatch(said, /clientId|clientSecret/);
});

test("the ui setting chooses the face when --ui is not given; --ui wins over it", async () => {
  const box = await loginBox();
  assert.equal((await runCli(["config", "set", "ui", "terminal"], box.env)).code, 0);
  const destination = join(box.dir, "ui.json");
  const terminal = startCli(["login", destination, "--use_local_webserver"], box.env);
  const terminalDone = collect(terminal);
  await waitForStderr(terminal, /Sign in to Google Cloud/);
  terminal.kill("SIGKILL");
  assert.doesNotMatch((await terminalDone).stderr, /authorize this application:/);

  const plain = startCli(["login", destination, "--use_local_webserver", "--ui", "plain"], box.env);
  const plainDone = collect(plain);
  await waitForStderr(plain, /authorize this application: /);
  plain.kill("SIGKILL");
  assert.doesNotMatch((await plainDone).stderr, /Sign in to Google Cloud/);
});

const hasTmux = spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;
const noTmux = hasTmux || process.env.CI ? false : "tmux is not installed";
if (noTmux) console.warn(`\n!!! SKIPPING the remember prompt test: ${noTmux}. It runs under CI. !!!\n`);

test("in an interactive terminal, login asks whether to remember the client-secret file; y keeps it", {
  skip: noTmux,
}, async (t) => {
  const box = await loginBox();
  const { file } = await ownClient(box);
  const socket = `cred-auth-remember-${process.pid}`;
  const tmux = (...args: string[]): string => spawnSync("tmux", ["-L", socket, ...args], { encoding: "utf8" }).stdout;
  t.after(() => tmux("kill-server"));
  const quote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;
  // A clean environment (no CI variable: under CI nobody could answer, so nothing is asked).
  const { CI: _ci, ...env } = box.env;
  const exported = Object.entries(env)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${quote(String(value))}`)
    .join(" ");
  const destination = join(box.dir, "asked.json");
  const command = `env -i ${exported} ${quote(process.execPath)} ${quote(CLI)} login ${quote(destination)} --use_local_webserver --ui plain --client-secret-file ${quote(file)}; echo "exit=$?"; sleep 30`;
  tmux("new-session", "-d", "-x", "250", "-y", "50", "-s", "remember", command);
  const screen = (): string => tmux("capture-pane", "-p", "-J", "-t", "remember");
  const waitFor = async (pattern: RegExp): Promise<RegExpMatchArray> => {
    for (let i = 0; i < 600; i++) {
      const match = screen().match(pattern);
      if (match) return match;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`timed out waiting for ${pattern} on the screen:\n${screen()}`);
  };
  const [, url] = await waitFor(/authorize this application: (\S+)/);
  await approveSignIn(url!, {});
  await waitFor(/Remember .*client_secret\.json as your OAuth client.*\[y\/N\]/);
  tmux("send-keys", "-t", "remember", "y", "Enter");
  await waitFor(/exit=0/);
  assert.match(screen(), /set client-secret-file in /);
  assert.equal((await runCli(["config", "get", "client-secret-file"], box.env)).stdout, `${file}\n`);
  outputs.push(screen());
});

test("no login output holds the client secret or a refresh token", () => {
  assert.ok(outputs.length >= 10 && secrets.length >= 4);
  for (const output of outputs) assert.deepEqual(secretsIn(output, secrets), []);
});
