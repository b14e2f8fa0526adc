// Malformed credentials files, from test/fixtures/bad/ and made at test time (huge, deep,
// directories, links, FIFOs, devices): every reader refuses each one with a one-line
// CredCredentialsError naming the file and the problem; the cache treats it as absent with one
// warning; the CLI exits 1 with one line. Nothing crashes, nothing hangs.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import {
  CredCredentialsError,
  ERROR_CODES,
  cache,
  loadServiceAccountCredentials,
  loadUserCredentials,
} from "cred-auth";
import { readCredentialsFile } from "../../dist/stores/credentials-file.js";
import { CACHE_WARNING_CODE } from "../../dist/credentials-cache/disk.js";
import { tempDir, userFileFields } from "../support/files.ts";
import { closedPort, interceptWarnings, isolatedEnv, lines, mapLimit, runCli, runNode } from "./support.ts";

const FIXTURES = fileURLToPath(new URL("../fixtures/bad/", import.meta.url));

const EMPTY = /is empty; sign in again or point to the right file\.$/;
const NOT_UTF8 = /is not UTF-8 text; a credentials file is JSON\.$/;
const NOT_JSON = /is not valid JSON( \(line \d+, column \d+\))?; it is not a credentials file, or it was damaged\.$/;
const CUT_SHORT =
  /ends before its JSON is complete( \(line \d+, column \d+\))?: it was cut short \(an interrupted copy, download or write\?\); copy or download it again, or sign in again to write a new one\.$/;
const TOP = (kind: string) => new RegExp(`holds ${kind}, not a JSON object\\.$`);
const TYPE = (what: string) =>
  new RegExp(`has type ${what}; cred-auth accepts "authorized_user" or "service_account"\\.$`);
const MISSING = (field: string) =>
  new RegExp(
    `is missing the required field "${field}": add it, or make the file again \\(sign in, or download the key\\)\\.$`,
  );
const WRONG = (kind: string, field: string) => new RegExp(`has ${kind} in "${field}" where a string belongs\\.$`);
/** A token_uri the URL policy refuses (trust/urls.ts): the file parses, no loader sends its secret there. */
const TOKEN_URI = (at: string) =>
  new RegExp(
    `names "${at}" as its token_uri, not Google's token endpoint \\(oauth2\\.googleapis\\.com\\)( \\(http only with CRED_AUTH_EMULATOR_HOST set\\))?: no token goes there; fix it or remake the file\\.$`,
  );
const SCOPES = /has "scopes" that is not an array of scope strings\.$/;
const KEY = /has a "private_key" that is not a valid PEM private key; download a new key for this service account\.$/;

/** The problem each committed fixture must be refused for. */
const EXPECTED: Record<string, RegExp> = {
  "empty.json": EMPTY,
  "whitespace.json": EMPTY,
  "bom-only.json": EMPTY,
  "binary.bin": NOT_UTF8,
  "latin1.json": NOT_UTF8,
  "utf16le-bom.json": NOT_UTF8,
  "double-bom.json": NOT_JSON,
  "nul-padded.json": NOT_JSON,
  "truncated.json": CUT_SHORT,
  "trailing-garbage.json": NOT_JSON,
  "two-documents.json": NOT_JSON,
  "single-quotes.json": NOT_JSON,
  "comments.json": NOT_JSON,
  "deep-nesting.json": WRONG("an array", "client_id"),
  "top-array.json": TOP("an array"),
  "top-string.json": TOP("a string"),
  "top-number.json": TOP("a number"),
  "top-null.json": TOP("null"),
  "top-true.json": TOP("a boolean"),
  "no-type.json": /has no "type" field; expected "authorized_user" or "service_account"\.$/,
  "type-external-account.json": TYPE('"external_account"'),
  "type-external-account-header-crlf.json": TYPE('"external_account"'),
  "type-number.json": TYPE("a number"),
  "type-markup.json": TYPE("an unsupported string"),
  "type-uppercase.json": TYPE('"AUTHORIZED_USER"'),
  "user-missing-client_id.json": MISSING("client_id"),
  "user-missing-client_secret.json": MISSING("client_secret"),
  "user-missing-refresh_token.json": MISSING("refresh_token"),
  "user-client_id-null.json": MISSING("client_id"),
  "user-client_id-number.json": WRONG("a number", "client_id"),
  "user-client_secret-object.json": WRONG("an object", "client_secret"),
  "user-refresh_token-array.json": WRONG("an array", "refresh_token"),
  "user-refresh_token-empty.json": /has an empty "refresh_token"\.$/,
  "user-token_uri-number.json": WRONG("a number", "token_uri"),
  "user-token_uri-http-remote.json": TOKEN_URI("http://token.example.com"),
  "user-token_uri-file.json": TOKEN_URI("file://"),
  "user-token_uri-not-url.json": /has a token_uri that is not a URL; write it again\.$/,
  "user-scopes-number.json": SCOPES,
  "user-scopes-mixed.json": SCOPES,
  "user-id_token-bool.json": WRONG("a boolean", "id_token"),
  "user-quota_project_id-array.json": WRONG("an array", "quota_project_id"),
  "user-universe_domain-number.json": WRONG("a number", "universe_domain"),
  "user-account-object.json": WRONG("an object", "account"),
  "sa-missing-project_id.json": MISSING("project_id"),
  "sa-missing-private_key.json": MISSING("private_key"),
  "sa-missing-client_email.json": MISSING("client_email"),
  "sa-project_id-number.json": WRONG("a number", "project_id"),
  "sa-private_key-number.json": WRONG("a number", "private_key"),
  "sa-client_email-array.json": WRONG("an array", "client_email"),
  "sa-private_key_id-number.json": WRONG("a number", "private_key_id"),
  "sa-client_id-bool.json": WRONG("a boolean", "client_id"),
  "sa-token_uri-bool.json": WRONG("a boolean", "token_uri"),
  "sa-quota_project_id-number.json": WRONG("a number", "quota_project_id"),
  "sa-universe_domain-object.json": WRONG("an object", "universe_domain"),
  "sa-private_key-garbage.json": KEY,
  "sa-private_key-truncated.json": KEY,
  "sa-private_key-empty-pem.json": KEY,
  "sa-private_key-public-key.json": KEY,
  "sa-private_key-not-pem.json": KEY,
};

interface BadCase {
  name: string;
  /** Creates the bad thing at or around `path` (a file path in a fresh directory). Returns the path to read. */
  build(path: string): string;
  problem: RegExp;
  /** `absent`: the cache sees nothing there at all (no warning). Default: one warning. */
  cache?: "absent";
  /** The file parses; the URL policy refuses it where its secret would be sent (ERR_UNSAFE_TOKEN_URL). */
  policy?: true;
}

/** The committed fixtures whose shape is fine and whose token_uri the URL policy refuses. */
const POLICY = new Set(["user-token_uri-http-remote.json", "user-token_uri-file.json", "user-token_uri-not-url.json"]);

const MiB = 1024 * 1024;

const MADE_AT_TEST_TIME: BadCase[] = [
  {
    name: "2 MiB file",
    build: (path) => {
      writeFileSync(path, `{"pad": "${"x".repeat(2 * MiB)}"}`);
      return path;
    },
    problem: /is larger than 1 MiB, far more than any credentials file\.$/,
  },
  {
    name: "400,000-deep JSON array",
    build: (path) => {
      writeFileSync(path, "[".repeat(400_000) + "]".repeat(400_000));
      return path;
    },
    problem: TOP("an array"),
  },
  {
    name: "a directory",
    build: (path) => {
      mkdirSync(path);
      return path;
    },
    problem: /is a directory, not a credentials file; give the path of the JSON file itself \(.*\)\.$/,
  },
  {
    name: "a symbolic-link loop",
    build: (path) => {
      symlinkSync(`${basename(path)}.other`, path);
      symlinkSync(basename(path), `${path}.other`);
      return path;
    },
    problem: /is a loop of symbolic links\.$/,
  },
  {
    name: "a dangling symbolic link",
    build: (path) => {
      symlinkSync("nowhere.json", path);
      return path;
    },
    problem: /does not exist; check the path or sign in to create it\.$/,
    cache: "absent",
  },
  {
    name: "a FIFO",
    build: (path) => {
      execFileSync("mkfifo", [path]);
      return path;
    },
    problem: /is not a regular file\.$/,
  },
  {
    name: "/dev/zero behind a link",
    build: (path) => {
      symlinkSync("/dev/zero", path);
      return path;
    },
    problem: /is not a regular file\.$/,
  },
  {
    name: "a path under a regular file",
    build: (path) => {
      writeFileSync(join(dirname(path), "file"), "x");
      return join(dirname(path), "file", basename(path));
    },
    problem: /is under something that is not a directory; check the path\.$/,
  },
  {
    name: "a name too long",
    build: (path) => join(dirname(path), `${"x".repeat(300)}.json`),
    problem: /is a path that is too long\.$/,
  },
];

const UNREADABLE: BadCase = {
  name: "a file without read permission",
  build: (path) => {
    copyFileSync(join(FIXTURES, "no-type.json"), path);
    chmodSync(path, 0o000);
    return path;
  },
  problem: /cannot be read \(permission denied\); check the file's owner and mode\.$/,
};

function allCases(): BadCase[] {
  const committed = readdirSync(FIXTURES).filter((name) => name !== "README.md");
  const unexpected = committed.filter((name) => !(name in EXPECTED));
  assert.deepEqual(unexpected, [], "every fixture has an expected problem");
  assert.ok(committed.length >= 30, `at least 30 committed bad files (${committed.length})`);
  const fixtures = committed.map((name) => ({
    name,
    problem: EXPECTED[name]!,
    ...(POLICY.has(name) ? { policy: true as const } : {}),
    build: (path: string) => {
      copyFileSync(join(FIXTURES, name), path);
      return path;
    },
  }));
  const runAsRoot = process.getuid?.() === 0;
  return [...fixtures, ...MADE_AT_TEST_TIME, ...(runAsRoot ? [] : [UNREADABLE])];
}

/** Builds every case in its own directory under `root`; returns the paths to read. */
function buildAll(root: string, cases: BadCase[]): string[] {
  return cases.map((badCase, index) => {
    const dir = join(root, `case-${index}`);
    mkdirSync(dir, { recursive: true });
    return badCase.build(join(dir, "cred_credentials.json"));
  });
}

function assertRefused(error: unknown, path: string, badCase: BadCase, via: string): true {
  assert.ok(
    error instanceof CredCredentialsError,
    `${badCase.name} via ${via}: CredCredentialsError, got ${(error as Error)?.name}: ${(error as Error)?.message}`,
  );
  if (badCase.policy) assert.equal(error.code, ERROR_CODES.UNSAFE_TOKEN_URL, `${badCase.name} via ${via}`);
  const prefix = `Credentials file ${JSON.stringify(path)} `;
  assert.ok(error.message.startsWith(prefix), `${badCase.name} via ${via}: names the file: ${error.message}`);
  assert.match(error.message, badCase.problem, `${badCase.name} via ${via}`);
  assert.ok(!/[\r\n]/.test(error.message), `${badCase.name} via ${via}: one line`);
  return true;
}

// Should a case ever parse, the loaders must fail fast, not reach for Google.
process.env.CRED_AUTH_EMULATOR_HOST = `127.0.0.1:${await closedPort()}`;
process.env.CRED_AUTH_HOSTED = "off";

// A file without read permission is in allCases() when not root; as root (CI) it is covered by
// test/formats/credentials-file.test.ts, which reads it as "nobody" in a child process.

test("readCredentialsFile, loadUserCredentials and loadServiceAccountCredentials refuse every bad file", {
  timeout: 60_000,
}, async (t) => {
  const cases = allCases();
  const paths = buildAll(tempDir(t, "cred-auth-bad-"), cases);
  await Promise.all(
    cases.map(async (badCase, index) => {
      const path = paths[index]!;
      if (badCase.policy) {
        // The shape is fine; the token_uri is judged where the refresh token would go.
        assert.equal((await readCredentialsFile(path)).type, "authorized_user", badCase.name);
        await assert.rejects(loadUserCredentials(path), (error) =>
          assertRefused(error, path, badCase, "loadUserCredentials"),
        );
        return;
      }
      await assert.rejects(readCredentialsFile(path), (error) =>
        assertRefused(error, path, badCase, "readCredentialsFile"),
      );
      await assert.rejects(loadUserCredentials(path), (error) =>
        assertRefused(error, path, badCase, "loadUserCredentials"),
      );
      await assert.rejects(loadServiceAccountCredentials(path), (error) =>
        assertRefused(error, path, badCase, "loadServiceAccountCredentials"),
      );
    }),
  );
});

test("the cache treats every bad file as absent, with exactly one CRED_AUTH_CACHE warning naming the problem", {
  timeout: 60_000,
}, async (t) => {
  const home = tempDir(t, "cred-auth-bad-home-");
  const saved = process.env.HOME;
  process.env.HOME = home;
  t.after(() => (process.env.HOME = saved));
  const configDir = join(home, ".config");
  const warnings = interceptWarnings(t, (warning) => warning.code === CACHE_WARNING_CODE);

  const cases = allCases();
  const paths = buildAll(configDir, cases);
  for (const [index, badCase] of cases.entries()) {
    const path = paths[index]!;
    const credentialsCache = new cache.ReadWriteCredentialsCache({
      dirname: relative(configDir, dirname(path)),
      filename: basename(path),
    });
    assert.equal(credentialsCache.path, path);
    warnings.length = 0;
    assert.equal(await credentialsCache.load(), null, `${badCase.name}: no credentials`);
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    if (badCase.cache === "absent") {
      assert.equal(warnings.length, 0, `${badCase.name}: nothing there, nothing to warn about`);
      continue;
    }
    assert.equal(warnings.length, 1, `${badCase.name}: one warning`);
    const message = warnings[0]!.message;
    assert.ok(
      message.startsWith(`Ignoring the cached credentials: Credentials file ${JSON.stringify(path)} `),
      message,
    );
    assert.match(message.replace(/ The next sign-in replaces the file\.$/, ""), badCase.problem, badCase.name);
  }
});

test("cred-auth print-token exits 1 with one line naming the file and the problem, for every bad file", {
  timeout: 120_000,
}, async (t) => {
  const home = tempDir(t, "cred-auth-bad-cli-");
  const cases = allCases();
  const paths = buildAll(join(home, "files"), cases);
  const env = isolatedEnv(home, {
    CRED_AUTH_EMULATOR_HOST: process.env.CRED_AUTH_EMULATOR_HOST!,
    CRED_AUTH_TOKEN_CACHE: join(home, "tokens"),
  });
  await mapLimit(cases, 4, async (badCase, index) => {
    const path = paths[index]!;
    const result = await runCli(["print-token", path], { env, killAfterMs: 30_000 });
    assert.equal(result.signal, null, `${badCase.name}: did not hang`);
    assert.equal(result.code, 1, `${badCase.name}: exit 1; stderr: ${result.stderr}`);
    assert.equal(result.stdout, "", badCase.name);
    const errorLines = lines(result.stderr);
    assert.equal(errorLines.length, 1, `${badCase.name}: one line: ${result.stderr}`);
    assert.ok(errorLines[0]!.startsWith(`cred-auth: Credentials file ${JSON.stringify(path)} `), errorLines[0]);
    assert.match(errorLines[0]!, / \(ERR_[A-Z_]+\)$/, `${badCase.name}: the line ends with its code`);
    const message = errorLines[0]!.replace(/ \(ERR_[A-Z_]+\)$/, "");
    assert.match(message, CLI_EXPECTED[badCase.name] ?? badCase.problem, badCase.name);
  });
});

/** Where print-token, which reads every ADC type it knows, refuses a file for another reason than the library's loaders. */
const CLI_EXPECTED: Record<string, RegExp> = {
  "type-external-account.json":
    /has no "audience" string; write it again with gcloud or your administrator's config\.$/,
  // Refused when read, before any request: the value (a secret) is never shown.
  "type-external-account-header-crlf.json":
    /has a "credential_source\.headers\.Authorization" value holding a character no HTTP header can carry \(CR, LF, NUL, another control character or one above U\+00FF; the value is not shown\); write it again with gcloud or your administrator's config\.$/,
};

test("a service account key at the cache path is another kind of credentials: absent for the user cache, one warning", async (t) => {
  const home = tempDir(t, "cred-auth-bad-sa-");
  const saved = process.env.HOME;
  process.env.HOME = home;
  t.after(() => (process.env.HOME = saved));
  const { keyFileFields } = await import("../support/files.ts");
  const credentialsCache = new cache.ReadWriteCredentialsCache({ dirname: "sa" });
  mkdirSync(dirname(credentialsCache.path), { recursive: true });
  writeFileSync(credentialsCache.path, JSON.stringify(keyFileFields()));
  const warnings = interceptWarnings(t, (warning) => warning.code === CACHE_WARNING_CODE);
  assert.equal(await credentialsCache.load(), null);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0]!.message,
    /holds "service_account" credentials, not "authorized_user"; load it with loadServiceAccountCredentials\(\)\./,
  );
  await assert.rejects(
    loadUserCredentials(credentialsCache.path),
    /holds "service_account" credentials, not "authorized_user"/,
  );
});

/** What may be found at a token-cache entry's path instead of a token: print-token must refresh, not hang or fail. */
const BAD_TOKEN_ENTRIES: Array<[string, (path: string) => void]> = [
  ["a FIFO", (path) => execFileSync("mkfifo", [path])],
  ["/dev/zero behind a link", (path) => symlinkSync("/dev/zero", path)],
  ["a directory", (path) => mkdirSync(path)],
  [
    "a 2 MiB file",
    (path) => writeFileSync(path, `{"access_token": "${"x".repeat(2 * MiB)}", "expiry_date": 9999999999999}`),
  ],
  [
    "a symbolic-link loop",
    (path) => {
      symlinkSync(`${basename(path)}.other`, path);
      symlinkSync(basename(path), `${path}.other`);
    },
  ],
  ["garbage bytes", (path) => writeFileSync(path, Buffer.from([0xff, 0xfe, 0x00, 0x7b]))],
  [
    "an access_token that is a number",
    (path) => writeFileSync(path, JSON.stringify({ access_token: 5, expiry_date: Date.now() + 3_600_000 })),
  ],
  ["no expiry", (path) => writeFileSync(path, JSON.stringify({ access_token: "cached-but-no-expiry" }))],
];

test("print-token refreshes, never hangs or fails, whatever sits at its token-cache entry", {
  timeout: 120_000,
}, async (t) => {
  const { startEmulator } = await import("cred-auth/emulator");
  const { testCredentialsFile } = await import("../support/emulator.ts");
  const { tokenCacheKey } = await import("../../dist/token-cache/index.js");
  const { readCredentialsFile: read } = await import("../../dist/stores/credentials-file.js");
  const emu = await startEmulator();
  t.after(() => emu.close());
  const home = tempDir(t, "cred-auth-bad-tokens-");
  const path = await testCredentialsFile(emu, home, { scopes: ["https://www.googleapis.com/auth/cloud-platform"] });
  const file = await read(path);
  assert.equal(file.type, "authorized_user");
  const key = tokenCacheKey(
    file as Parameters<typeof tokenCacheKey>[0],
    (file as { scopes?: string[] }).scopes ?? [],
    (file as { tokenUrl?: string }).tokenUrl,
  );
  await mapLimit(BAD_TOKEN_ENTRIES, 4, async ([name, plant], index) => {
    const tokens = join(home, `tokens-${index}`);
    mkdirSync(tokens, { recursive: true, mode: 0o700 });
    plant(join(tokens, `${key}.json`));
    const env = isolatedEnv(home, { CRED_AUTH_TOKEN_CACHE: tokens });
    const result = await runCli(["print-token", path], { env, killAfterMs: 20_000 });
    assert.equal(result.signal, null, `${name}: did not hang`);
    assert.equal(result.code, 0, `${name}: ${result.stderr}`);
    assert.equal(result.stderr, "", name);
    assert.ok(emu.checkAccessToken(result.stdout.trim()), `${name}: a fresh token from the token server`);
  });
});

test("a FIFO or directory where a token-cache lock belongs only delays the refresh", async (t) => {
  // In a child: a reader blocked on a FIFO would block this process's event loop, timeouts included.
  const dir = tempDir(t, "cred-auth-bad-locks-");
  const store = new URL("../../dist/token-cache/index.js", import.meta.url).href;
  const script = `
    const { execFileSync } = await import("node:child_process");
    const { mkdirSync } = await import("node:fs");
    const { getTokenWithCache } = await import(${JSON.stringify(store)});
    const dir = ${JSON.stringify(dir)};
    execFileSync("mkfifo", [dir + "/${"f".repeat(64)}.lock"]);
    mkdirSync(dir + "/${"d".repeat(64)}.lock");
    for (const key of ["${"f".repeat(64)}", "${"d".repeat(64)}"]) {
      const token = await getTokenWithCache(key, async () => ({ access_token: "fresh-" + key, expiry_date: Date.now() + 3600000, token_type: "Bearer" }), { dir, lockWaitMs: 200 });
      process.stdout.write(token.access_token + "\\n");
    }
  `;
  const result = await runNode(["--input-type=module", "-e", script], { killAfterMs: 20_000 });
  assert.equal(result.signal, null, "did not hang");
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(lines(result.stdout), [`fresh-${"f".repeat(64)}`, `fresh-${"d".repeat(64)}`]);
});

test("GOOGLE_APPLICATION_CREDENTIALS, --client-secret-file and CRED_AUTH_CLIENT_SECRET_FILE at a FIFO or /dev/zero fail fast", {
  timeout: 120_000,
}, async (t) => {
  // In children: a reader stuck on a FIFO can keep even process.exit() from ending a process.
  const home = tempDir(t, "cred-auth-bad-special-");
  const fifo = join(home, "fifo.json");
  execFileSync("mkfifo", [fifo]);
  const zero = join(home, "zero.json");
  symlinkSync("/dev/zero", zero);
  const index = new URL("../../dist/index.js", import.meta.url).href;
  for (const special of [fifo, zero]) {
    const env = isolatedEnv(home, { GOOGLE_APPLICATION_CREDENTIALS: special });
    const script = `
      const { default: credAuth } = await import(${JSON.stringify(index)});
      try {
        await credAuth.default(["https://www.googleapis.com/auth/cloud-platform"], { openBrowser: false });
      } catch (error) {
        process.stdout.write(error.name + ": " + error.message);
      }
    `;
    const adc = await runNode(["--no-warnings", "--input-type=module", "-e", script], { env, killAfterMs: 30_000 });
    assert.equal(adc.signal, null, `default() with GOOGLE_APPLICATION_CREDENTIALS=${special} did not hang`);
    assert.match(adc.stdout, /^CredCredentialsError: Could not get any valid credentials\./);
    assert.ok(adc.stdout.includes(`Credentials file ${JSON.stringify(special)} is not a regular file.`), adc.stdout);

    for (const [how, args, extraEnv] of [
      ["--client-secret-file", ["--client-secret-file", special], {}],
      ["CRED_AUTH_CLIENT_SECRET_FILE", [], { CRED_AUTH_CLIENT_SECRET_FILE: special }],
    ] as const) {
      const result = await runCli(["login", join(home, "out.json"), "--no-browser", ...args], {
        env: isolatedEnv(home, extraEnv),
        killAfterMs: 30_000,
      });
      assert.equal(result.signal, null, `login with ${how}=${special} did not hang`);
      assert.equal(result.code, 1, `${how}: ${result.stderr}`);
      const errorLines = lines(result.stderr);
      assert.equal(errorLines.length, 1, result.stderr);
      assert.match(errorLines[0]!, /client-secret file .* \(ENOTFILE\)/);
    }
  }
});

test("an unreadable file (permission denied)", async (t) => {
  const dir = tempDir(t);
  chmodSync(dir, 0o755);
  const path = join(dir, "secret.json");
  writeFileSync(path, JSON.stringify(userFileFields()), { mode: 0o600 });
  chmodSync(path, 0o000);
  if (process.getuid?.() !== 0)
    return assert.rejects(readCredentialsFile(path), /cannot be read \(permission denied\)/);
  // root reads anything: read as "nobody" in a child process instead. (Here, not in test/formats/credentials-file.test.ts:
  // the mutation run's sandbox is a 0700 directory that "nobody" cannot enter.)
  const script = `import("${new URL("../../dist/stores/credentials-file.js", import.meta.url).href}").then((f) => f.readCredentialsFile(${JSON.stringify(path)})).then(() => console.log("READ"), (e) => console.log(e.name + ": " + e.message))`;
  const child = spawnSync(process.execPath, ["-e", script], { uid: 65534, gid: 65534, encoding: "utf8" });
  assert.equal(child.status, 0, child.stderr);
  assert.match(
    child.stdout,
    /^CredentialsFileError: Credentials file ".*secret\.json" cannot be read \(permission denied\)/,
  );
});
