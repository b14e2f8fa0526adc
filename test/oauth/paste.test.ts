// The copy-paste flow's parsing of what the user pasted, and where its browser is sent: every
// refusal is checked by its message or code, so a removed check or a swapped branch is noticed.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CredCredentialsError } from "cred-auth";
import { parsePastedCode } from "../../dist/oauth/paste.js";

const STATE = "Zm9vYmFyLXN0YXRlLW9mLXRoaXMtc2lnbi1pbi0xMjM";
const CODE = "4/0AeanS0b-x_Yz+/=";

const refused = (pasted: string, message: RegExp, code?: string) =>
  assert.throws(
    () => parsePastedCode(pasted, STATE),
    (error: Error & { code?: string }) => {
      assert.ok(error instanceof CredCredentialsError, String(error));
      assert.match(error.message, message);
      if (code) assert.equal(error.code, code);
      assert.ok(!error.message.includes("4/0AeanS0b"), error.message);
      return true;
    },
  );

test("CODE~STATE of this sign-in gives the code; the state after the last ~ counts", () => {
  assert.equal(parsePastedCode(`  ${CODE}~${STATE}\n`, STATE), CODE);
  assert.equal(parsePastedCode(`4/0A~b~${STATE}`, STATE), "4/0A~b");
  assert.equal(parsePastedCode(CODE, STATE), CODE);
});

test("CODE~STATE of another sign-in, or with nothing before the ~, is refused", () => {
  refused(`${CODE}~${STATE}x`, /sign-in code belongs to another sign-in \(state mismatch\)/, "ERR_STATE_MISMATCH");
  refused(`${CODE}~${STATE.slice(1)}`, /state mismatch/, "ERR_STATE_MISMATCH");
  refused(`${CODE}~`, /state mismatch/, "ERR_STATE_MISMATCH");
  refused(`~${STATE}`, /carries no authorization code; paste the whole code shown/);
});

test("a pasted address must carry this sign-in's state and a code", () => {
  const base = "https://org.example/oauth.html";
  assert.equal(parsePastedCode(`${base}?code=${encodeURIComponent(CODE)}&state=${STATE}`, STATE), CODE);
  assert.equal(parsePastedCode(`HTTP://127.0.0.1:9099/oauth/code?state=${STATE}&code=abc`, STATE), "abc");
  assert.equal(parsePastedCode(`?state=${STATE}&code=abc`, STATE), "abc");
  assert.equal(parsePastedCode(`state=${STATE}&code=abc`, STATE), "abc");
  assert.equal(parsePastedCode(`scope=x&code=abc&state=${STATE}`, STATE), "abc");
  assert.equal(parsePastedCode(`code=abc&state=${STATE}`, STATE), "abc");
  assert.equal(parsePastedCode(`code=a?b&state=${STATE}`, STATE), "a?b");
  assert.equal(parsePastedCode(`code=abc&state=${STATE}&next=https://org.example/`, STATE), "abc");
  refused(`${base}?code=abc`, /carries no state, so it cannot be matched/, "ERR_STATE_MISMATCH");
  refused(
    `${base}?code=abc&state=${STATE}0`,
    /address belongs to another sign-in \(state mismatch\)/,
    "ERR_STATE_MISMATCH",
  );
  refused(`${base}?code=abc&state=`, /address belongs to another sign-in/, "ERR_STATE_MISMATCH");
  refused(`${base}?state=${STATE}`, /address carries no authorization code; paste the code shown/);
  refused(`${base}?state=${STATE}&code=`, /address carries no authorization code/);
  refused(
    `${base}?error=access_denied&state=${STATE}`,
    /denied in the browser \(access_denied\): sign in again and choose Allow/,
  );
  refused(`?error=server_error&state=${STATE}`, /server error \(server_error\)/);
  refused("https://[not a url/?code=abc", /not a valid URL; paste the code or the whole address/);
});

test("a bare code: trimmed; empty, spaced or too long is refused", () => {
  assert.equal(parsePastedCode("\t4/0Abc\n", STATE), "4/0Abc");
  refused("  \n ", /No authorization code was entered; run again and paste the code/);
  refused("4/0A b", /not an authorization code \(it has spaces\)/);
  refused("a".repeat(4097), /too long to be an authorization code/);
  assert.equal(parsePastedCode("a".repeat(4096), STATE), "a".repeat(4096));
  assert.equal(parsePastedCode(` ${"a".repeat(4096)} `, STATE), "a".repeat(4096));
  // "code=" inside a bare code that does not start a parameter is still a bare code
  assert.equal(parsePastedCode("4/0Acode=x", STATE), "4/0Acode=x");
});
