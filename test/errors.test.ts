// src/errors.ts: every class names itself and has a default code, its parent's unless it says its own.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ERROR_CODES, exceptions } from "cred-auth";
import { SignInPendingError } from "../dist/oauth/pending.js";
import { UsageError } from "../dist/cli/args.js";

const DEFAULTS: Record<string, string> = {
  CredAuthError: ERROR_CODES.CREDENTIALS,
  CredCredentialsError: ERROR_CODES.CREDENTIALS,
  CredConnectionError: ERROR_CODES.CONNECTION,
  CredCancelledError: ERROR_CODES.CANCELLED,
  CredSubjectTokenFileError: ERROR_CODES.SUBJECT_TOKEN_UNREADABLE,
  CredSubjectTokenUrlError: ERROR_CODES.SUBJECT_TOKEN_UNREACHABLE,
  CredStsError: ERROR_CODES.STS_REJECTED,
  CredUnsafeTokenUrlError: ERROR_CODES.UNSAFE_TOKEN_URL,
  CredImpersonationError: ERROR_CODES.IMPERSONATION_FAILED,
};

test("each public class is named after itself, with its default code; a given code wins", () => {
  const classes = Object.entries(exceptions).filter(([, value]) => typeof value === "function");
  assert.deepEqual(classes.map(([name]) => name).sort(), Object.keys(DEFAULTS).sort());
  for (const [name, Class] of classes) {
    const error = new (Class as typeof exceptions.CredAuthError)("words");
    assert.equal(error.name, name);
    assert.equal(error.code, DEFAULTS[name], name);
    assert.ok(error instanceof exceptions.CredAuthError && error instanceof Error, name);
    assert.equal(String(error), `${name}: words`);
    assert.match(error.stack ?? "", new RegExp(`^${name}: words\\n`));
    const coded = new (Class as typeof exceptions.CredAuthError)("x", { code: ERROR_CODES.TIMEOUT, status: 408 });
    assert.equal(coded.code, ERROR_CODES.TIMEOUT);
    assert.equal(coded.status, 408);
  }
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
  assert.equal(pending.stack, `SignInPendingError: ${pending.message}`);
  assert.ok(pending instanceof exceptions.CredCredentialsError);
});
