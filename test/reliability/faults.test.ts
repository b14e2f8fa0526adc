// A misbehaving token server, seen through every way cred-auth gets a token: the two loaders,
// getUserCredentials refreshing a cached credential, and `cred-auth print-token` refreshing an
// expired cached token. Each fault ends in the right error class with a one-line message, and
// nothing on disk changes (credentials file, cache file, token cache: byte for byte).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { TestContext } from "node:test";
import {
  CredConnectionError,
  cache,
  ERROR_CODES,
  getUserCredentials,
  loadServiceAccountCredentials,
  loadUserCredentials,
} from "cred-auth";
import type { Presenter, SignInEvent } from "cred-auth";
import { DEMO_CLIENT, startEmulator } from "cred-auth/emulator";
import type { Emulator, Fault } from "cred-auth/emulator";
import { writeUserCredentialsFile } from "../../dist/stores/credentials-file.js";
import { tokenCacheKey, writeCachedToken } from "../../dist/token-cache/index.js";
import { freePortRange, rangeEnv } from "../oauth/support.ts";
import { SCOPES, closedPort, isolatedEnv, lines, runCli, snapshot } from "./support.ts";

/** Per-attempt token timeout everywhere in this file (gaxios makes 3 attempts). */
const TIMEOUT_MS = 2000;
/** A "slow" reply comes long after every attempt gave up. */
const SLOW_MS = 15_000;
/** Where the server is not slow on purpose, a loaded machine must not turn its quick reply into a timeout. */
const ROOMY_MS = 15_000;
const attemptMs = (fault: FaultCase): number => (fault.fault?.kind === "slow" ? TIMEOUT_MS : ROOMY_MS);

// getUserCredentials has no timeout option: CRED_AUTH_TOKEN_TIMEOUT_MS shortens it for this
// process, as it does for the CLI children below.
process.env.CRED_AUTH_TOKEN_TIMEOUT_MS = String(TIMEOUT_MS);

const home = mkdtempSync(join(tmpdir(), "cred-auth-faults-"));
after(() => rmSync(home, { recursive: true, force: true }));
process.env.HOME = home;
process.env.CRED_AUTH_HOSTED = "off";
process.env.CRED_AUTH_TOKEN_CACHE = "off";
delete process.env.CRED_AUTH_EMULATOR_HOST;
// Should a regression start a sign-in, it must not take the default ports 8080-8089.
process.env.CRED_AUTH_LOOPBACK_PORTS = rangeEnv(await freePortRange(2));

interface FaultCase {
  name: string;
  /** Queues the fault on the emulator; absent: the token server's port is closed. */
  fault?: Fault;
  /** The stable code a program branches on. */
  code: string;
  message: RegExp;
  /** google-auth-library retries 5xx replies and timeouts, not a 200 it cannot read. */
  retried?: boolean;
}

const FAULTS: FaultCase[] = [
  {
    name: "5xx on every attempt",
    code: ERROR_CODES.SERVER_ERROR,
    fault: { kind: "status", status: 503 },
    message: /the token server answered 503 \(temporarily_unavailable\); try again later\.$/,
    retried: true,
  },
  {
    name: "slow beyond the timeout",
    code: ERROR_CODES.TIMEOUT,
    fault: { kind: "slow", delayMs: SLOW_MS },
    message: /the token server did not answer in time; try again later\.$/,
    retried: true,
  },
  {
    name: "connection refused",
    code: ERROR_CODES.UNREACHABLE,
    // A closed loopback port that is not the emulator's (only its exact host and port get the emulator's advice).
    message:
      /nothing answers at http:\/\/127\.0\.0\.1:\d+, on this machine \(ECONNREFUSED\): start the token server it names, or correct the token URL \(a credentials file's token_uri\)\.$/,
  },
  {
    name: "garbage instead of JSON",
    code: ERROR_CODES.SERVER_ERROR,
    fault: { kind: "garbage" },
    message: /the token server sent an unreadable reply\.$/,
    retried: false,
  },
  {
    name: "truncated JSON",
    code: ERROR_CODES.SERVER_ERROR,
    fault: { kind: "truncated" },
    message: /the token server sent an unreadable reply\.$/,
    retried: false,
  },
  {
    name: "an HTML error page",
    code: ERROR_CODES.SERVER_ERROR,
    fault: { kind: "html" },
    message: /the token server answered HTTP 502; try again later\.$/,
    retried: true,
  },
];

/** An emulator for one test, closed after it (checking, for a fault, that the attempts were as expected). */
async function emulatorFor(t: TestContext, fault?: FaultCase): Promise<Emulator> {
  const emu = await startEmulator();
  t.after(() => emu.close());
  if (fault?.retried !== undefined) {
    t.after(() => {
      const attempts = emu.stats().tokenRequests;
      if (fault.retried) assert.ok(attempts >= 2, `retried (${attempts} attempts)`);
      else assert.equal(attempts, 1, "an unreadable 200 is not retried");
    });
  }
  return emu;
}

/** The token URL for a case: the emulator's, or a closed port. */
async function tokenUrlFor(emu: Emulator, fault: FaultCase): Promise<string> {
  return fault.fault ? `${emu.url}/token` : `http://127.0.0.1:${await closedPort()}/token`;
}

function userFile(emu: Emulator, tokenUrl: string) {
  return {
    type: "authorized_user" as const,
    clientId: DEMO_CLIENT.clientId,
    clientSecret: DEMO_CLIENT.clientSecret,
    refreshToken: emu.issueRefreshToken({ scopes: SCOPES }),
    tokenUrl: tokenUrl,
    scopes: SCOPES,
  };
}

function caseDir(t: TestContext): string {
  const dir = mkdtempSync(join(home, "case-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function assertConnectionError(error: unknown, fault: FaultCase, prefix: string): true {
  assert.ok(
    error instanceof CredConnectionError,
    `expected CredConnectionError, got ${(error as Error)?.name}: ${(error as Error)?.message}`,
  );
  assert.ok(error.message.startsWith(prefix), `message starts with ${JSON.stringify(prefix)}: ${error.message}`);
  assert.match(error.message, fault.message);
  assert.equal(error.code, fault.code);
  assert.ok(!error.message.includes("\n"), "one line");
  return true;
}

/** Records what a sign-in would show; none may start while refreshing a cached credential fails. */
function recordingPresenter(): Presenter & { events: SignInEvent[] } {
  const events: SignInEvent[] = [];
  return { events, update: (event) => void events.push(event) };
}

const ENTRY_POINTS = {
  async loadUserCredentials(t: TestContext, fault: FaultCase): Promise<void> {
    const emu = await emulatorFor(t, fault);
    const dir = caseDir(t);
    const path = join(dir, "user.json");
    await writeUserCredentialsFile(path, userFile(emu, await tokenUrlFor(emu, fault)));
    const before = snapshot(dir);
    if (fault.fault) emu.failNext(20, fault.fault);
    await assert.rejects(loadUserCredentials(path, { timeoutMs: attemptMs(fault) }), (error) =>
      assertConnectionError(
        error,
        fault,
        `Getting an access token with the user credentials in ${JSON.stringify(path)} failed: `,
      ),
    );
    assert.deepEqual(snapshot(dir), before);
  },

  async loadServiceAccountCredentials(t: TestContext, fault: FaultCase): Promise<void> {
    const emu = await emulatorFor(t, fault);
    const dir = caseDir(t);
    const path = join(dir, "key.json");
    const key: Record<string, string> = { ...emu.createServiceAccountKey(), token_uri: await tokenUrlFor(emu, fault) };
    writeFileSync(path, JSON.stringify(key), { mode: 0o600 });
    const before = snapshot(dir);
    if (fault.fault) emu.failNext(20, fault.fault);
    await assert.rejects(loadServiceAccountCredentials(path, SCOPES, { timeoutMs: attemptMs(fault) }), (error) =>
      assertConnectionError(
        error,
        fault,
        `Getting an access token for service account ${key.client_email} with the key in ${JSON.stringify(path)} failed: `,
      ),
    );
    assert.deepEqual(snapshot(dir), before);
  },

  async getUserCredentials(t: TestContext, fault: FaultCase): Promise<void> {
    const emu = await emulatorFor(t, fault);
    const credentialsCache = new cache.ReadWriteCredentialsCache({
      dirname: `faults-${Math.random().toString(36).slice(2)}`,
    });
    t.after(() => rmSync(dirname(credentialsCache.path), { recursive: true, force: true }));
    await writeUserCredentialsFile(credentialsCache.path, userFile(emu, await tokenUrlFor(emu, fault)));
    const before = snapshot(dirname(credentialsCache.path));
    if (fault.fault) emu.failNext(20, fault.fault);
    const presenter = recordingPresenter();
    await assert.rejects(
      getUserCredentials(SCOPES, { credentialsCache, presenter, openBrowser: false, timeoutMs: 5000 }),
      (error) => assertConnectionError(error, fault, "Refreshing the cached user credentials failed: "),
    );
    assert.deepEqual(presenter.events, [], "no sign-in was started: the network is the problem, not the credentials");
    assert.deepEqual(snapshot(dirname(credentialsCache.path)), before, "the cache file is untouched");
  },

  async "cred-auth print-token"(t: TestContext, fault: FaultCase): Promise<void> {
    const emu = await emulatorFor(t, fault);
    const dir = caseDir(t);
    const path = join(dir, "user.json");
    const file = userFile(emu, await tokenUrlFor(emu, fault));
    await writeUserCredentialsFile(path, file);
    // An expired token in the token cache: print-token must take the refresh path.
    const tokens = join(dir, "tokens");
    const key = tokenCacheKey(file, SCOPES, file.tokenUrl);
    assert.ok(
      writeCachedToken(
        key,
        { access_token: "expired-access-token", expiry_date: Date.now() - 1000, token_type: "Bearer", scopes: SCOPES },
        { dir: tokens },
      ),
    );
    const before = snapshot(dir);
    if (fault.fault) emu.failNext(20, fault.fault);
    const env = isolatedEnv(dir, {
      CRED_AUTH_TOKEN_CACHE: tokens,
      CRED_AUTH_TOKEN_TIMEOUT_MS: String(attemptMs(fault)),
    });
    const result = await runCli(["print-token", path], { env });
    assert.equal(result.code, 3, `exit 3 (connection error); stderr: ${result.stderr}`);
    assert.equal(result.stdout, "");
    const errorLines = lines(result.stderr);
    assert.equal(errorLines.length, 1, `one line on stderr: ${result.stderr}`);
    assert.ok(
      errorLines[0]!.startsWith(
        `cred-auth: Getting an access token with the user credentials in ${JSON.stringify(path)} failed: `,
      ),
      errorLines[0],
    );
    assert.match(errorLines[0]!, / \(ERR_[A-Z_]+\)$/, "the line ends with its code");
    assert.match(errorLines[0]!.replace(/ \(ERR_[A-Z_]+\)$/, ""), fault.message);
    assert.deepEqual(snapshot(dir), before, "credentials file and token cache untouched, no lock left behind");
  },
};

// Two groups, one after the other: getUserCredentials reads its per-attempt limit from the environment,
// set for the whole group (short for the slow server, roomy for the others).
for (const slow of [false, true]) {
  const faults = FAULTS.filter((fault) => (fault.fault?.kind === "slow") === slow);
  describe(`token server faults end in CredConnectionError / exit 3 and change nothing on disk${slow ? " (slow)" : ""}`, {
    concurrency: true,
  }, () => {
    before(() => {
      process.env.CRED_AUTH_TOKEN_TIMEOUT_MS = String(slow ? TIMEOUT_MS : ROOMY_MS);
    });
    after(() => {
      process.env.CRED_AUTH_TOKEN_TIMEOUT_MS = String(TIMEOUT_MS);
    });
    for (const [entry, run] of Object.entries(ENTRY_POINTS)) {
      for (const fault of faults) test(`${entry}: ${fault.name}`, (t) => run(t, fault));
    }
  });
}

describe("one failed attempt is retried and the refresh succeeds", { concurrency: true }, () => {
  const ONE_OFF: Fault[] = [{ kind: "status", status: 503 }, { kind: "reset" }];
  for (const fault of ONE_OFF) {
    test(`loadUserCredentials and loadServiceAccountCredentials after one ${fault.kind}`, async (t) => {
      const emu = await emulatorFor(t);
      const dir = caseDir(t);
      const userPath = join(dir, "user.json");
      await writeUserCredentialsFile(userPath, userFile(emu, `${emu.url}/token`));
      emu.failNext(1, fault);
      const user = await loadUserCredentials(userPath, { timeoutMs: TIMEOUT_MS });
      assert.ok(emu.checkAccessToken(user.credentials.access_token!));
      const keyPath = join(dir, "key.json");
      writeFileSync(keyPath, JSON.stringify(emu.createServiceAccountKey()));
      emu.failNext(1, fault);
      const sa = await loadServiceAccountCredentials(keyPath, SCOPES, { timeoutMs: TIMEOUT_MS });
      assert.ok(emu.checkAccessToken(sa.credentials.access_token!));
      assert.equal(emu.stats().tokenRequests, 4, "each refresh took exactly one retry");
    });

    test(`getUserCredentials and print-token after one ${fault.kind}`, async (t) => {
      const emu = await emulatorFor(t);
      const credentialsCache = new cache.ReadWriteCredentialsCache({
        dirname: `retry-${Math.random().toString(36).slice(2)}`,
      });
      t.after(() => rmSync(dirname(credentialsCache.path), { recursive: true, force: true }));
      const file = userFile(emu, `${emu.url}/token`);
      await writeUserCredentialsFile(credentialsCache.path, file);
      emu.failNext(1, fault);
      const presenter = recordingPresenter();
      const credentials = await getUserCredentials(SCOPES, {
        credentialsCache,
        presenter,
        openBrowser: false,
        timeoutMs: 5000,
      });
      assert.ok(emu.checkAccessToken(credentials.credentials.access_token!));
      assert.deepEqual(presenter.events, []);

      const dir = caseDir(t);
      emu.failNext(1, fault);
      const env = isolatedEnv(dir, { CRED_AUTH_TOKEN_CACHE: join(dir, "tokens") });
      const result = await runCli(["print-token", credentialsCache.path], { env });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stderr, "");
      assert.ok(emu.checkAccessToken(result.stdout.trim()), "print-token printed a token the emulator issued");
    });
  }
});
