// STS /v1/oauthtoken rotates refresh tokens (issue 27): each refresh of an
// external_account_authorized_user answers a new refresh_token, the old one stops working, and a
// rotated token presented again revokes the line (RFC 9700 4.14.2). Configurable, on by default.
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

test("each refresh answers a new refresh_token; the presented one stops working", async () => {
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
});

test("a rotated token presented again is refused and revokes the token that replaced it", async () => {
  const file = emu.issueExternalAccountAuthorizedUser();
  const first = await refreshWith(file, file.refresh_token);
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

async function withoutRotation(target: Emulator, run: () => Promise<void>): Promise<void> {
  target.setStsRefreshTokenRotation(false);
  try {
    await run();
  } finally {
    target.setStsRefreshTokenRotation(true);
  }
}

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
  assert.equal((await admin({ rotate: true })).status, 200);
  const config = (await (await fetch(`${fixed.url}/__emulator`)).json()) as { stsRefreshTokenRotation: boolean };
  assert.equal(config.stsRefreshTokenRotation, true);
  assert.match(String((await refreshWith(file, file.refresh_token)).json.refresh_token), /^1\/\//);
  assert.throws(() => emu.setStsRefreshTokenRotation("no" as unknown as boolean), RangeError);
});

test("google-auth-library's ExternalAccountAuthorizedUserClient keeps the rotated token across refreshes", async () => {
  // 60-second tokens are inside the client's 5-minute refresh margin: every call refreshes.
  const shortLived = await withEmulator({ accessTokenLifetimeSec: 60 });
  const file = shortLived.issueExternalAccountAuthorizedUser();
  const client = new ExternalAccountAuthorizedUserClient(
    file as unknown as ConstructorParameters<typeof ExternalAccountAuthorizedUserClient>[0],
  );
  const tokens = [];
  for (let i = 0; i < 3; i++) tokens.push((await client.getAccessToken()).token);
  assert.equal(new Set(tokens).size, 3, "three refreshes, each with the token the last one rotated to");
  assert.equal(shortLived.stats().byGrant.refresh_token, 3);
  const original = await refreshWith(file, file.refresh_token);
  assert.equal(original.json.error, "invalid_grant", "the file's own token was rotated away");
});
