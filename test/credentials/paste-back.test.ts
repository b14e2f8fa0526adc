// The sign-in where the user really is: a remote machine with a Desktop client (no code page),
// zero token requests after a restart and after `login`, the account named, Colab first.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { cache, completeSignIn, getUserCredentials } from "cred-auth";
import type { Presenter, SignInEvent } from "cred-auth";
import { approveSignIn } from "cred-auth/emulator";
import { SignInPendingError } from "../../dist/oauth/flow.js";
import { isolatedWorld, withEnv } from "./support.ts";

const { emulator, home } = await isolatedWorld();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const cli = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));
const repo = fileURLToPath(new URL("../../", import.meta.url));
const tokenRequests = () => emulator.stats().tokenRequests;

/** Captures what is written to this process's stderr while `fn` runs. */
async function stderrOf<T>(fn: () => Promise<T>): Promise<{ value?: T; error?: unknown; text: string }> {
  const write = process.stderr.write.bind(process.stderr);
  let text = "";
  process.stderr.write = ((chunk: string | Uint8Array) => {
    text += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    return { value: await fn(), text };
  } catch (error) {
    return { error, text };
  } finally {
    process.stderr.write = write;
  }
}

/** Runs a child node process; resolves with its exit code and output. */
function run(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  onStderr?: (text: string) => void,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: repo, env: { ...process.env, ...env }, stdio: "pipe" });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => {
      stderr += d;
      onStderr?.(stderr);
    });
    child.stdin.end();
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

test("remote, no code page (a Desktop client): loopback with the address pasted back, why in one debug line", async () => {
  const events: SignInEvent[] = [];
  const presenter: Presenter = { update: (event) => void events.push(event) }; // a notebook cell: cannot read
  const custom = new cache.ReadWriteCredentialsCache({ dirname: "remote", filename: "c.json" });
  const quiet = await withEnv({ CRED_AUTH_REMOTE: "1", CRED_AUTH_EMULATOR_CODE_PAGE: "off" }, () =>
    stderrOf(() =>
      getUserCredentials([CLOUD], { presenter: { update() {} }, openBrowser: false, credentialsCache: custom }),
    ),
  );
  assert.ok(quiet.error instanceof SignInPendingError, String(quiet.error));
  assert.doesNotMatch(quiet.text, /sign-in/, "without CRED_AUTH_DEBUG, the why is not said");
  const env = { CRED_AUTH_REMOTE: "1", CRED_AUTH_EMULATOR_CODE_PAGE: "off", CRED_AUTH_DEBUG: "1" };
  const first = await withEnv(env, () =>
    stderrOf(() => getUserCredentials([CLOUD], { presenter, openBrowser: false, credentialsCache: custom })),
  );
  assert.ok(first.error instanceof SignInPendingError, String(first.error));
  const lines = first.text.split("\n").filter((line) => /sign-in with/.test(line));
  assert.equal(lines.length, 1, first.text);
  assert.match(lines[0]!, /loopback sign-in with the address pasted back/, "names the flow");
  assert.match(lines[0]!, /looks remote \(CRED_AUTH_REMOTE=1\) and there is no code page/, "says why");
  assert.match(lines[0]!, /--redirect-uri/, "names the flag that changes it");
  const url = first.error.pending.url;
  const redirect = new URL(new URL(url).searchParams.get("redirect_uri")!);
  assert.equal(redirect.hostname, "localhost", "Google lets a Desktop client redirect to loopback only");
  assert.deepEqual(
    events.map((e) => e.type),
    ["url", "waiting"],
  );
  assert.deepEqual(events[1], { type: "waiting", paste: true });

  // The browser on another machine: the redirect goes nowhere; the user copies its address.
  const { url: address } = await approveSignIn(url, { account: "bob@example.com", followRedirect: false });
  const credentials = await completeSignIn(address, { presenter, credentialsCache: custom });
  assert.equal(emulator.checkAccessToken((await credentials.getAccessToken()).token!)?.account, "bob@example.com");
  assert.deepEqual(events.at(-1), {
    type: "signed-in",
    account: "bob@example.com",
    savedTo: join(home, ".config", "remote", "c.json"),
  });
  assert.equal(JSON.parse(readFileSync(join(home, ".config", "remote", "c.json"), "utf8")).account, "bob@example.com");
});

test("CRED_AUTH_DEBUG=1 lists every decision: hosted, ADC, cache, flow, presenter", async () => {
  const presenter: Presenter = { update: () => {} };
  const { default: credDefault } = await import("cred-auth");
  const outcome = await withEnv(
    { CRED_AUTH_DEBUG: "1", CRED_AUTH_REMOTE: "1", CRED_AUTH_EMULATOR_CODE_PAGE: "off", CRED_AUTH_HOSTED: undefined },
    () => stderrOf(() => credDefault([CLOUD], { presenter, openBrowser: false, credentialsCache: cache.NOOP })),
  );
  assert.ok(outcome.error instanceof SignInPendingError, String(outcome.error));
  for (const decision of ["hosted", "ADC", "cache", "flow", "presenter"])
    assert.match(outcome.text, new RegExp(`^cred-auth: ${decision}\\b`, "m"), `a debug line for ${decision}`);
});

test("includeAccountScopes: false asks for the caller's scopes only", async () => {
  let url = "";
  const presenter: Presenter = {
    update: (event) => {
      if (event.type === "url") url = event.url;
    },
  };
  await assert.rejects(
    getUserCredentials([CLOUD], {
      presenter,
      useLocalWebserver: false,
      includeAccountScopes: false,
      credentialsCache: cache.NOOP,
    }),
    SignInPendingError,
  );
  assert.equal(new URL(url).searchParams.get("scope"), CLOUD);
});

test("after a restart the same call makes 0 token requests (the sign-in's token was cached)", async () => {
  const presenter: Presenter = {
    update: (event) => {
      if (event.type === "url") void approveSignIn(event.url, { account: "carol@example.com" });
    },
  };
  await getUserCredentials([CLOUD], { presenter, useLocalWebserver: true, openBrowser: false });
  const before = tokenRequests();
  // A new process, as a restarted kernel: the same cell.
  const child = await run([
    "--input-type=module",
    "-e",
    `import { getUserCredentials } from "cred-auth";
     const c = await getUserCredentials(["${CLOUD}"], { presenter: "plain", useLocalWebserver: true });
     const { token } = await c.getAccessToken();
     console.log(token ? "token" : "none");`,
  ]);
  assert.equal(child.code, 0, child.stderr);
  assert.equal(child.stdout.trim(), "token");
  assert.equal(tokenRequests() - before, 0, "0 token requests after the restart");
});

test("`login` then `print-token` makes 0 token requests; the CLI names the account", async () => {
  const destination = join(home, "login", "adc.json");
  let approved = false;
  const login = await run([cli, "login", destination, "--ui", "plain"], { CRED_AUTH_REMOTE: "0" }, (stderr) => {
    const url = /Please visit this URL to authorize this application: (\S+)/.exec(stderr)?.[1];
    if (url && !approved) {
      approved = true;
      void approveSignIn(url, { account: "alice@example.com" });
    }
  });
  assert.equal(login.code, 0, login.stderr);
  assert.equal(login.stderr.match(/Signed in as alice@example\.com\./g)?.length, 1, "the account, said once");
  assert.match(login.stderr, /\nTo use the credentials saved to/, "the success line");
  assert.ok(existsSync(destination));
  assert.equal(JSON.parse(readFileSync(destination, "utf8")).account, "alice@example.com");
  const before = tokenRequests();
  const printed = await run([cli, "print-token", destination]);
  assert.equal(printed.code, 0, printed.stderr);
  assert.ok(emulator.checkAccessToken(printed.stdout.trim()), "a token the emulator issued");
  assert.equal(tokenRequests() - before, 0, "print-token right after login: 0 token requests");
});

test("inside Colab getUserCredentials returns Colab's credentials: no sign-in", async () => {
  emulator.setMetadata({ projectId: "colab-project", email: "colab-user@example.com" });
  let signIns = 0;
  const presenter: Presenter = { update: () => void signIns++ };
  try {
    const credentials = await withEnv(
      { COLAB_RELEASE_TAG: "release-colab_20250626", GCE_METADATA_HOST: emulator.host, CRED_AUTH_HOSTED: undefined },
      () => getUserCredentials([CLOUD], { presenter, credentialsCache: cache.NOOP }),
    );
    const { token } = await credentials.getAccessToken();
    assert.equal(emulator.checkAccessToken(token!)?.account, "colab-user@example.com");
    assert.equal(signIns, 0, "no sign-in started");
  } finally {
    emulator.setMetadata(null);
  }
});
