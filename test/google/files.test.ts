import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { CredCredentialsError } from "cred-auth";
import * as files from "../../dist/google/files.js";
import { assertNoSecrets, keyFileFields, tempDir, userFileFields } from "../support/files.ts";

const {
  readCredentialsFile,
  readCredentialsFileSync,
  parseCredentialsText,
  writeUserCredentialsFile,
  readAuthorizedUserFile,
  readServiceAccountKeyFile,
} = files;
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

/** Asserts reading `path` fails (async and sync alike) with a CredCredentialsError naming the file and matching `problem`. */
async function assertRejects(path: string, problem: RegExp): Promise<void> {
  for (const read of [() => readCredentialsFile(path), async () => readCredentialsFileSync(path)]) {
    await assert.rejects(read, (error: unknown) => {
      assert.ok(error instanceof CredCredentialsError, `expected CredCredentialsError, got ${String(error)}`);
      assert.equal(error.name, "CredCredentialsError");
      assert.ok(error.message.includes(JSON.stringify(path)), `message should name the file: ${error.message}`);
      assert.match(error.message, problem);
      assert.ok(!error.message.includes("\n"), "one-line message");
      assertNoSecrets(error.message);
      return true;
    });
  }
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
    ...userFileFields(),
    scopes: ["a", "b"],
    token_uri: "https://oauth2.googleapis.com/token",
    quota_project_id: "qp",
  });
  assert.deepEqual(readCredentialsFileSync(path), file);
});

test("gcloud's ADC file (no scopes, empty account, universe_domain) parses", async () => {
  const file = await readAuthorizedUserFile(fixture("gcloud-adc.json"));
  assert.equal(file.client_id, "764086051850-6qr4p6gpi6hn506pt8ejuq83di341hur.apps.googleusercontent.com");
  assert.equal(file.universe_domain, "googleapis.com");
  assert.equal(file.account, undefined);
  assert.equal(file.scopes, undefined);
});

test("pydata-google-auth's cache file parses, its scopes kept", async () => {
  const file = await readAuthorizedUserFile(fixture("pydata-cache.json"));
  assert.deepEqual(file.scopes, ["https://www.googleapis.com/auth/cloud-platform"]);
  assert.equal(file.token_uri, "https://oauth2.googleapis.com/token");
});

test("a space-separated scopes string (as Python google-auth accepts) becomes an array", () => {
  const file = parseCredentialsText(JSON.stringify(userFileFields({ scopes: "a  b c" })), "x.json");
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
  assert.equal(key.project_id, "proj-1");
  assert.equal(key.client_email, "robot@proj-1.iam.gserviceaccount.com");
  assert.match(key.private_key, /BEGIN PRIVATE KEY/);
});

test("missing file", async (t) => {
  const path = join(tempDir(t), "nope.json");
  await assertRejects(path, /does not exist/);
  await assert.rejects(
    readCredentialsFile(path),
    (e: files.CredentialsFileError) => e.problem === "missing" && e.path === path,
  );
});

test("a directory", async (t) => {
  const path = join(tempDir(t), "dir.json");
  mkdirSync(path);
  await assertRejects(path, /is a directory/);
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
  await assertRejects(write(dir, "trunc.json", truncated), /not valid JSON/);
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

test("each required field, missing, empty or not a string, is named", async (t) => {
  const dir = tempDir(t);
  const cases: Array<[Record<string, unknown>, string[]]> = [
    [userFileFields(), ["client_id", "client_secret", "refresh_token"]],
    [keyFileFields(), ["project_id", "private_key", "client_email"]],
  ];
  for (const [fields, required] of cases) {
    for (const name of required) {
      const { [name]: _dropped, ...rest } = fields;
      await assertRejects(write(dir, `no-${name}.json`, rest), new RegExp(`missing the required field "${name}"`));
      await assertRejects(
        write(dir, `empty-${name}.json`, { ...fields, [name]: "  " }),
        new RegExp(`has an empty "${name}"`),
      );
      await assertRejects(
        write(dir, `num-${name}.json`, { ...fields, [name]: 5 }),
        new RegExp(`has a number in "${name}" where a string belongs`),
      );
    }
  }
});

test("optional fields of the wrong kind are named", async (t) => {
  await assertRejects(
    write(tempDir(t), "q.json", userFileFields({ quota_project_id: ["x"] })),
    /has an array in "quota_project_id"/,
  );
});

test("scopes that are not an array of strings", async (t) => {
  const dir = tempDir(t);
  await assertRejects(
    write(dir, "s1.json", userFileFields({ scopes: [1, 2] })),
    /"scopes" that is not an array of scope strings/,
  );
  await assertRejects(write(dir, "s2.json", userFileFields({ scopes: { a: 1 } })), /"scopes" that is not an array/);
  await assertRejects(write(dir, "s3.json", userFileFields({ scopes: ["ok", ""] })), /"scopes" that is not an array/);
});

test("a token_uri that would send secrets in clear text to another machine", async (t) => {
  const dir = tempDir(t);
  await assertRejects(
    write(dir, "t1.json", userFileFields({ token_uri: "http://evil.example/token" })),
    /"token_uri" that is not an https URL/,
  );
  await assertRejects(
    write(dir, "t2.json", keyFileFields({ token_uri: "not a url" })),
    /"token_uri" that is not an https URL/,
  );
  const loopback = await readCredentialsFile(
    write(dir, "t3.json", userFileFields({ token_uri: "http://127.0.0.1:9/token" })),
  );
  assert.equal(loopback.token_uri, "http://127.0.0.1:9/token");
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
  const data = {
    ...userFileFields(),
    scopes: ["s1", "s2"],
    id_token: "idtok",
    account: "ann@example.com",
  } as files.AuthorizedUserFile;
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
  assert.deepEqual(await readCredentialsFile(path), { ...data, token_uri: "https://oauth2.googleapis.com/token" });
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
    writeUserCredentialsFile(path, { ...userFileFields(), refresh_token: "" } as files.AuthorizedUserFile),
    /has an empty "refresh_token"/,
  );
  assert.deepEqual(readdirSync(dir), []);
});

test("writeUserCredentialsFile into an unwritable place is a clear CredCredentialsError", async (t) => {
  const file = write(tempDir(t), "plain", "x");
  await assert.rejects(
    writeUserCredentialsFile(join(file, "creds.json"), userFileFields() as unknown as files.AuthorizedUserFile),
    (e: Error) => {
      assert.ok(e instanceof CredCredentialsError);
      assert.match(
        e.message,
        /^Could not write credentials to ".*creds\.json": part of the path is a file, not a directory \(E(NOTDIR|EXIST)\); choose another path\.$/,
      );
      return true;
    },
  );
});
