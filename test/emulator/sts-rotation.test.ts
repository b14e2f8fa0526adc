// STS /v1/oauthtoken rotates refresh tokens as Google documents it: each refresh of an
// external_account_authorized_user may answer a new refresh_token, and the presented one keeps
// working. The rotation that kills the old token, and revokes the line when a rotated token comes
// back (RFC 9700 4.14.2), is only the explicit fault "revoke-old".
import assert from "node:assert/strict";
import { test } from "node:test";
import { ExternalAccountAuthorizedUserClient } from "google-auth-library";
import type { Emulator } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { postForm } from "./support.ts";

const emu = await withEmulator();

function refreshWith(file: Record<string, string>, refreshToken: string) {
  return postForm(
    file.token_url,
    { grant_type: "refresh_token", refresh_token: refreshToken },
    { Authorization: `Basic ${Buffer.from(`${file.client_id}:${file.client_secret}`).toString("base64")}` },
  );
}

test("by default each refresh answers a new refresh_token, and the presented one keeps working", async () => {
  const file = emu.issueExternalAccountAuthorizedUser();
  const first = await refreshWith(file, file.refresh_token);
  assert.equal(first.status, 200, JSON.stringify(first.json));
  const next = String(first.json.refresh_token);
  assert.match(next, /^1\/\/emu\.sts\./);
  assert.notEqual(next, file.refresh_token);
  assert.ok(emu.checkAccessToken(String(first.json.access_token)), "the access token works");
  const second = await refreshWith(file, next);
  assert.equal(second.status, 200);
  assert.notEqual(second.json.refresh_token, next);
  // gcloud never writes the new token back: the file's own token must keep working, again and again.
  for (const token of [file.refresh_token, file.refresh_token, next]) {
    const again = await refreshWith(file, token);
    assert.equal(again.status, 200, JSON.stringify(again.json));
    assert.ok(emu.checkAccessToken(String(again.json.access_token)));
  }
});

async function withRotation(
  target: Emulator,
  rotate: Parameters<Emulator["setStsRefreshTokenRotation"]>[0],
  run: () => Promise<void>,
): Promise<void> {
  target.setStsRefreshTokenRotation(rotate);
  try {
    await run();
  } finally {
    target.setStsRefreshTokenRotation(true);
  }
}

test('the fault "revoke-old": the presented token stops working, and presenting it again revokes its successor', async () => {
  await withRotation(emu, "revoke-old", async () => {
    const file = emu.issueExternalAccountAuthorizedUser();
    const first = await refreshWith(file, file.refresh_token);
    assert.equal(first.status, 200, JSON.stringify(first.json));
    const current = String(first.json.refresh_token);
    const replay = await refreshWith(file, file.refresh_token);
    assert.deepEqual(replay, {
      status: 400,
      json: { error: "invalid_grant", error_description: "The refresh token is invalid or has been revoked." },
    });
    const afterReplay = await refreshWith(file, current);
    assert.equal(afterReplay.status, 400, "the whole line is gone after a replay");
    assert.equal(afterReplay.json.error, "invalid_grant");
  });
  const faulty = await withEmulator({ stsRefreshTokenRotation: "revoke-old" });
  const file = faulty.issueExternalAccountAuthorizedUser();
  assert.equal((await refreshWith(file, file.refresh_token)).status, 200);
  assert.equal((await refreshWith(file, file.refresh_token)).status, 400, "the option sets the fault too");
  await assert.rejects(withEmulator({ stsRefreshTokenRotation: "sometimes" as "revoke-old" }), RangeError);
});

const withoutRotation = (target: Emulator, run: () => Promise<void>) => withRotation(target, false, run);

test("rotation off (option, method or admin route): no refresh_token in the reply, the token keeps working", async () => {
  await withoutRotation(emu, async () => {
    const file = emu.issueExternalAccountAuthorizedUser();
    for (let i = 0; i < 2; i++) {
      const reply = await refreshWith(file, file.refresh_token);
      assert.equal(reply.status, 200);
      assert.equal(reply.json.refresh_token, undefined);
    }
  });
  const fixed = await withEmulator({ stsRefreshTokenRotation: false });
  const file = fixed.issueExternalAccountAuthorizedUser();
  assert.equal((await refreshWith(file, file.refresh_token)).json.refresh_token, undefined);
  const admin = (body: unknown) =>
    fetch(`${fixed.url}/__emulator/sts-refresh-rotation`, { method: "POST", body: JSON.stringify(body) });
  assert.equal((await admin({ rotate: "yes" })).status, 400);
  assert.equal((await admin({ rotate: "revoke-old" })).status, 200);
  const config = async () =>
    ((await (await fetch(`${fixed.url}/__emulator`)).json()) as { stsRefreshTokenRotation: unknown })
      .stsRefreshTokenRotation;
  assert.equal(await config(), "revoke-old");
  assert.equal((await admin({ rotate: true })).status, 200);
  assert.equal(await config(), true);
  assert.match(String((await refreshWith(file, file.refresh_token)).json.refresh_token), /^1\/\//);
  assert.throws(() => emu.setStsRefreshTokenRotation("no" as unknown as boolean), RangeError);
});

test("google-auth-library's ExternalAccountAuthorizedUserClient keeps the rotated token across refreshes", async () => {
  // 60-second tokens are inside the client's 5-minute refresh margin: every call refreshes.
  const shortLived = await withEmulator({ accessTokenLifetimeSec: 60, stsRefreshTokenRotation: "revoke-old" });
  const file = shortLived.issueExternalAccountAuthorizedUser();
  const client = new ExternalAccountAuthorizedUserClient(
    file as unknown as ConstructorParameters<typeof ExternalAccountAuthorizedUserClient>[0],
  );
  const tokens = [];
  for (let i = 0; i < 3; i++) tokens.push((await client.getAccessToken()).token);
  assert.equal(new Set(tokens).size, 3, "three refreshes, each with the token the last one rotated to");
  assert.equal(shortLived.stats().byGrant.refresh_token, 3);
  const original = await refreshWith(file, file.refresh_token);
  assert.equal(original.json.error, "invalid_grant", "under the fault, the file's own token was rotated away");
});
