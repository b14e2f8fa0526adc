// What a user is told when the code exchange of a sign-in fails, for each way it can fail: the
// pasted code is damaged, belongs to another sign-in (PKCE, redirect URI), was issued without
// PKCE, was already used; the client's secret is wrong; the token server is down, says garbage,
// or drops the connection. A real copy-paste sign-in against the emulator, code pasted as a
// user would; the emulator's queued faults stand in for a failing Google.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CredConnectionError, CredCredentialsError, ERROR_CODES } from "cred-auth";
import { approveSignIn, DEMO_CLIENT, DEMO_WEB_CLIENT } from "cred-auth/emulator";
import type { PendingSignIn } from "../../dist/oauth/flow.js";
import { withEmulator } from "../support/emulator.ts";
import { freePortRange, startSignInWith } from "./support.ts";

const SCOPES = ["https://www.googleapis.com/auth/cloud-platform"];
const emulator = await withEmulator();
const env: NodeJS.ProcessEnv = { CRED_AUTH_EMULATOR_HOST: emulator.host, BROWSER: "none" };
const EXCHANGE = "Exchanging the authorization code failed: ";

/** A copy-paste sign-in waiting for its code (the emulator's code page shows it). */
function pasteSignIn(client: { clientId?: string; clientSecret?: string } = {}): Promise<PendingSignIn> {
  return startSignInWith({ scopes: SCOPES, env, useLocalWebserver: false, ...client });
}

/** The bare code a person approving `url` would be given. */
async function codeOf(url: string): Promise<string> {
  const page = await approveSignIn(url, { followRedirect: false });
  assert.ok(page.code, JSON.stringify(page));
  return page.code;
}

/** Pastes `text`, expects the refusal's class, code and exact message; the code itself is never quoted. */
async function refused(
  pending: PendingSignIn,
  text: string,
  expected: { type: typeof CredCredentialsError | typeof CredConnectionError; code: string; message: string },
): Promise<void> {
  await assert.rejects(pending.exchangeCode(text), (error: Error) => {
    assert.ok(error instanceof expected.type, `${error.name}: ${error.message}`);
    assert.equal((error as CredCredentialsError).code, expected.code);
    assert.equal(error.message, expected.message);
    assert.ok(!error.message.includes(text.slice(0, 12)), "the pasted code is not quoted");
    return true;
  });
}

test("a damaged code: Google's 'Malformed auth code' in words", async () => {
  const pending = await pasteSignIn();
  const code = await codeOf(pending.url);
  await refused(pending, `${code.slice(0, -4)}!!!!`, {
    type: CredCredentialsError,
    code: ERROR_CODES.INVALID_GRANT,
    message: `${EXCHANGE}invalid_grant: Google says the sign-in code is malformed; copy the whole code again, exactly as shown, or sign in again.`,
  });
  assert.equal(pending.ended, undefined, "a refused paste leaves the sign-in open");
  assert.ok((await pending.exchangeCode(code)).refreshToken, "the right code still completes it");
});

const OTHER_SIGN_IN =
  "the code belongs to another sign-in (its PKCE verifier does not match); paste the code of this sign-in, or sign in again.";

test("a code of another sign-in: its PKCE verifier does not match", async () => {
  const pending = await pasteSignIn();
  const other = await pasteSignIn();
  await refused(pending, await codeOf(other.url), {
    type: CredCredentialsError,
    code: ERROR_CODES.INVALID_GRANT,
    message: `${EXCHANGE}invalid_grant: ${OTHER_SIGN_IN}`,
  });
  other.cancel();
  pending.cancel();
});

test("a code issued without PKCE (another tool's sign-in): a verifier is not needed, so it is another sign-in's", async () => {
  const pending = await pasteSignIn();
  const url = new URL(pending.url);
  url.searchParams.delete("code_challenge");
  url.searchParams.delete("code_challenge_method");
  await refused(pending, await codeOf(url.toString()), {
    type: CredCredentialsError,
    code: ERROR_CODES.INVALID_GRANT,
    message: `${EXCHANGE}invalid_request: ${OTHER_SIGN_IN}`,
  });
  pending.cancel();
});

test("a code issued for another redirect address (a loopback sign-in's): redirect_uri_mismatch", async () => {
  const ports = await freePortRange(3);
  const loopback = await startSignInWith({ scopes: SCOPES, env, ports });
  // The same (Desktop) client both times: Google checks the code's client before its redirect address.
  const pending = await pasteSignIn(DEMO_CLIENT);
  await refused(pending, await codeOf(loopback.url), {
    type: CredCredentialsError,
    code: ERROR_CODES.INVALID_CLIENT,
    message: `${EXCHANGE}redirect_uri_mismatch: the redirect URI differs from the one the sign-in started with (redirect_uri_mismatch); start the sign-in again from the same application.`,
  });
  loopback.cancel();
  pending.cancel();
});

test("a code already used: it works once, for 10 minutes", async () => {
  const first = await pasteSignIn();
  const code = await codeOf(first.url);
  await first.exchangeCode(code);
  const second = await pasteSignIn();
  await refused(second, code, {
    type: CredCredentialsError,
    code: ERROR_CODES.INVALID_GRANT,
    message: `${EXCHANGE}invalid_grant: the sign-in code was already used or has expired (codes work once, for 10 minutes); sign in again.`,
  });
  second.cancel();
});

test("a wrong client secret: invalid_client, never the secret", async () => {
  const secret = "GOCSPX-wrong/se+cret=";
  const pending = await pasteSignIn({ clientId: DEMO_WEB_CLIENT.clientId, clientSecret: secret });
  await assert.rejects(pending.exchangeCode(await codeOf(pending.url)), (error: Error) => {
    assert.ok(error instanceof CredCredentialsError);
    assert.equal((error as CredCredentialsError).code, ERROR_CODES.INVALID_CLIENT);
    assert.equal(
      error.message,
      `${EXCHANGE}invalid_client: the OAuth client id or secret was rejected (the server said: "Unauthorized"); create or pick another client with \`cred-auth config init\`, then sign in again.`,
    );
    assert.ok(!JSON.stringify({ message: error.message, stack: error.stack }).includes("wrong"));
    return true;
  });
  pending.cancel();
});

test("the token server fails: temporary errors after the retries, a Google 502 page, garbage, a reset connection", async () => {
  // Every retry (google-auth-library's and the exchange's own) meets the fault; the rest are cleared after.
  const cases = [
    {
      fault: { status: 503 },
      code: ERROR_CODES.SERVER_ERROR,
      message: `${EXCHANGE}the token server answered 503 (temporarily_unavailable); try again later.`,
    },
    {
      fault: { status: 400, error: "internal_failure" },
      code: ERROR_CODES.SERVER_ERROR,
      message: `${EXCHANGE}the token server answered 400 (internal_failure); try again later.`,
    },
    {
      fault: { kind: "html" as const },
      code: ERROR_CODES.SERVER_ERROR,
      message: `${EXCHANGE}the token server answered HTTP 502; try again later.`,
    },
    {
      fault: { kind: "garbage" as const },
      code: ERROR_CODES.SERVER_ERROR,
      message: `${EXCHANGE}the token server sent an unreadable reply.`,
    },
    {
      fault: { kind: "reset" as const },
      code: ERROR_CODES.UNREACHABLE,
      message: `${EXCHANGE}could not reach the token server (ECONNRESET); check the network.`,
    },
  ];
  for (const { fault, code, message } of cases) {
    const pending = await pasteSignIn();
    const pasted = await codeOf(pending.url);
    emulator.failNext(100, fault);
    try {
      await refused(pending, pasted, { type: CredConnectionError, code, message });
    } finally {
      emulator.reset();
      pending.cancel();
    }
  }
});
