// Access tokens outlive a process: getUserCredentials()/default() share print-token's token
// cache. A second process with a still-valid cached token makes zero token requests; tokens
// obtained by refresh are written back; the credentials files never hold an access token.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Emulator } from "cred-auth/emulator";
import { testCredentialsFile, withEmulator } from "../support/emulator.ts";
import { ROOT, runNode } from "./support.ts";
import { attachTokenCache } from "../../dist/credentials/kinds/user/shared-tokens.js";
import { userRefreshClientFrom } from "../../dist/credentials/kinds/user/client.js";
import { readAuthorizedUserFile } from "../../dist/stores/credentials-file.js";
import { tokenCacheKey, writeCachedToken, readCachedToken } from "../../dist/token-cache/index.js";

const CLI = join(ROOT, "dist", "cli.js");
const SCOPE = "https://www.googleapis.com/auth/cloud-platform";

/** default() in a new process; prints the access token its credentials hold. */
const DEFAULT_SCRIPT = `
import * as credAuth from "cred-auth";
const [credentials] = await credAuth.default([${JSON.stringify(SCOPE)}]);
const { token } = await credentials.getAccessToken();
process.stdout.write(JSON.stringify({ token }));
`;

interface Box {
  dir: string;
  env: NodeJS.ProcessEnv;
  cacheDir: string;
}

async function sandbox(t: { after(fn: () => Promise<void>): void }, extra: NodeJS.ProcessEnv = {}): Promise<Box> {
  const dir = await mkdtemp(join(tmpdir(), "cred-auth-shared-token-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: join(dir, "home"),
    XDG_CONFIG_HOME: join(dir, "home", ".config"),
    XDG_CACHE_HOME: join(dir, "cache"),
    METADATA_SERVER_DETECTION: "none",
    NO_PROXY: "127.0.0.1,localhost",
    ...extra,
  };
  return { dir, env, cacheDir: join(dir, "cache", "cred-auth", "tokens") };
}

/** Runs default() in a fresh process; returns its token and how many token requests it made. */
async function defaultInNewProcess(
  emu: Emulator,
  env: NodeJS.ProcessEnv,
): Promise<{ token: string; requests: number }> {
  const before = emu.stats().tokenRequests;
  const r = await runNode(["--input-type=module", "-e", DEFAULT_SCRIPT], env);
  assert.equal(r.code, 0, `default() failed: ${r.stderr}`);
  const { token } = JSON.parse(r.stdout) as { token: string };
  assert.ok(token, "default() gave credentials without an access token");
  return { token, requests: emu.stats().tokenRequests - before };
}

async function cacheEntries(box: Box): Promise<string[]> {
  try {
    return (await readdir(box.cacheDir)).filter((name) => name.endsWith(".json"));
  } catch {
    return [];
  }
}

test("a second process's default() reuses the cached access token of ADC user credentials: zero token requests", async (t) => {
  const emu = await withEmulator();
  const box = await sandbox(t);
  const adc = await testCredentialsFile(emu, join(box.dir, "adc"), { scopes: [SCOPE] });
  const env = { ...box.env, GOOGLE_APPLICATION_CREDENTIALS: adc };
  const adcBefore = await readFile(adc, "utf8");

  const first = await defaultInNewProcess(emu, env);
  assert.equal(first.requests, 1, "the first process proves the credentials with one refresh");
  const second = await defaultInNewProcess(emu, env);
  assert.equal(second.requests, 0, "the second process must use the cached token");
  assert.equal(second.token, first.token);
  assert.ok(emu.checkAccessToken(second.token), "the reused token is still valid at the emulator");

  assert.equal(await readFile(adc, "utf8"), adcBefore, "the ADC file is left untouched (no access token in it)");
  const [entry, ...more] = await cacheEntries(box);
  assert.ok(entry && more.length === 0, "one token cache entry");
  const cached = JSON.parse(await readFile(join(box.cacheDir, entry), "utf8")) as Record<string, unknown>;
  assert.deepEqual(Object.keys(cached).sort(), ["access_token", "expiry_date", "scopes", "token_type"]);
  assert.equal(cached.access_token, first.token);
});

test("default() through the cached user credentials (sign-in cache) makes zero token requests in a second process", async (t) => {
  const emu = await withEmulator();
  const box = await sandbox(t);
  const cacheFile = await testCredentialsFile(emu, join(box.env.HOME!, ".config", "cred"), {
    scopes: [SCOPE],
    filename: "cred_credentials.json",
  });
  const fileBefore = await readFile(cacheFile, "utf8");

  const first = await defaultInNewProcess(emu, box.env);
  assert.equal(first.requests, 1);
  const second = await defaultInNewProcess(emu, box.env);
  assert.equal(second.requests, 0);
  assert.equal(second.token, first.token);
  const after = await readFile(cacheFile, "utf8");
  assert.equal(after, fileBefore, "the credentials cache file is not rewritten");
  assert.doesNotMatch(after, /access_token/);
});

test("print-token and default() share one cache entry for the same file", async (t) => {
  const emu = await withEmulator();
  const box = await sandbox(t);
  const adc = await testCredentialsFile(emu, join(box.dir, "adc"), { scopes: [SCOPE] });
  const before = emu.stats().tokenRequests;
  const printed = await runNode([CLI, "print-token", adc], box.env);
  assert.equal(printed.code, 0, printed.stderr);
  assert.equal(emu.stats().tokenRequests - before, 1);

  const viaDefault = await defaultInNewProcess(emu, { ...box.env, GOOGLE_APPLICATION_CREDENTIALS: adc });
  assert.equal(viaDefault.requests, 0, "default() must find print-token's token");
  assert.equal(viaDefault.token, printed.stdout.trim());
});

test("a cached token with 5 minutes or less left is not reused: default() refreshes and writes the new one back", async (t) => {
  const emu = await withEmulator();
  const box = await sandbox(t);
  const adc = await testCredentialsFile(emu, join(box.dir, "adc"), { scopes: [SCOPE] });
  const file = await readAuthorizedUserFile(adc);
  const key = tokenCacheKey(file, file.scopes ?? [], file.tokenUrl);
  writeCachedToken(
    key,
    { access_token: "nearly-expired", expiry_date: Date.now() + 4 * 60_000, token_type: "Bearer" },
    { dir: box.cacheDir },
  );

  const run = await defaultInNewProcess(emu, { ...box.env, GOOGLE_APPLICATION_CREDENTIALS: adc });
  assert.equal(run.requests, 1);
  assert.notEqual(run.token, "nearly-expired");
  const cached = readCachedToken(key, { dir: box.cacheDir });
  assert.equal(cached?.access_token, run.token, "the refreshed token replaced the old entry");
  assert.ok(cached.expiry_date - Date.now() > 30 * 60_000);
});

test("CRED_AUTH_TOKEN_CACHE=off: every process refreshes and nothing is written", async (t) => {
  const emu = await withEmulator();
  const box = await sandbox(t, { CRED_AUTH_TOKEN_CACHE: "off" });
  const adc = await testCredentialsFile(emu, join(box.dir, "adc"), { scopes: [SCOPE] });
  const env = { ...box.env, GOOGLE_APPLICATION_CREDENTIALS: adc };
  assert.equal((await defaultInNewProcess(emu, env)).requests, 1);
  assert.equal((await defaultInNewProcess(emu, env)).requests, 1);
  assert.deepEqual(await cacheEntries(box), []);
});

test("attachTokenCache: refreshed tokens are written back, the refresh token is kept, in-memory clients are left alone", async (t) => {
  const emu = await withEmulator();
  const box = await sandbox(t);
  const path = await testCredentialsFile(emu, join(box.dir, "creds"), { scopes: [SCOPE] });
  const file = await readAuthorizedUserFile(path);
  const key = tokenCacheKey(file, file.scopes ?? [], file.tokenUrl);
  const location = { dir: box.cacheDir };

  const client = await userRefreshClientFrom(file, { path });
  assert.equal(attachTokenCache(client, location), false, "nothing cached yet");
  assert.equal(attachTokenCache(client, location), false, "attaching twice adds no second listener");
  assert.equal(client.listenerCount("tokens"), 1);
  const first = (await client.getAccessToken()).token;
  assert.equal(readCachedToken(key, location)?.access_token, first);

  // A later refresh (the token "expired"): the tokens event carries no refresh token; the
  // client keeps its own and the cache gets the new access token.
  client.setCredentials({ refresh_token: file.refreshToken });
  const second = (await client.getAccessToken()).token;
  assert.notEqual(second, first);
  assert.equal(client.credentials.refresh_token, file.refreshToken);
  assert.equal(readCachedToken(key, location)?.access_token, second);

  const fresh = await userRefreshClientFrom(file, { path });
  assert.equal(attachTokenCache(fresh, location), true, "a new client takes the cached token");
  assert.equal(fresh.credentials.access_token, second);
  assert.equal(fresh.credentials.refresh_token, file.refreshToken);

  const inMemory = await userRefreshClientFrom(file); // no path: not loaded from a file
  assert.equal(attachTokenCache(inMemory, location), false);
  assert.equal(inMemory.listenerCount("tokens"), 0);
  assert.equal(inMemory.credentials.access_token, undefined);
});
