// Attacker: a credentials file with hostile paths, URLs and headers, run with CRED_AUTH_DEBUG=1.
// Debug output (stacks and causes from fetch or the file system) goes through the same redaction
// and terminal-safe text as every other message: no escape code from a credential_source.file
// path, no password of a credential_source.url and no header value HTTP cannot carry (such files
// are refused when read, one coded line), no secret header value in a failed request's error.
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
import { echoes, runNode } from "../reliability/support.ts";
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
/** default() in a child (GOOGLE_APPLICATION_CREDENTIALS names the file), its error on stdout. */
const DEFAULT_SCRIPT = `
  const credAuth = await import(${JSON.stringify(new URL("../../dist/index.mjs", import.meta.url).href)});
  try {
    await credAuth.default(["https://www.googleapis.com/auth/cloud-platform"], { openBrowser: false });
    console.log("CREDENTIALS");
  } catch (e) {
    console.log("ERROR " + e.name + " " + e.code + " " + e.message);
  }`;
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

test("a secret header value HTTP cannot carry (CR LF in it) is refused when the file is read, in print-token and default(): nothing sent, no form of it shown", async () => {
  const box = sandbox(emu);
  const url = `http://127.0.0.1:${subjectServer.port}/header-token`;
  const value = `Bearer ${HEADER_SECRET}\r\nX-Injected: 1`;
  const path = urlFile(box.dir, { url, headers: { Authorization: value } }, "header.json");
  const plain = await runCli(["print-token", path], box.env);
  // The file is at fault: a CredCredentialsError, exit 1 (docs/troubleshooting.md), not a connection error (3).
  assert.equal(plain.code, 1, plain.stderr);
  assert.match(
    plain.stderr,
    /^cred-auth: Credentials file ".*header\.json" has a "credential_source\.headers\.Authorization" value holding a character no HTTP header can carry \(CR, LF, NUL, another control character or one above U\+00FF; the value is not shown\); write it again with gcloud or your administrator's config\. \(ERR_FILE_INVALID\)\n$/,
  );
  const debugged = await runCli(["print-token", path], debugEnv(box.env));
  assert.equal(debugged.code, 1, debugged.stderr);
  assert.match(
    debugged.stderr,
    /^CredCredentialsError: Credentials file .*"credential_source\.headers\.Authorization"/m,
  );
  const { CRED_AUTH_EMULATOR_HOST: _noClient, ...noEmulator } = box.env;
  const adc = await runNode(["--input-type=module", "-e", DEFAULT_SCRIPT], {
    env: debugEnv({ ...noEmulator, GOOGLE_APPLICATION_CREDENTIALS: path, CRED_AUTH_HOSTED: "off" }),
    killAfterMs: 30_000,
  });
  assert.match(adc.stdout, /^ERROR CredCredentialsError ERR_NO_CREDENTIALS /, adc.stdout + adc.stderr);
  // default() passes the file over (with this warning) to the next source, as for any bad ADC file.
  assert.match(
    adc.stderr,
    /\[CRED_AUTH_ADC\] Warning: GOOGLE_APPLICATION_CREDENTIALS=.*header\.json: Credentials file ".*header\.json" has a "credential_source\.headers\.Authorization" value holding a character no HTTP header can carry/,
  );
  for (const output of [plain.stderr, debugged.stderr, debugged.stdout, adc.stdout, adc.stderr]) {
    for (const form of [...echoes(value), ...echoes(HEADER_SECRET), "X-Injected"])
      assert.ok(!output.includes(form), `a form of the header value was shown (${form.slice(0, 12)}...): ${output}`);
    assert.ok(!RAW_CONTROL.test(output), JSON.stringify(output));
  }
  assert.deepEqual(
    subjectServer.requests.filter((request) => request.url === "/header-token"),
    [],
    "nothing was asked of the URL",
  );
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
