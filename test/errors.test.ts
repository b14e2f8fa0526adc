// src/errors.ts: every class names itself and has a default code, its parent's unless it says its own.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { inspect } from "node:util";
import { ERROR_CODES, exceptions } from "cred-auth";
import { SignInPendingError } from "../dist/oauth/pending.js";
import { UsageError } from "../dist/cli/command.js";

const DEFAULTS: Record<string, string> = {
  CredAuthError: ERROR_CODES.CREDENTIALS,
  CredCredentialsError: ERROR_CODES.CREDENTIALS,
  CredConnectionError: ERROR_CODES.CONNECTION,
  CredCancelledError: ERROR_CODES.CANCELLED,
};

/** Classes whose constructor takes more than a message: how to make one saying "words". */
const MAKE: Record<string, (Class: new (...args: never[]) => Error, options?: object) => Error> = {
  CredentialsFileError: (Class, options) =>
    new (Class as typeof exceptions.CredentialsFileError)("/x/adc.json", "invalid", "words", options),
};

test("each public class is named after itself, with its default code; a given code wins", () => {
  const classes = Object.entries(exceptions).filter(([, value]) => typeof value === "function");
  assert.deepEqual(classes.map(([name]) => name).sort(), [...Object.keys(DEFAULTS), ...Object.keys(MAKE)].sort());
  for (const [name, Class] of classes) {
    if (MAKE[name]) continue;
    const error = new (Class as typeof exceptions.CredAuthError)("words");
    assert.equal(error.name, name);
    assert.equal(error.code, DEFAULTS[name], name);
    assert.ok(error instanceof exceptions.CredAuthError && error instanceof Error, name);
    assert.equal(String(error), `${name}: words`);
    // One line wherever it is printed: no frames in the stack, no fields or causes in a dump.
    assert.equal(error.stack, `${name} [${DEFAULTS[name]}]: words`);
    assert.equal(inspect(error), `${name} [${DEFAULTS[name]}]: words`);
    assert.deepEqual(Object.keys(error), ["code"], "only the code is an own enumerable field");
    const coded = new (Class as typeof exceptions.CredAuthError)("x", { code: ERROR_CODES.TIMEOUT, status: 408 });
    assert.equal(coded.code, ERROR_CODES.TIMEOUT);
    assert.equal(coded.status, 408);
  }
});

test("a credentials file's error names itself, and carries its path and problem", () => {
  const error = new exceptions.CredentialsFileError("/x/adc.json", "missing", "words", { cause: new Error("ENOENT") });
  assert.ok(error instanceof exceptions.CredCredentialsError);
  assert.equal(error.stack, "CredentialsFileError [ERR_FILE_INVALID]: words");
  assert.deepEqual([error.path, error.problem], ["/x/adc.json", "missing"]);
  assert.deepEqual(Object.keys(error), ["code", "path", "problem"]);
});

test("a subclass takes its parent's default code and its own name; the library's own subclasses keep theirs", () => {
  class SlowError extends exceptions.CredConnectionError {}
  const slow = new SlowError("slow");
  assert.equal(slow.name, "SlowError");
  assert.equal(slow.code, ERROR_CODES.CONNECTION);
  assert.ok(slow instanceof exceptions.CredConnectionError);
  const usage = new UsageError("bad flag", "login");
  assert.equal(usage.name, "UsageError");
  assert.equal(usage.code, ERROR_CODES.USAGE);
  const pending = new SignInPendingError({ mode: "paste" } as ConstructorParameters<typeof SignInPendingError>[0]);
  assert.equal(pending.name, "SignInPendingError");
  assert.equal(pending.code, ERROR_CODES.SIGN_IN_PENDING);
  assert.equal(pending.stack, `SignInPendingError [ERR_SIGN_IN_PENDING]: ${pending.message}`);
  assert.ok(pending instanceof exceptions.CredCredentialsError);
});

test("a network error's cause (a whole HTTP request) stays for programs, out of what is printed", () => {
  const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), {
    config: { url: "http://127.0.0.1:9/token", headers: { authorization: "Basic c2VjcmV0" } },
    response: undefined,
  });
  const error = new exceptions.CredConnectionError("The token server cannot be reached; try again.", {
    cause,
    code: ERROR_CODES.UNREACHABLE,
  });
  assert.equal(error.cause, cause, "the cause is there for a program");
  const printed = inspect(error);
  assert.equal(printed, "CredConnectionError [ERR_UNREACHABLE]: The token server cannot be reached; try again.");
  assert.doesNotMatch(`${printed}${inspect([error])}${inspect({ error })}`, /config|ECONNREFUSED|cause|at /);
  const withStatus = new exceptions.CredCredentialsError("refused", { error: "invalid_grant", status: 400 });
  assert.deepEqual(
    Object.keys(withStatus),
    ["code", "error", "status"],
    "a server's answer is kept when there was one",
  );
});

test("CRED_AUTH_DEBUG=1 keeps the frames and prints the causes", () => {
  const script = `
    const { CredCredentialsError } = require("./dist/index.js");
    const error = new CredCredentialsError("outer", { cause: new Error("inner words") });
    console.log(JSON.stringify({ stack: error.stack, printed: require("node:util").inspect(error) }));`;
  const run = (debug: string) => {
    const child = spawnSync(process.execPath, ["-e", script], {
      cwd: new URL("..", import.meta.url),
      env: { ...process.env, CRED_AUTH_DEBUG: debug },
      encoding: "utf8",
    });
    assert.equal(child.status, 0, child.stderr);
    return JSON.parse(child.stdout) as { stack: string; printed: string };
  };
  const debug = run("1");
  assert.match(debug.stack, /^CredCredentialsError: outer\n\s+at /, "frames");
  assert.match(debug.printed, /inner words/, "the cause is printed");
  assert.equal(run("").printed, "CredCredentialsError [ERR_CREDENTIALS]: outer");
});

test("an uncaught failure of a library call points at the caller's own line, not at dist/ (CRED_AUTH_DEBUG keeps all)", async (t) => {
  const { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const { fileURLToPath } = await import("node:url");
  const dir = mkdtempSync(join(tmpdir(), "cred-auth-user-frame-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(fileURLToPath(new URL("..", import.meta.url)), join(dir, "node_modules", "cred-auth"), "dir");
  const script = join(dir, "script.mjs");
  writeFileSync(
    script,
    'import * as credAuth from "cred-auth";\n\nawait credAuth.loadUserCredentials("missing.json");\n',
  );
  const run = (debug: string) =>
    spawnSync(process.execPath, [script], {
      cwd: dir,
      env: { ...process.env, CRED_AUTH_DEBUG: debug },
      encoding: "utf8",
    });
  const plain = run("");
  assert.equal(plain.status, 1);
  const [where, line] = plain.stderr.split("\n");
  assert.equal(where, `file://${script}:3`, "the caller's file and line come first");
  assert.equal(line, 'await credAuth.loadUserCredentials("missing.json");');
  assert.match(plain.stderr, /\n {4}at async file:\/\/.*script\.mjs:3:1/, "the caller's frame");
  assert.doesNotMatch(plain.stderr.split("[cause]")[0]!, /\/dist\//, "no frame of the library's own");
  assert.match(run("1").stderr, /\/dist\//, "CRED_AUTH_DEBUG=1: every frame");
});
