// The code exchange against the strict emulator (issue 18): Google's error replies each get an
// accurate message and code, a pasted percent-encoded code is decoded, unticked scopes are refused,
// temporary errors inside a 400 are retried and then surface as CredConnectionError.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { after, test } from "node:test";
import { join } from "node:path";
import { CredConnectionError, CredCredentialsError, loadUserCredentials } from "cred-auth";
import { approveSignIn, DEMO_CLIENT } from "cred-auth/emulator";
import { resolveEndpoints } from "../../dist/protocols/endpoints.js";
import { exchangeCode } from "../../dist/oauth/exchange.js";
import { pkcePair } from "../emulator/support.ts";
import { testCredentialsFile, withEmulator } from "../support/emulator.ts";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const BIGQUERY = "https://www.googleapis.com/auth/bigquery";
const REDIRECT = "http://127.0.0.1:9/";
const emulator = await withEmulator();
const endpoints = resolveEndpoints({ CRED_AUTH_EMULATOR_HOST: emulator.host });
const dir = mkdtempSync(join(tmpdir(), "cred-auth-exchange-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A code from the consent page, caught at the redirect (nothing listens on port 9). */
async function codeFor(scopes: string[], opts: { untick?: string[]; challenge?: string } = {}) {
  const { verifier, challenge } = pkcePair();
  const url = new URL(endpoints.authUrl);
  const params = {
    client_id: DEMO_CLIENT.clientId,
    redirect_uri: REDIRECT,
    response_type: "code",
    scope: scopes.join(" "),
    access_type: "offline",
    prompt: "consent",
    code_challenge: opts.challenge ?? challenge,
    code_challenge_method: "S256",
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const result = await approveSignIn(url.toString(), { followRedirect: false, untick: opts.untick ?? [] });
  assert.ok(result.code, JSON.stringify(result));
  return { code: result.code, verifier };
}

function exchange(code: string, codeVerifier: string, requestedScopes = [CLOUD], redirectUri = REDIRECT) {
  return exchangeCode({ endpoints, ...DEMO_CLIENT, code, codeVerifier, redirectUri, requestedScopes });
}

function rejectsWith(code: string, pattern: RegExp, cls: typeof CredCredentialsError = CredCredentialsError) {
  return (error: unknown) => {
    assert.ok(error instanceof cls, String(error));
    assert.equal((error as CredCredentialsError).code, code);
    assert.match((error as Error).message, pattern);
    return true;
  };
}

test("a percent-encoded code copied from the address bar is decoded", async () => {
  const { code, verifier } = await codeFor([CLOUD]);
  const result = await exchange(encodeURIComponent(code), verifier);
  assert.ok(result.refreshToken.startsWith("1//"));
});

test("each of Google's exchange errors gets its own message and code, never the code itself", async () => {
  const damaged = await codeFor([CLOUD]);
  await assert.rejects(
    exchange(`${damaged.code} x`, damaged.verifier),
    rejectsWith("ERR_INVALID_GRANT", /malformed; copy the whole code again/),
  );
  const wrong = await codeFor([CLOUD]);
  await assert.rejects(
    exchange(wrong.code, pkcePair().verifier),
    rejectsWith("ERR_INVALID_GRANT", /belongs to another sign-in/),
  );
  const used = await codeFor([CLOUD]);
  await exchange(used.code, used.verifier);
  const again = await exchange(used.code, used.verifier).catch((e: Error) => e);
  assert.ok(again instanceof CredCredentialsError);
  assert.equal(again.code, "ERR_INVALID_GRANT");
  assert.match(again.message, /already used or has expired/);
  assert.ok(!again.message.includes(used.code));
  const moved = await codeFor([CLOUD]);
  await assert.rejects(
    exchange(moved.code, moved.verifier, [CLOUD], "http://localhost:9/"),
    rejectsWith("ERR_INVALID_CLIENT", /redirect_uri_mismatch/),
  );
});

test("fewer scopes granted than asked: ERR_INVALID_SCOPE naming them, saying to tick them", async () => {
  const { code, verifier } = await codeFor([CLOUD, BIGQUERY, "email"], { untick: [BIGQUERY] });
  const { revocations } = emulator.stats();
  await assert.rejects(
    exchange(code, verifier, [CLOUD, BIGQUERY, "email"]),
    rejectsWith("ERR_INVALID_SCOPE", new RegExp(`did not grant ${BIGQUERY.replace(/[./]/g, "\\$&")}: .*tick`)),
  );
  assert.equal(emulator.stats().revocations - revocations, 1, "the unused refresh token is given back");
});

test("temporary errors inside a 400 are retried; past the retries, CredConnectionError", async () => {
  const first = await codeFor([CLOUD]);
  emulator.failNext(2, { status: 400, error: "internal_failure" });
  const before = emulator.stats().byGrant.authorization_code ?? 0;
  await exchange(first.code, first.verifier);
  assert.equal((emulator.stats().byGrant.authorization_code ?? 0) - before, 3);
  const second = await codeFor([CLOUD]);
  emulator.failNext(3, { status: 400, error: "temporarily_unavailable" });
  await assert.rejects(
    exchange(second.code, second.verifier),
    rejectsWith("ERR_SERVER_ERROR", /answered 400 \(temporarily_unavailable\); try again later/, CredConnectionError),
  );
});

test("invalid_rapt: says the organisation requires signing in again, and how", async () => {
  const path = await testCredentialsFile(emulator, dir, { scopes: [CLOUD], account: "bob@example.com" });
  emulator.requireReauth("bob@example.com");
  await assert.rejects(
    loadUserCredentials(path),
    rejectsWith("ERR_REAUTH_REQUIRED", /organisation requires you to sign in again.*cred-auth login/),
  );
});
