// `cred-auth print-token` as a real process against the emulator: output formats, the token
// cache, and every way it can fail (exit code, one line naming the file, no secret anywhere).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { withEmulator } from "../support/emulator.ts";
import {
  CLI,
  CLOUD_PLATFORM,
  runCli,
  sandbox,
  secretsIn,
  serviceAccountFile,
  userFile,
  withoutNotice,
  type CliResult,
} from "./support.ts";
import { closedPort } from "../support/net.ts";

const emu = await withEmulator();
/** Every output of every run in this file, scanned for secrets at the end. */
const outputs: string[] = [];
const secrets: string[] = [];

async function printToken(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const r = await runCli(["print-token", ...args], env);
  outputs.push(r.stdout, r.stderr);
  return r;
}

function cacheFiles(dir: string): string[] {
  try {
    return readdirSync(dir).filter((f) => f.endsWith(".json"));
  } catch {
    return [];
  }
}

test("user credentials: only the token and a newline on stdout, nothing on stderr; the second call is served from the cache", async () => {
  const box = sandbox(emu);
  const { path, json } = await userFile(emu, box);
  secrets.push(json.refresh_token!, json.client_secret!);
  const before = emu.stats().tokenRequests;
  const first = await printToken([path], box.env);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stderr, "");
  assert.match(first.stdout, /^[^\s]+\n$/);
  const accessToken = first.stdout.trim();
  assert.deepEqual(emu.checkAccessToken(accessToken)?.scopes, [CLOUD_PLATFORM]);
  assert.equal(emu.stats().tokenRequests, before + 1);

  const second = await printToken([path], box.env);
  assert.equal(second.code, 0);
  assert.equal(second.stdout, first.stdout);
  assert.equal(
    emu.stats().tokenRequests,
    before + 1,
    "no token request: the cached token has more than 5 minutes left",
  );

  const [entry] = cacheFiles(box.tokenCache);
  assert.match(entry!, /^[0-9a-f]{64}\.json$/);
  const cached = readFileSync(join(box.tokenCache, entry!), "utf8");
  assert.deepEqual(Object.keys(JSON.parse(cached)).sort(), ["access_token", "expiry_date", "scopes", "token_type"]);
  assert.deepEqual(secretsIn(cached, [json.refresh_token, json.client_secret]), []);
  if (process.platform !== "win32") {
    assert.equal(statSync(join(box.tokenCache, entry!)).mode & 0o777, 0o600);
    assert.equal(statSync(box.tokenCache).mode & 0o777, 0o700);
  }
});

test("--fresh gets a new token and caches it; --format json and --header print the cached one", async () => {
  const box = sandbox(emu);
  const { path } = await userFile(emu, box);
  const first = (await printToken([path], box.env)).stdout.trim();
  const before = emu.stats().tokenRequests;
  const fresh = await printToken([path, "--fresh"], box.env);
  assert.equal(fresh.code, 0, fresh.stderr);
  const freshToken = fresh.stdout.trim();
  assert.notEqual(freshToken, first);
  assert.equal(emu.stats().tokenRequests, before + 1);

  const json = await printToken([path, "--format", "json"], box.env);
  assert.equal(json.code, 0, json.stderr);
  const parsed = JSON.parse(json.stdout) as Record<string, string>;
  assert.deepEqual(Object.keys(parsed), ["access_token", "expiry", "token_type"]);
  assert.equal(parsed.access_token, freshToken, "the fresh token replaced the cached one");
  assert.equal(parsed.token_type, "Bearer");
  assert.match(parsed.expiry!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const left = Date.parse(parsed.expiry!) - Date.now();
  assert.ok(left > 50 * 60_000 && left <= 3_600_000, `expiry about an hour ahead, got ${left} ms`);

  const header = await printToken([path, "--header"], box.env);
  assert.equal(header.stdout, `Authorization: Bearer ${freshToken}\n`);
  const textAgain = await printToken([path, "--format=text"], box.env);
  assert.equal(textAgain.stdout, `${freshToken}\n`);
  assert.equal(emu.stats().tokenRequests, before + 1, "json, header and text came from the cache");
});

test("service-account key: default cloud-platform scope, --scopes, one cache entry per scope set", async () => {
  const box = sandbox(emu);
  const { path, json } = serviceAccountFile(emu, box);
  secrets.push(json.private_key!.split("\n")[2]!, json.private_key_id!);
  const before = emu.stats().tokenRequests;
  const plain = await printToken([path], box.env);
  assert.equal(plain.code, 0, plain.stderr);
  assert.deepEqual(emu.checkAccessToken(plain.stdout.trim())?.scopes, [CLOUD_PLATFORM]);
  const scoped = await printToken(
    [
      path,
      "--scopes",
      " https://www.googleapis.com/auth/devstorage.read_only , ,https://www.googleapis.com/auth/bigquery",
    ],
    box.env,
  );
  assert.equal(scoped.code, 0, scoped.stderr);
  assert.deepEqual(
    new Set(emu.checkAccessToken(scoped.stdout.trim())?.scopes),
    new Set(["https://www.googleapis.com/auth/devstorage.read_only", "https://www.googleapis.com/auth/bigquery"]),
  );
  assert.equal(emu.stats().tokenRequests, before + 2);
  const again = await printToken(
    [path, "--scopes", "https://www.googleapis.com/auth/bigquery,https://www.googleapis.com/auth/devstorage.read_only"],
    box.env,
  );
  assert.equal(again.stdout, scoped.stdout, "same scopes in another order: same cache entry");
  assert.equal((await printToken([path], box.env)).stdout, plain.stdout);
  assert.equal(emu.stats().tokenRequests, before + 2);
  assert.equal(cacheFiles(box.tokenCache).length, 2);
});

test("--scopes on user credentials: a warning, and the token of the granted scopes", async () => {
  const box = sandbox(emu);
  const { path } = await userFile(emu, box);
  const r = await printToken([path, "--scopes", "https://www.googleapis.com/auth/bigquery"], box.env);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^cred-auth: warning: --scopes is ignored for user credentials/);
  assert.deepEqual(emu.checkAccessToken(r.stdout.trim())?.scopes, [CLOUD_PLATFORM]);
});

test("expired, nearly expired and corrupt cache entries are refreshed and replaced", async () => {
  const box = sandbox(emu);
  const { path } = await userFile(emu, box);
  const first = (await printToken([path], box.env)).stdout.trim();
  const [entry] = cacheFiles(box.tokenCache);
  const file = join(box.tokenCache, entry!);
  const rewrite = (expiry: number): void => {
    const cached = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...cached, expiry_date: expiry }));
  };
  let requests = emu.stats().tokenRequests;
  for (const [what, damage] of [
    ["expired", () => rewrite(Date.now() - 1000)],
    ["4 minutes left", () => rewrite(Date.now() + 4 * 60_000)],
    ["corrupt", () => writeFileSync(file, '{"access_token": "ya29.trunc')],
    ["empty", () => writeFileSync(file, "")],
  ] as const) {
    damage();
    const r = await printToken([path], box.env);
    assert.equal(r.code, 0, `${what}: ${r.stderr}`);
    assert.equal(r.stderr, "", what);
    assert.notEqual(r.stdout.trim(), first, what);
    assert.ok(emu.checkAccessToken(r.stdout.trim()), what);
    assert.equal(emu.stats().tokenRequests, ++requests, `${what}: one refresh`);
    const replaced = JSON.parse(readFileSync(file, "utf8"));
    assert.equal(replaced.access_token, r.stdout.trim(), `${what}: replaced in the cache`);
  }
});

test("token cache location: $XDG_CACHE_HOME/cred-auth/tokens by default; CRED_AUTH_TOKEN_CACHE=off caches nothing", async () => {
  const box = sandbox(emu);
  const { path } = await userFile(emu, box);
  const { CRED_AUTH_TOKEN_CACHE: _, ...xdgEnv } = box.env;
  assert.equal((await printToken([path], xdgEnv)).code, 0);
  assert.equal(cacheFiles(join(box.dir, ".cache", "cred-auth", "tokens")).length, 1);

  const before = emu.stats().tokenRequests;
  const off = { ...box.env, CRED_AUTH_TOKEN_CACHE: "off" };
  const a = await printToken([path], off);
  const b = await printToken([path], off);
  assert.deepEqual([a.code, b.code], [0, 0]);
  assert.notEqual(a.stdout, b.stdout);
  assert.equal(emu.stats().tokenRequests, before + 2);
  assert.equal(cacheFiles(box.tokenCache).length, 0);
});

test("an unwritable token cache still prints tokens", async () => {
  const box = sandbox(emu);
  const { path } = await userFile(emu, box);
  writeFileSync(join(box.dir, "blocker"), "not a directory");
  const r = await printToken([path], { ...box.env, CRED_AUTH_TOKEN_CACHE: join(box.dir, "blocker", "tokens") });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(emu.checkAccessToken(r.stdout.trim()));
});

test("bad credentials files: exit 1, one line naming the file, no stack", async () => {
  const box = sandbox(emu);
  const { json: user } = await userFile(emu, box);
  const dir = join(box.dir, "bad");
  mkdirSync(dir);
  const files: Record<string, string | null> = {
    "missing.json": null,
    "empty.json": "",
    "not-json.json": "client_id=abc",
    "truncated.json": '{"type": "authorized_user", "client_id": "x"',
    "array.json": "[]",
    "no-type.json": JSON.stringify({ client_id: "x" }),
    "unknown-type.json": JSON.stringify({ type: "external_account" }),
    "no-refresh-token.json": JSON.stringify({ ...user, refresh_token: undefined }),
    "number-secret.json": JSON.stringify({ ...user, client_secret: 42 }),
    "bad-key.json": JSON.stringify({
      type: "service_account",
      project_id: "p",
      client_email: "a@b",
      private_key: "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n",
    }),
    "http-token-uri.json": JSON.stringify({ ...user, token_uri: "http://evil.example/token" }),
  };
  for (const [name, content] of Object.entries(files)) if (content !== null) writeFileSync(join(dir, name), content);
  mkdirSync(join(dir, "a-directory.json"));
  for (const name of [...Object.keys(files), "a-directory.json"]) {
    const path = join(dir, name);
    const r = await printToken([path], box.env);
    assert.equal(r.code, 1, `${name}: ${r.stderr}`);
    assert.equal(r.stdout, "", name);
    const lines = r.stderr.split("\n").filter(Boolean);
    assert.equal(lines.length, 1, `${name}: ${r.stderr}`);
    assert.match(lines[0]!, /^cred-auth: /);
    assert.ok(lines[0]!.includes(path), `${name}: the message names the file: ${lines[0]}`);
  }
});

test("revoked refresh token: exit 1 and a message that says to sign in again; CRED_AUTH_DEBUG=1 adds the stack", async () => {
  const box = sandbox(emu);
  const { path, json } = await userFile(emu, box);
  emu.revokeRefreshToken(json.refresh_token!);
  const r = await printToken([path], box.env);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /^cred-auth: .*invalid_grant.*sign in again.*\n$/);
  assert.equal(r.stderr.split("\n").filter(Boolean).length, 1);
  const debug = await printToken([path], { ...box.env, CRED_AUTH_DEBUG: "1" });
  assert.equal(debug.code, 1);
  assert.match(debug.stderr, /^cred-auth: .*invalid_grant/);
  assert.match(debug.stderr, /\n\s+at /, "the stack under CRED_AUTH_DEBUG=1");
  assert.equal(cacheFiles(box.tokenCache).length, 0, "nothing cached");
});

test("token server unreachable or failing: exit 3", async () => {
  const box = sandbox(emu);
  const { path } = await userFile(emu, box);
  const port = await closedPort();
  const original = JSON.parse(readFileSync(path, "utf8"));
  const unreachable = join(box.dir, "unreachable.json");
  writeFileSync(unreachable, JSON.stringify({ ...original, token_uri: `http://127.0.0.1:${port}/token` }));
  const down = await printToken([unreachable], { ...box.env, CRED_AUTH_EMULATOR_HOST: `127.0.0.1:${port}` });
  assert.equal(down.code, 3, down.stderr);
  assert.match(down.stderr, /^cred-auth: .*nothing answers at the emulator's address .*ECONNREFUSED/);
  assert.equal(down.stderr.split("\n").filter(Boolean).length, 1);

  emu.failNext(10, { status: 503 });
  const failing = await printToken([path], box.env);
  emu.reset();
  assert.equal(failing.code, 3, failing.stderr);
  assert.match(failing.stderr, /^cred-auth: .*503/);
});

test("an unexpected error: exit 1, a generic line without its message; the stack only under CRED_AUTH_DEBUG=1", async () => {
  const box = sandbox(emu);
  const { path } = await userFile(emu, box);
  // A preload that breaks the clock makes the token cache throw a TypeError nobody planned for.
  const preload = join(box.dir, "break-clock.cjs");
  writeFileSync(preload, `Date.now = () => { throw new TypeError("message that could hold ya29.not-for-users"); };\n`);
  const r = await runCli(["print-token", path], box.env, { nodeArgs: ["--require", preload] });
  outputs.push(r.stdout, r.stderr);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, "cred-auth: unexpected TypeError; run again with CRED_AUTH_DEBUG=1 to see details\n");
  const debug = await runCli(
    ["print-token", path],
    { ...box.env, CRED_AUTH_DEBUG: "1" },
    { nodeArgs: ["--require", preload] },
  );
  assert.equal(debug.code, 1);
  assert.match(debug.stderr, /^cred-auth: unexpected TypeError.*\nTypeError: message that could hold/);
  assert.match(debug.stderr, /\n\s+at /);
});

test("a reader that closes the pipe early (| head -c1, | true) does not make print-token crash noisily", {
  skip: process.platform === "win32",
}, async () => {
  const box = sandbox(emu);
  const { path } = await userFile(emu, box);
  await printToken([path], box.env);
  const sh = promisify(execFile);
  for (const reader of ["head -c1", "true"]) {
    const script = `"$NODE" "$CLI" print-token "$CREDS" | ${reader} >/dev/null; echo "status=\${PIPESTATUS[0]}" >&2`;
    const { stderr } = await sh("bash", ["-c", script], {
      env: { ...box.env, NODE: process.execPath, CLI, CREDS: path },
    });
    outputs.push(stderr);
    assert.equal(withoutNotice(stderr).stderr, "status=0\n", `| ${reader}`);
  }
});

test("no output of any run in this file holds a refresh token, client secret or private key", () => {
  assert.ok(secrets.length >= 4 && outputs.length > 20);
  for (const output of outputs) assert.deepEqual(secretsIn(output, secrets), []);
});
