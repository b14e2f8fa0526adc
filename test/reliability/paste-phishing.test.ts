// Phishing with a pasted code: someone gets a victim to paste a code from the attacker's own
// sign-in (so the victim's program would end up with the attacker's account, or a code the
// attacker chose). PKCE binds a code to the sign-in that asked for it, and a pasted redirect
// address must carry this sign-in's state: the code is refused, nothing is obtained, and the
// victim's own code still works afterwards.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CredCredentialsError } from "cred-auth";
import { approveSignIn } from "cred-auth/emulator";
import { startSignIn } from "../../dist/oauth/flow.js";
import { resolveEndpoints } from "../../dist/google/endpoints.js";
import { withEmulator } from "../support/emulator.ts";

const SCOPES = ["https://www.googleapis.com/auth/cloud-platform", "openid", "email"];
const emu = await withEmulator();
const env: NodeJS.ProcessEnv = { CRED_AUTH_EMULATOR_HOST: emu.host };

async function pasteSignIn() {
  const pending = await startSignIn({
    scopes: SCOPES,
    env,
    endpoints: resolveEndpoints(env),
    useLocalWebserver: false,
  });
  assert.equal(pending.mode, "paste");
  return pending;
}

test("a code from another sign-in is refused (PKCE), a pasted address of another sign-in too (state); the victim's own code still works", async () => {
  const attacker = await pasteSignIn();
  const attackerPage = await approveSignIn(attacker.url, { account: "alice@example.com" });
  assert.ok(attackerPage.code, "the attacker's code page showed a code");
  const attackerRedirect = await approveSignIn(attacker.url, { account: "alice@example.com", followRedirect: false });

  const victim = await pasteSignIn();
  const exchangesBefore = emu.stats().byGrant.authorization_code ?? 0;
  await assert.rejects(victim.exchangeCode(attackerPage.code!), (error: Error) => {
    assert.ok(error instanceof CredCredentialsError, `${error.name}: ${error.message}`);
    assert.match(error.message, /invalid_grant/);
    assert.ok(!error.message.includes(attackerPage.code!), "the code is not quoted");
    return true;
  });
  assert.equal(
    (emu.stats().byGrant.authorization_code ?? 0) - exchangesBefore,
    1,
    "the server refused it: the verifier does not match",
  );

  await assert.rejects(victim.exchangeCode(attackerRedirect.url), /belongs to another sign-in \(state mismatch\)/);
  assert.equal(
    (emu.stats().byGrant.authorization_code ?? 0) - exchangesBefore,
    1,
    "a foreign state is refused before any request",
  );

  const own = await approveSignIn(victim.url, { account: "bob@example.com" });
  const result = await victim.exchangeCode(own.code!);
  assert.equal(result.account, "bob@example.com");
  assert.equal(emu.checkAccessToken(result.accessToken)?.account, "bob@example.com");
  attacker.cancel();
});
