// `cred-auth login` as a real process with the plain presenter: the test reads the URL from
// stderr and answers the emulator's consent page the way a browser would (approveSignIn).
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync, type ChildProcess } from "node:child_process";
import { approveSignIn, DEMO_CLIENT } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { freePortRange, rangeEnv } from "../oauth/helpers.ts";
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
} from "./helpers.ts";

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
  assert.deepEqual(saved.scopes, [CLOUD_PLATFORM, ...ACCOUNT_SCOPES], "the account scopes come along by default");
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
  assert.deepEqual(savedFile(destination).scopes, [...scopes, ...ACCOUNT_SCOPES]);
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
    /^cred-auth: The client-secret file ".*client_secret\.json" is not a Google client-secret JSON file/,
  );
  assert.ok(!existsSync(`${destination}.2`));
});

test("copy-paste login (--nouse_local_webserver): the code pasted on stdin completes it", async () => {
  const box = await loginBox();
  const destination = join(box.dir, "pasted.json");
  const r = await login(box, [destination, "--nouse_local_webserver"], async (url, child) => {
    await waitForStderr(child, /Enter the authorization code: /);
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
  assert.match(child.stderr, /^cred-auth: Cannot save credentials to .* is not writable\.\n$/);
  assert.doesNotMatch(child.stderr, /authorize this application/);
});

test("a destination under a file fails before any sign-in", async () => {
  const box = await loginBox();
  writeFileSync(join(box.dir, "plain-file"), "x");
  const r = await runCli(["login", join(box.dir, "plain-file", "adc.json")], box.env);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^cred-auth: Cannot save credentials to .*plain-file.* is not a directory\.\n$/);
});

test("no login output holds the client secret or a refresh token", () => {
  assert.ok(outputs.length >= 10 && secrets.length >= 4);
  for (const output of outputs) assert.deepEqual(secretsIn(output, secrets), []);
});
