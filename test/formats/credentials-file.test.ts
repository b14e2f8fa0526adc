import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  lchownSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { CredCredentialsError } from "cred-auth";
import * as files from "../../dist/stores/credentials-file.js";
import { CredentialsFileError } from "../../dist/formats/credentials-file.js";
import { authorizedUserFile, userCredentialsJson } from "../../dist/credentials/kinds/user/file.js";
import { parseCredentialsBytes } from "../../dist/credentials/kinds/file.js";
import {
  asModel,
  assertNoSecrets,
  keyFileFields,
  keyModel,
  tempDir,
  userFileFields,
  userModel,
} from "../support/files.ts";

const {
  readCredentialsFile,
  readCredentialsFileSync,
  writeUserCredentialsFile,
  readAuthorizedUserFile,
  readServiceAccountKeyFile,
} = files;
const require = createRequire(import.meta.url);
const fs = require("node:fs") as typeof import("node:fs");
const fsp = require("node:fs/promises") as typeof import("node:fs/promises");
const crypto = require("node:crypto") as typeof import("node:crypto");
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

/**
 * Asserts reading `path` fails (async and sync alike) with a CredentialsFileError (a
 * CredCredentialsError, code ERR_FILE_INVALID) naming the file, on one line, with no secret.
 * `problem` is a pattern, or the exact words after the quoted path (the whole message is then checked).
 */
async function assertRejects(path: string, problem: RegExp | string): Promise<void> {
  for (const read of [() => readCredentialsFile(path), async () => readCredentialsFileSync(path)]) {
    await assert.rejects(read, (error: unknown) => {
      assertFileError(error, path, problem);
      return true;
    });
  }
}

function assertFileError(error: unknown, path: string, problem: RegExp | string): void {
  assert.ok(error instanceof CredentialsFileError, `expected CredentialsFileError, got ${String(error)}`);
  assert.ok(error instanceof CredCredentialsError);
  assert.equal(error.name, "CredentialsFileError");
  assert.equal(error.code, "ERR_FILE_INVALID");
  assert.equal(error.path, path);
  assert.equal(error.problem, /does not exist/.test(error.message) ? "missing" : "invalid");
  assert.ok(error.message.includes(JSON.stringify(path)), `message should name the file: ${error.message}`);
  if (typeof problem === "string") assert.equal(error.message, `Credentials file ${JSON.stringify(path)} ${problem}.`);
  else assert.match(error.message, problem);
  assert.ok(!error.message.includes("\n"), "one-line message");
  assertNoSecrets(error.message);
}

function write(dir: string, name: string, content: string | Uint8Array | object): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" || content instanceof Uint8Array ? content : JSON.stringify(content));
  return path;
}

test("a valid authorized_user file parses, with scopes and optional fields", async (t) => {
  const dir = tempDir(t);
  const path = write(
    dir,
    "user.json",
    userFileFields({
      scopes: ["a", "b"],
      token_uri: "https://oauth2.googleapis.com/token",
      quota_project_id: "qp",
      account: "",
    }),
  );
  const file = await readCredentialsFile(path);
  assert.equal(file.type, "authorized_user");
  assert.deepEqual(file, {
    ...userModel(),
    scopes: ["a", "b"],
    tokenUrl: "https://oauth2.googleapis.com/token",
    quotaProjectId: "qp",
  });
  assert.deepEqual(readCredentialsFileSync(path), file);
});

test("gcloud's ADC file (no scopes, empty account, universe_domain) parses", async () => {
  const file = await readAuthorizedUserFile(fixture("gcloud-adc.json"));
  assert.equal(file.clientId, "764086051850-6qr4p6gpi6hn506pt8ejuq83di341hur.apps.googleusercontent.com");
  assert.equal(file.universeDomain, "googleapis.com");
  assert.equal(file.account, undefined);
  assert.ok(!("scopes" in file), "no scopes key when the file has none");
});

test("pydata-google-auth's cache file parses, its scopes kept", async () => {
  const file = await readAuthorizedUserFile(fixture("pydata-cache.json"));
  assert.deepEqual(file.scopes, ["https://www.googleapis.com/auth/cloud-platform"]);
  assert.equal(file.tokenUrl, "https://oauth2.googleapis.com/token");
});

test("a space-separated scopes string (as Python google-auth accepts) becomes an array", () => {
  const file = parseCredentialsBytes(Buffer.from(JSON.stringify(userFileFields({ scopes: "a  b c" }))), "x.json");
  assert.ok(file.type === "authorized_user");
  assert.deepEqual(file.scopes, ["a", "b", "c"]);
});

test("a UTF-8 byte-order mark is accepted", async (t) => {
  const path = write(tempDir(t), "bom.json", `\uFEFF${JSON.stringify(userFileFields())}`);
  assert.equal((await readCredentialsFile(path)).type, "authorized_user");
});

test("a valid service_account key parses; the key is checked", async (t) => {
  const path = write(tempDir(t), "key.json", keyFileFields());
  const key = await readServiceAccountKeyFile(path);
  assert.equal(key.projectId, "proj-1");
  assert.equal(key.clientEmail, "robot@proj-1.iam.gserviceaccount.com");
  assert.match(key.privateKey, /BEGIN PRIVATE KEY/);
});

test("missing file", async (t) => {
  const path = join(tempDir(t), "nope.json");
  await assertRejects(path, /does not exist/);
  await assert.rejects(
    readCredentialsFile(path),
    (e: CredentialsFileError) => e.problem === "missing" && e.path === path,
  );
});

test("a directory", async (t) => {
  const path = join(tempDir(t), "dir.json");
  mkdirSync(path);
  await assertRejects(
    path,
    /^Credentials file "[^"]+dir\.json" is a directory, not a credentials file; give the path of the JSON file itself \(/,
  );
});

test("an OAuth client-secret file is named for what it is, with the sign-in that turns it into credentials", async (t) => {
  const dir = tempDir(t);
  const client = { client_id: "1-abc.apps.googleusercontent.com", client_secret: "SECRET-SHOULD-NOT-LEAK" };
  for (const kind of ["installed", "web"]) {
    const path = write(dir, `${kind}.json`, { [kind]: { ...client, redirect_uris: ["http://localhost"] } });
    await assertRejects(
      path,
      `is an OAuth client-secret file (an OAuth client's id and secret, as the Google Cloud console downloads it), not credentials; sign in with it to get credentials: cred-auth login credentials.json --client-secret-file ${JSON.stringify(path)}, then use credentials.json`,
    );
  }
  // Another untyped file is still told what types are expected.
  await assertRejects(write(dir, "other.json", { installed: "x" }), /has no "type" field/);
});

test("a FIFO is refused without blocking", async (t) => {
  const path = join(tempDir(t), "fifo.json");
  execFileSync("mkfifo", [path]);
  await assertRejects(path, /not a regular file/);
});

test("a symbolic link loop", async (t) => {
  const dir = tempDir(t);
  symlinkSync(join(dir, "b.json"), join(dir, "a.json"));
  symlinkSync(join(dir, "a.json"), join(dir, "b.json"));
  await assertRejects(join(dir, "a.json"), /loop of symbolic links/);
});

test("a path under a regular file", async (t) => {
  const file = write(tempDir(t), "plain", "x");
  await assertRejects(join(file, "creds.json"), /not a directory/);
});

test("empty and whitespace-only files", async (t) => {
  const dir = tempDir(t);
  await assertRejects(write(dir, "empty.json", ""), /is empty/);
  await assertRejects(write(dir, "blank.json", " \n\t\n"), /is empty/);
});

test("a file over 1 MiB is refused before reading it", async (t) => {
  const path = join(tempDir(t), "big.json");
  writeFileSync(path, Buffer.alloc(1024 * 1024 + 1, 0x20));
  await assertRejects(path, /larger than 1 MiB/);
});

test("bytes that are not UTF-8", async (t) => {
  await assertRejects(write(tempDir(t), "bin.json", Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x7d])), /not UTF-8/);
});

test("text that is not JSON, without quoting it", async (t) => {
  const dir = tempDir(t);
  const truncated = JSON.stringify(userFileFields()).slice(0, -20);
  await assertRejects(
    write(dir, "trunc.json", truncated),
    /ends before its JSON is complete \(line 1, column \d+\): it was cut short/,
  );
  await assertRejects(write(dir, "token.json", `{"refresh_token": refresh-token-SHOULD-NOT-LEAK}`), /not valid JSON/);
  await assertRejects(write(dir, "pos.json", `{"a": 1 "b"}`), /not valid JSON \(line 1, column \d+\)/);
});

test("JSON that is not an object", async (t) => {
  const dir = tempDir(t);
  await assertRejects(write(dir, "arr.json", "[]"), /holds an array, not a JSON object/);
  await assertRejects(write(dir, "str.json", '"refresh-token-SHOULD-NOT-LEAK"'), /holds a string, not a JSON object/);
  await assertRejects(write(dir, "num.json", "42"), /holds a number/);
  await assertRejects(write(dir, "null.json", "null"), /holds null/);
});

test("missing, wrong or odd type", async (t) => {
  const dir = tempDir(t);
  const { type: _type, ...untyped } = userFileFields();
  await assertRejects(
    write(dir, "untyped.json", untyped),
    /has no "type" field; expected "authorized_user" or "service_account"/,
  );
  await assertRejects(
    write(dir, "external.json", { ...untyped, type: "external_account" }),
    /has type "external_account"; cred-auth accepts "authorized_user" or "service_account"/,
  );
  await assertRejects(write(dir, "numtype.json", { ...untyped, type: 7 }), /has type a number/);
  await assertRejects(
    write(dir, "longtype.json", { ...untyped, type: "refresh-token-SHOULD-NOT-LEAK with spaces" }),
    /has type an unsupported string/,
  );
});

test("a private key that does not parse, never echoed", async (t) => {
  const dir = tempDir(t);
  const bogus =
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n-----END PRIVATE KEY-----\n";
  await assertRejects(
    write(dir, "badkey.json", keyFileFields({ private_key: bogus })),
    /"private_key" that is not a valid PEM private key/,
  );
  await assertRejects(
    write(dir, "notpem.json", keyFileFields({ private_key: "MIIsecret" })),
    /not a valid PEM private key/,
  );
  await assert.rejects(readCredentialsFile(join(dir, "badkey.json")), (e: Error) => {
    assert.ok(!String((e.cause as Error)?.message).includes("MII"), "cause must not carry the key either");
    return true;
  });
});

test("a user loader refuses a key file and vice versa, with a hint", async (t) => {
  const dir = tempDir(t);
  await assert.rejects(
    readAuthorizedUserFile(write(dir, "key.json", keyFileFields())),
    /holds "service_account" credentials, not "authorized_user"; load it with loadServiceAccountCredentials\(\)/,
  );
  await assert.rejects(
    readServiceAccountKeyFile(write(dir, "user.json", userFileFields())),
    /holds "authorized_user" credentials, not "service_account"; load it with loadUserCredentials\(\)/,
  );
});

test("writeUserCredentialsFile writes the ADC format, 0600, new dirs 0700, nothing left behind", async (t) => {
  const dir = tempDir(t);
  chmodSync(dir, 0o755);
  const path = join(dir, "new", "deeper", "creds.json");
  const data = { ...userModel(), scopes: ["s1", "s2"], idToken: "idtok", account: "ann@example.com" };
  await writeUserCredentialsFile(path, data);
  const json = JSON.parse(readFileSync(path, "utf8"));
  assert.deepEqual(Object.keys(json), [
    "type",
    "client_id",
    "client_secret",
    "refresh_token",
    "token_uri",
    "scopes",
    "id_token",
    "account",
  ]);
  assert.equal(json.token_uri, "https://oauth2.googleapis.com/token");
  assert.deepEqual(await readCredentialsFile(path), { ...data, tokenUrl: "https://oauth2.googleapis.com/token" });
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(statSync(join(dir, "new")).mode & 0o777, 0o700);
  assert.equal(statSync(join(dir, "new", "deeper")).mode & 0o777, 0o700);
  assert.equal(statSync(dir).mode & 0o777, 0o755, "existing directories keep their mode");
  assert.deepEqual(readdirSync(join(dir, "new", "deeper")), ["creds.json"]);
});

test("writeUserCredentialsFile refuses incomplete data and writes nothing", async (t) => {
  const dir = tempDir(t);
  const path = join(dir, "creds.json");
  await assert.rejects(
    writeUserCredentialsFile(path, { ...userModel(), refreshToken: "" }),
    /has an empty "refresh_token"/,
  );
  assert.deepEqual(readdirSync(dir), []);
});

test("writeUserCredentialsFile into an unwritable place is a clear CredCredentialsError", async (t) => {
  const file = write(tempDir(t), "plain", "x");
  await assert.rejects(writeUserCredentialsFile(join(file, "creds.json"), userModel()), (e: Error) => {
    assert.ok(e instanceof CredCredentialsError);
    assert.match(
      e.message,
      /^Could not write credentials to ".*creds\.json": part of the path is a file, not a directory \(E(NOTDIR|EXIST)\); choose another path\.$/,
    );
    return true;
  });
});

const errno = (code: string) => Object.assign(new Error(`${code}: stubbed`), { code });

/** Runs `body` while opening any file fails with `failure`, async and sync (restored after). */
async function withFailingOpen(failure: unknown, body: () => Promise<void>): Promise<void> {
  const [open, openSync] = [fsp.open, fs.openSync];
  fsp.open = (async () => {
    throw failure;
  }) as typeof fsp.open;
  fs.openSync = (() => {
    throw failure;
  }) as typeof fs.openSync;
  try {
    await body();
  } finally {
    [fsp.open, fs.openSync] = [open, openSync];
  }
}

const FIELDS = {
  authorized_user: {
    make: userFileFields,
    required: ["client_id", "client_secret", "refresh_token"],
    optional: ["token_uri", "id_token", "quota_project_id", "universe_domain", "account"],
  },
  service_account: {
    make: keyFileFields,
    required: ["project_id", "private_key", "client_email"],
    optional: ["private_key_id", "client_id", "token_uri", "universe_domain", "quota_project_id"],
  },
};
const WRONG_KINDS: Array<[unknown, string]> = [
  [5, "a number"],
  [true, "a boolean"],
  [false, "a boolean"],
  [{ a: "refresh-token-SHOULD-NOT-LEAK" }, "an object"],
  [["refresh-token-SHOULD-NOT-LEAK"], "an array"],
];

test("every required field, missing, null, empty or of another kind, is named in a one-line error", async (t) => {
  const dir = tempDir(t);
  for (const [type, { make, required }] of Object.entries(FIELDS)) {
    for (const name of required) {
      const { [name]: _dropped, ...rest } = make();
      const file = (label: string, content: object) => write(dir, `${type}-${name}-${label}.json`, content);
      const missing = `is missing the required field "${name}": add it, or make the file again (sign in, or download the key)`;
      await assertRejects(file("missing", rest), missing);
      await assertRejects(file("null", { ...rest, [name]: null }), missing);
      await assertRejects(file("empty", { ...rest, [name]: "" }), `has an empty "${name}"`);
      await assertRejects(file("blank", { ...rest, [name]: " \t" }), `has an empty "${name}"`);
      for (const [value, kind] of WRONG_KINDS) {
        await assertRejects(file(kind, { ...rest, [name]: value }), `has ${kind} in "${name}" where a string belongs`);
      }
    }
  }
});

test("every optional field: absent, null or empty means unknown (no key); another kind is named", async (t) => {
  const dir = tempDir(t);
  for (const [type, { make, optional }] of Object.entries(FIELDS)) {
    for (const name of optional) {
      const { [name]: _dropped, ...rest } = make();
      for (const [label, fields] of [
        ["absent", rest],
        ["null", { ...rest, [name]: null }],
        ["empty", { ...rest, [name]: "" }],
      ] as const) {
        const parsed = await readCredentialsFile(write(dir, `${type}-${name}-${label}.json`, fields));
        assert.deepEqual(parsed, asModel(rest), `${type} ${name} ${label}`);
        assert.ok(!(Object.keys(asModel({ [name]: "" }))[0] in parsed));
      }
      for (const [value, kind] of WRONG_KINDS) {
        await assertRejects(
          write(dir, `${type}-${name}-${kind}.json`, { ...rest, [name]: value }),
          `has ${kind} in "${name}" where a string belongs`,
        );
      }
    }
  }
});

test("fields cred-auth does not know are dropped, for both kinds of file", async (t) => {
  const dir = tempDir(t);
  const extra = { extra_field: "x", nested: { a: 1 }, private_key_id_2: 3 };
  assert.deepEqual(await readCredentialsFile(write(dir, "u.json", userFileFields(extra))), userModel());
  assert.deepEqual(
    await readCredentialsFile(write(dir, "k.json", keyFileFields({ ...extra, scopes: ["s"] }))),
    keyModel(),
  );
});

test("scopes: null means none; a string splits on any whitespace; blank or non-string entries are refused", async (t) => {
  const dir = tempDir(t);
  assert.deepEqual(await readCredentialsFile(write(dir, "null.json", userFileFields({ scopes: null }))), userModel());
  const split = await readCredentialsFile(write(dir, "str.json", userFileFields({ scopes: " a\tb  c\n" })));
  assert.deepEqual(split, userModel({ scopes: ["a", "b", "c"] }));
  for (const [label, scopes] of [
    ["blank", ["ok", "  "]],
    ["empty", [""]],
    ["number", ["ok", 2]],
    ["object", { a: 1 }],
    ["bool", true],
  ] as const) {
    await assertRejects(
      write(dir, `${label}.json`, userFileFields({ scopes })),
      `has "scopes" that is not an array of scope strings`,
    );
  }
});

test("token_uri is kept as written: where it may send the file's secret is the URL policy's (test/formats/destinations.test.ts)", async (t) => {
  const dir = tempDir(t);
  for (const uri of ["https://oauth2.googleapis.com/token", "http://evil.example/token", "not a url"]) {
    const file = await readCredentialsFile(write(dir, "ok.json", keyFileFields({ token_uri: uri })));
    assert.equal(file.tokenUrl, uri);
  }
});

test("JSON errors say where parsing stopped, never what the text was; the cause carries no text either", async (t) => {
  const dir = tempDir(t);
  const tail = "; it is not a credentials file, or it was damaged";
  const cut =
    ": it was cut short (an interrupted copy, download or write?); copy or download it again, or sign in again to write a new one";
  await assertRejects(write(dir, "word.json", "refresh-token-SHOULD-NOT-LEAK"), `is not valid JSON${tail}`);
  await assertRejects(write(dir, "end.json", '{"refresh_token":'), `ends before its JSON is complete${cut}`);
  await assertRejects(
    write(dir, "string.json", '{"refresh_token": "1//abc'),
    `ends before its JSON is complete (line 1, column 26)${cut}`,
  );
  await assertRejects(
    write(dir, "open.json", '{"a": 1, '),
    `ends before its JSON is complete (line 1, column 10)${cut}`,
  );
  const deep = write(dir, "deep.json", `${"\n".repeat(10)}{"abcdefghij" 1}`);
  await assertRejects(deep, `is not valid JSON (line 11, column 15)${tail}`);
  await assert.rejects(readCredentialsFile(deep), (e: Error) => {
    assert.ok(e.cause instanceof SyntaxError);
    assert.equal(e.cause.message, "invalid JSON");
    return true;
  });
  await assert.rejects(readCredentialsFile(write(dir, "empty.json", "")), (e: Error) => {
    assert.ok(!Object.hasOwn(e, "cause"), "no cause where nothing failed below");
    return true;
  });
});

test("JSON of another kind is named by its kind: a boolean file, an object or boolean type", async (t) => {
  const dir = tempDir(t);
  await assertRejects(write(dir, "t.json", "true"), "holds a boolean, not a JSON object");
  await assertRejects(write(dir, "o.json", userFileFields({ type: { a: 1 } })), /has type an object;/);
  await assertRejects(write(dir, "b.json", userFileFields({ type: false })), /has type a boolean;/);
});

test("a bad private key: the cause is the crypto error's code only, or a plain name when it has none", async (t) => {
  const path = write(tempDir(t), "key.json", keyFileFields({ private_key: "MIIsecret" }));
  const problem = `has a "private_key" that is not a valid PEM private key; download a new key for this service account`;
  await assertRejects(path, problem);
  await assert.rejects(readCredentialsFile(path), (e: Error) => {
    assert.match((e.cause as Error).message, /^ERR_[A-Z0-9_]+$/);
    return true;
  });
  // Stands for a crypto library whose error has no code (and quotes the key): only a plain name is kept.
  const original = crypto.createPrivateKey;
  t.after(() => {
    crypto.createPrivateKey = original;
  });
  crypto.createPrivateKey = (() => {
    throw new Error("bad key MIIsecret");
  }) as typeof crypto.createPrivateKey;
  await assertRejects(path, problem);
  await assert.rejects(readCredentialsFile(path), (e: Error) => {
    assert.equal((e.cause as Error).message, "invalid private key");
    return true;
  });
});

test("read failures: each names the problem and keeps the system error as the cause", async (t) => {
  const missing = join(tempDir(t), "nope.json");
  await assert.rejects(readCredentialsFile(missing), (e: Error) => {
    assert.equal((e.cause as NodeJS.ErrnoException).code, "ENOENT");
    assert.equal(
      e.message,
      `Credentials file ${JSON.stringify(missing)} does not exist; check the path or sign in to create it.`,
    );
    return true;
  });
  const long = join(tempDir(t), `${"x".repeat(300)}.json`);
  await assertRejects(long, "is a path that is too long");
  // A stub for the OS: tests run as root, whom it never refuses a read (the real permission-denied
  // read, as nobody, is in test/reliability/bad-files.test.ts); and for errors no file system here gives.
  const path = write(tempDir(t), "user.json", userFileFields());
  const denied = "cannot be read (permission denied); check the file's owner and mode";
  for (const [failure, problem] of [
    [errno("EACCES"), denied],
    [errno("EPERM"), denied],
    [errno("EIO"), "cannot be read (EIO)"],
    [Object.assign(new Error("odd"), { code: 5 }), "cannot be read (unexpected error)"],
    [undefined, "cannot be read (unexpected error)"],
  ] as const) {
    await withFailingOpen(failure, async () => {
      await assertRejects(path, problem);
      await assert.rejects(readCredentialsFile(path), (e: Error) => e.cause === failure);
    });
  }
});

test("privateOnly refuses a file another user owns or others may write, and says why", async (t) => {
  if (process.getuid?.() !== 0) return t.skip("giving a file to another user needs root");
  const path = write(tempDir(t), "user.json", userFileFields());
  const refused = (problem: string) =>
    assert.rejects(readAuthorizedUserFile(path, { privateOnly: true }), (e: unknown) => {
      assertFileError(e, path, `${problem}; it is not used`);
      return true;
    });
  for (const mode of [0o600, 0o640, 0o644]) {
    chmodSync(path, mode);
    assert.deepEqual(await readAuthorizedUserFile(path, { privateOnly: true }), userModel());
  }
  for (const [mode, shown] of [
    [0o620, "620"],
    [0o602, "602"],
    [0o020, "020"],
    [0o666, "666"],
  ] as const) {
    chmodSync(path, mode);
    await refused(`may be written by others (mode ${shown})`);
  }
  chmodSync(path, 0o600);
  chownSync(path, 4242, 4242);
  await refused("belongs to another user (uid 4242), who decides whose credentials it holds");
  assert.deepEqual(await readCredentialsFile(path), userModel(), "without privateOnly, anyone's file is read");
});

test("privateOnly checks nothing where there are no Unix owners (Windows, no process.getuid)", async (t) => {
  if (process.getuid?.() !== 0) return t.skip("giving a file to another user needs root");
  const path = write(tempDir(t), "user.json", userFileFields());
  chmodSync(path, 0o666);
  chownSync(path, 4242, 4242);
  const platform = Object.getOwnPropertyDescriptor(process, "platform") as PropertyDescriptor;
  const getuid = process.getuid;
  t.after(() => {
    Object.defineProperty(process, "platform", platform);
    process.getuid = getuid;
  });
  // Stubs for the OS: Windows has no Unix owner or mode; some runtimes have no getuid.
  Object.defineProperty(process, "platform", { ...platform, value: "win32" });
  assert.deepEqual(await readCredentialsFile(path, { privateOnly: true }), userModel());
  Object.defineProperty(process, "platform", platform);
  process.getuid = undefined;
  assert.deepEqual(await readCredentialsFile(path, { privateOnly: true }), userModel());
});

test("authorizedUserFile: scopes always, token_uri and the other fields only when given", () => {
  const base = { clientId: "c", clientSecret: "s", refreshToken: "r" };
  const minimal = { type: "authorized_user", clientId: "c", clientSecret: "s", refreshToken: "r", scopes: [] };
  assert.deepEqual(authorizedUserFile(base), minimal);
  assert.deepEqual(
    authorizedUserFile({ ...base, idToken: "", quotaProjectId: "", universeDomain: "", account: "" }),
    minimal,
  );
  const scopes = ["a", "b"];
  const full = authorizedUserFile({
    ...base,
    tokenUrl: "https://t.example/token",
    scopes,
    idToken: "i",
    quotaProjectId: "q",
    universeDomain: "u.example",
    account: "ann@example.com",
  });
  assert.deepEqual(full, {
    ...minimal,
    tokenUrl: "https://t.example/token",
    scopes: ["a", "b"],
    idToken: "i",
    quotaProjectId: "q",
    universeDomain: "u.example",
    account: "ann@example.com",
  });
  assert.notEqual(full.scopes, scopes, "the scopes are a copy");
});

test("userCredentialsJson leaves out empty optional fields and absent scopes, keeps a given token_uri", () => {
  const text = userCredentialsJson({
    ...userModel(),
    tokenUrl: "https://t.example/token",
    idToken: "",
    quotaProjectId: "",
    universeDomain: "",
    account: "",
  });
  assert.equal(text, `${JSON.stringify({ ...userFileFields(), token_uri: "https://t.example/token" }, null, 2)}\n`);
});

/** Asserts `saving` fails with a one-line CredCredentialsError with this message, code and cause. */
async function assertWriteRefused(
  saving: Promise<void>,
  expected: { message: string; code: string; cause?: unknown },
): Promise<void> {
  await assert.rejects(saving, (e: unknown) => {
    assert.ok(e instanceof CredCredentialsError);
    assert.equal(e.message, expected.message);
    assert.equal(e.code, expected.code);
    if ("cause" in expected) assert.equal(e.cause, expected.cause);
    assertNoSecrets(e.message);
    return true;
  });
}

test("writeUserCredentialsFile onto a directory or through another user's link: refused, nothing written", async (t) => {
  const dir = tempDir(t);
  const data = userModel();
  const target = join(dir, "creds.json");
  mkdirSync(target);
  await assert.rejects(writeUserCredentialsFile(target, data), (e: CredCredentialsError) => {
    assert.equal(
      e.message,
      `Could not write credentials to ${JSON.stringify(target)}: it is a directory; give a file path.`,
    );
    assert.equal(e.code, "ERR_FILE_UNWRITABLE");
    assert.equal((e.cause as NodeJS.ErrnoException).code, "EISDIR");
    return true;
  });
  assert.deepEqual(readdirSync(dir), ["creds.json"]);
  if (process.getuid?.() !== 0) return t.skip("giving a link to another user needs root");
  const victim = write(dir, "victim", "victim's data");
  const link = join(dir, "link.json");
  symlinkSync(victim, link);
  lchownSync(link, 4242, 4242);
  await assert.rejects(writeUserCredentialsFile(link, data), (e: CredCredentialsError) => {
    assert.equal(
      e.message,
      `Could not write credentials to ${JSON.stringify(link)}: it is a symbolic link owned by another user (uid 4242), which could point at any of your files; remove the link or choose another path.`,
    );
    assert.equal(e.code, "ERR_FILE_INVALID");
    assert.equal((e.cause as NodeJS.ErrnoException).code, "EUNSAFELINK");
    return true;
  });
  assert.equal(readFileSync(victim, "utf8"), "victim's data");
});

test("writeUserCredentialsFile: each system error is named with what to do", async (t) => {
  const path = join(tempDir(t), "creds.json");
  const data = userModel();
  const prefix = `Could not write credentials to ${JSON.stringify(path)}: `;
  // A stub for the OS: full disks, quotas, read-only mounts and permission denials (root is never
  // denied) cannot be made here. writeFileAtomic's temp file is opened with fs/promises' open.
  for (const [failure, problem] of [
    [errno("ENOTDIR"), "part of the path is a file, not a directory (ENOTDIR); choose another path"],
    [errno("EEXIST"), "part of the path is a file, not a directory (EEXIST); choose another path"],
    [errno("EACCES"), "permission denied (EACCES); check that the directory is writable"],
    [errno("EPERM"), "permission denied (EPERM); check that the directory is writable"],
    [errno("EROFS"), "permission denied (EROFS); check that the directory is writable"],
    [errno("ENOSPC"), "the disk is full (ENOSPC)"],
    [errno("EDQUOT"), "the disk is full (EDQUOT)"],
    [errno("EIO"), "EIO; check the path"],
    [Object.assign(new Error("odd"), { code: 5 }), "unexpected error; check the path"],
    [undefined, "unexpected error; check the path"],
  ] as const) {
    await withFailingOpen(failure, () =>
      assertWriteRefused(writeUserCredentialsFile(path, data), {
        message: `${prefix}${problem}.`,
        code: "ERR_FILE_UNWRITABLE",
        cause: failure,
      }),
    );
  }
});

test("checkWritableDestination fails before a sign-in where the credentials could not be saved", async (t) => {
  const dir = tempDir(t);
  const plain = write(dir, "plain", "x");
  for (const fine of [join(dir, "creds.json"), plain, join(dir, "a", "b", "creds.json")]) {
    files.checkWritableDestination(fine);
  }
  assert.deepEqual(readdirSync(dir), ["plain"], "nothing is created");
  const refused = (path: string, problem: string) => {
    assert.throws(
      () => files.checkWritableDestination(path),
      (e: unknown) => {
        assert.ok(e instanceof CredCredentialsError);
        assert.equal(e.message, `Cannot save credentials to ${JSON.stringify(path)}: ${problem}.`);
        assert.equal(e.code, "ERR_FILE_UNWRITABLE");
        return true;
      },
    );
  };
  refused(dir, "it is a directory; give a file path");
  refused(join(plain, "sub", "creds.json"), `${JSON.stringify(plain)} is not a directory`);
  if (process.platform !== "linux") return t.skip("/proc/sys, a directory nobody may write, is Linux's");
  refused("/proc/sys/creds.json", `the directory "/proc/sys" is not writable`);
  // Root may "access" /proc for writing (its mode bits are not asked), yet nothing can be created there.
  refused("/proc/creds.json", `the directory "/proc" is not writable`);
  assert.throws(
    () => files.checkWritableDestination("/proc/creds.json"),
    (e: Error) => typeof (e.cause as NodeJS.ErrnoException).code === "string",
  );
  assert.deepEqual(readdirSync(dir), ["plain"], "the probes leave nothing behind");
});

test("checkWritableDestination: a FIFO, another user's directory or link, or a directory anyone may write are refused", (t) => {
  const dir = tempDir(t);
  const refused = (path: string, problem: RegExp) =>
    assert.throws(
      () => files.checkWritableDestination(path),
      (e: unknown) => {
        assert.ok(e instanceof CredCredentialsError);
        assert.equal(e.code, "ERR_FILE_UNWRITABLE");
        assert.match(e.message, problem);
        return true;
      },
      path,
    );
  const fifo = join(dir, "fifo.json");
  execFileSync("mkfifo", [fifo]);
  refused(fifo, /it is not a regular file/);
  const open = join(dir, "open");
  fs.mkdirSync(open, { mode: 0o777 });
  fs.chmodSync(open, 0o777);
  refused(
    join(open, "creds.json"),
    /the directory ".*open" may be written by anyone \(mode 777\); cred-auth writes no secret there/,
  );
  fs.chmodSync(open, 0o1777); // sticky, as /tmp: nobody may replace what we write
  files.checkWritableDestination(join(open, "creds.json"));
  if (process.getuid?.() !== 0) return t.skip("chown needs root");
  const theirs = join(dir, "theirs");
  fs.mkdirSync(theirs, { mode: 0o755 });
  chownSync(theirs, 4242, 4242);
  refused(join(theirs, "creds.json"), /the directory ".*theirs" belongs to another user \(uid 4242\)/);
  refused(join(theirs, "sub", "creds.json"), /belongs to another user \(uid 4242\)/);
  const link = join(dir, "link.json");
  fs.symlinkSync(join(dir, "elsewhere.json"), link);
  lchownSync(link, 4242, 4242);
  refused(link, /symbolic link owned by another user \(uid 4242\)/);
});

test("writeUserCredentialsFile writes no secret into a directory another user owns, or anyone may write", async (t) => {
  const dir = tempDir(t);
  const data = {
    type: "authorized_user" as const,
    clientId: "c",
    clientSecret: "GOCSPX-w/r+i=te",
    refreshToken: "1//0gW/r+i=te",
  };
  const open = join(dir, "open");
  fs.mkdirSync(open);
  fs.chmodSync(open, 0o777);
  const refused = async (path: string, problem: RegExp) =>
    assert.rejects(files.writeUserCredentialsFile(path, data), (e: unknown) => {
      assert.ok(e instanceof CredCredentialsError);
      assert.equal(e.code, "ERR_FILE_UNWRITABLE");
      assert.match(e.message, problem);
      assertNoSecrets(e.message);
      return true;
    });
  await refused(
    join(open, "creds.json"),
    /^Could not write credentials to ".*open\/creds\.json": the directory ".*open" may be written by anyone \(mode 777\); cred-auth writes no secret there\.$/,
  );
  await refused(join(open, "new", "creds.json"), /the directory ".*open" may be written by anyone/);
  assert.deepEqual(readdirSync(open), [], "nothing written, no directory made");
  if (process.getuid?.() !== 0) return t.skip("chown needs root");
  const theirs = join(dir, "theirs");
  fs.mkdirSync(theirs, { mode: 0o755 });
  chownSync(theirs, 4242, 4242);
  await refused(join(theirs, "creds.json"), /the directory ".*theirs" belongs to another user \(uid 4242\)/);
  assert.deepEqual(readdirSync(theirs), []);
});

test("checkWritableDestination: only another user's link is refused (not their file), under any user; nothing of it on Windows", async (t) => {
  if (process.getuid?.() !== 0) return t.skip("chown needs root");
  const dir = tempDir(t);
  fs.chmodSync(dir, 0o755);
  const theirFile = join(dir, "their-file.json");
  write(dir, "their-file.json", "{}");
  chownSync(theirFile, 4242, 4242);
  files.checkWritableDestination(theirFile); // replacing a file in our own directory is ours to do
  assert.throws(
    () => files.checkWritableDestination(dir),
    (e: Error) => !("cause" in e) && /it is a directory/.test(e.message),
    "a refusal without a cause has none",
  );
  await assert.rejects(
    files.writeUserCredentialsFile(join(theirFile, "x.json"), {
      type: "authorized_user",
      clientId: "c",
      clientSecret: "s",
      refreshToken: "r",
    }),
    /part of the path is a file, not a directory/,
  );
  // For "nobody": its own link and root's are followed; a third user's is refused.
  const home = join(dir, "nobody-home");
  fs.mkdirSync(home, { mode: 0o755 });
  chownSync(home, 65534, 65534);
  const links = { own: 65534, roots: 0, thirds: 4242 };
  for (const [name, uid] of Object.entries(links)) {
    fs.symlinkSync(join(home, `${name}-target.json`), join(home, `${name}.json`));
    lchownSync(join(home, `${name}.json`), uid, uid);
  }
  // This process stands for "nobody" (uid 65534): the check asks process.getuid() whose it is.
  const platform = Object.getOwnPropertyDescriptor(process, "platform")!;
  const getuid = process.getuid;
  t.after(() => {
    Object.defineProperty(process, "platform", platform);
    process.getuid = getuid;
  });
  process.getuid = () => 65534;
  files.checkWritableDestination(join(home, "own.json"));
  files.checkWritableDestination(join(home, "roots.json"));
  assert.throws(
    () => files.checkWritableDestination(join(home, "thirds.json")),
    /it is a symbolic link owned by another user \(uid 4242\)/,
  );
  process.getuid = getuid;
  // Windows has no owners: the same link passes there, and where process.getuid is missing.
  const thirds = join(home, "thirds.json");
  assert.throws(() => files.checkWritableDestination(thirds), /symbolic link owned by another user/);
  Object.defineProperty(process, "platform", { ...platform, value: "win32" });
  files.checkWritableDestination(thirds);
  Object.defineProperty(process, "platform", platform);
  process.getuid = undefined;
  files.checkWritableDestination(thirds);
});
