// Attacker: a credentials file with hostile paths, URLs and headers, run with CRED_AUTH_DEBUG=1.
// Debug output (stacks and causes from fetch or the file system) goes through the same redaction
// and terminal-safe text as every other message: no escape code from a credential_source.file
// path, no password of a credential_source.url (such a file is refused, one coded line), no
// secret header value that fetch quotes when it refuses it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_WORKLOAD_AUDIENCE } from "cred-auth/emulator";
import { boundedFetch } from "../../dist/trust/http.js";
import { REDACTED } from "../../dist/trust/redact.js";
import { withEmulator } from "../support/emulator.ts";
import { closedPort } from "../support/net.ts";
import { runCli, sandbox } from "../cli/support.ts";
import { startRecorder } from "./recorder.ts";

const emu = await withEmulator();
const subjectServer = await startRecorder(() => ({ body: "a-subject-token" }));
const PASSWORD = "S3cretUrlPassw0rd";
const HEADER_SECRET = "hdr-S3cret-value-0042";

function urlFile(dir: string, source: Record<string, unknown>, name: string): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    JSON.stringify({
      type: "external_account",
      audience: DEFAULT_WORKLOAD_AUDIENCE,
      subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
      token_url: "https://sts.googleapis.com/v1/token",
      credential_source: source,
    }),
  );
  return path;
}

const debugEnv = (env: NodeJS.ProcessEnv) => ({ ...env, CRED_AUTH_DEBUG: "1" });
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

test("a credential_source.file path with escape codes: debug output shows it escaped", async () => {
  const box = sandbox(emu);
  const hostile = join(box.dir, "\u001b]0;owned\u0007\u001b[2J.jwt");
  const path = urlFile(box.dir, { file: hostile }, "file.json");
  const result = await runCli(["print-token", path], debugEnv(box.env));
  assert.equal(result.code, 1);
  assert.match(result.stderr, /subject-token file/);
  assert.match(result.stderr, /caused by: .*ENOENT/, "the cause is shown");
  assert.ok(!RAW_CONTROL.test(result.stderr), JSON.stringify(result.stderr));
  assert.match(result.stderr, /\\x1b\]0;owned\\x07/);
});

test("a credential_source.url with a user and password is refused: one coded line, no password, debug or not", async () => {
  const box = sandbox(emu);
  const url = `http://reader:${PASSWORD}@127.0.0.1:${subjectServer.port}/token`;
  const path = urlFile(box.dir, { url }, "userinfo.json");
  const plain = await runCli(["print-token", path], box.env);
  assert.equal(plain.code, 1);
  assert.match(
    plain.stderr,
    /^cred-auth: Credentials file ".*userinfo\.json" has a credential_source\.url with a user name or password in it \(at "http:\/\/127\.0\.0\.1:\d+"\); cred-auth sends none: give the secret in credential_source\.headers instead\. \(ERR_UNSAFE_TOKEN_URL\)\n$/,
  );
  const debugged = await runCli(["print-token", path], debugEnv(box.env));
  assert.equal(debugged.code, 1);
  for (const output of [plain.stderr, debugged.stderr, debugged.stdout]) assert.ok(!output.includes(PASSWORD));
  assert.equal(subjectServer.requests.length, 0, "nothing was asked of the URL");
});

test("a secret header value that fetch refuses (CR LF in it) is not quoted by the debug output", async () => {
  const box = sandbox(emu);
  const url = `http://127.0.0.1:${subjectServer.port}/token`;
  const headers = { Authorization: `Bearer ${HEADER_SECRET}\r\nX-Injected: 1` };
  const path = urlFile(box.dir, { url, headers }, "header.json");
  const result = await runCli(["print-token", path], debugEnv(box.env));
  // Said today as the URL not reached (a CredConnectionError, exit 3): the request could not be sent.
  assert.equal(result.code, 3, result.stderr);
  assert.match(result.stderr, /could not be reached/);
  // node-fetch's words (the one transport's client): they do not quote the value either.
  assert.match(result.stderr, /caused by: .*Invalid character in header content/);
  assert.ok(!result.stderr.includes(HEADER_SECRET), result.stderr);
  assert.ok(!RAW_CONTROL.test(result.stderr), JSON.stringify(result.stderr));
});

test("the bounded fetch hands on its failure scrubbed of the request's header values, body values and URL user info", async () => {
  const fail = (cause: unknown) => cause as Error;
  const texts = async (url: string, request: Parameters<typeof boundedFetch>[1]) => {
    const error = await boundedFetch(url, request, fail).then(
      () => assert.fail("no failure"),
      (e: Error) => e,
    );
    const all: string[] = [];
    for (let e: unknown = error; e instanceof Error; e = e.cause) all.push(e.message, e.stack ?? "", e.name);
    return { error, text: all.join("\n") };
  };
  const bounds = { timeoutMs: 2000, maxBytes: 1000 };
  const header = await texts(`http://127.0.0.1:${subjectServer.port}/x`, {
    ...bounds,
    headers: { A: `${HEADER_SECRET}\r\nX: 1` },
  });
  assert.equal(header.error.name, "TypeError");
  assert.ok(!header.text.includes(HEADER_SECRET), header.text);
  const user = await texts(`http://reader:${PASSWORD}@127.0.0.1:${subjectServer.port}/x`, bounds);
  assert.ok(!user.text.includes(PASSWORD) && user.text.includes(REDACTED), user.text);
  const body = await texts(`http://127.0.0.1:${await closedPort()}/refused`, {
    ...bounds,
    method: "POST",
    body: "a=1",
  });
  // node-fetch (the one transport's client) puts the system's code on its own error.
  assert.equal((body.error as NodeJS.ErrnoException).code, "ECONNREFUSED", "the code is kept");
});
