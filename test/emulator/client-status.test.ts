// A deleted or disabled OAuth client, as Google answers for it: 401 deleted_client / disabled_client
// on the token endpoint, "Error 401" pages at the sign-in page, access tokens already issued still
// working, refresh tokens working again after a restore (docs/emulator.md names the sources).
import { test } from "node:test";
import assert from "node:assert/strict";
import { approveSignIn, DEMO_CLIENT } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { authUrl, startReceiver, tokenRequest } from "./support.ts";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const OTHER = { clientId: "other.apps.emulator.invalid", clientSecret: "other-secret", type: "installed" as const };

const WORDS = {
  deleted: { error: "deleted_client", error_description: "The OAuth client was deleted." },
  disabled: { error: "disabled_client", error_description: "The OAuth client was disabled." },
} as const;

for (const status of ["deleted", "disabled"] as const) {
  test(`a ${status} client: 401 ${WORDS[status].error} for every grant and at the sign-in page; restored, it works again`, async () => {
    const emu = await withEmulator({ clients: [OTHER] });
    const receiver = await startReceiver();
    const refreshToken = emu.issueRefreshToken({ scopes: [CLOUD] });
    const before = await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: refreshToken });
    assert.equal(before.status, 200);
    const accessToken = String(before.json.access_token);

    if (status === "deleted") emu.deleteClient(DEMO_CLIENT.clientId);
    else emu.disableClient(DEMO_CLIENT.clientId);

    const refresh = await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: refreshToken });
    assert.deepEqual(refresh, { status: 401, json: WORDS[status] });
    // The secret does not matter any more, nor the grant: the client is refused first.
    const exchange = await tokenRequest(emu, {
      grant_type: "authorization_code",
      code: "4/made-up",
      redirect_uri: receiver.redirectUri,
      client_secret: "wrong",
    });
    assert.deepEqual(exchange, { status: 401, json: WORDS[status] });
    const page = await approveSignIn(authUrl(emu, { redirect_uri: receiver.redirectUri }));
    assert.equal(page.status, 401);
    assert.equal(page.error, WORDS[status].error);
    assert.match(page.body, new RegExp(`Error 401: <span id="error">${WORDS[status].error}</span>`));
    assert.match(page.body, new RegExp(WORDS[status].error_description.replace(/\./g, "\\.")));
    assert.equal(receiver.received.length, 0, "no redirect back to the application");

    // Access tokens already issued keep working; another client is untouched.
    assert.equal(emu.checkAccessToken(accessToken)?.clientId, DEMO_CLIENT.clientId);
    const other = emu.issueRefreshToken({ scopes: [CLOUD], clientId: OTHER.clientId });
    const otherOk = await tokenRequest(
      emu,
      {
        grant_type: "refresh_token",
        refresh_token: other,
        client_id: OTHER.clientId,
        client_secret: OTHER.clientSecret,
      },
      false,
    );
    assert.equal(otherOk.status, 200);

    emu.restoreClient(DEMO_CLIENT.clientId);
    const again = await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: refreshToken });
    assert.equal(again.status, 200);
  });
}

test("the admin API deletes, disables and restores a client; an unknown one is a 400", async () => {
  const emu = await withEmulator();
  const refreshToken = emu.issueRefreshToken({ scopes: [CLOUD] });
  const admin = async (verb: string, body: unknown) => {
    const res = await fetch(`${emu.url}/__emulator/oauth-client/${verb}`, {
      method: "POST",
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  const refresh = () => tokenRequest(emu, { grant_type: "refresh_token", refresh_token: refreshToken });

  assert.deepEqual(await admin("delete", { clientId: DEMO_CLIENT.clientId }), {
    status: 200,
    json: { clientId: DEMO_CLIENT.clientId, status: "deleted" },
  });
  assert.equal((await refresh()).json.error, "deleted_client");
  assert.equal((await admin("disable", { clientId: DEMO_CLIENT.clientId })).status, 200);
  assert.equal((await refresh()).json.error, "disabled_client");
  assert.equal((await admin("restore", { clientId: DEMO_CLIENT.clientId })).json.status, "active");
  assert.equal((await refresh()).status, 200);

  assert.equal((await admin("delete", { clientId: "nobody" })).status, 400);
  assert.equal((await admin("delete", {})).status, 400);
  assert.throws(() => emu.disableClient("nobody"), RangeError);
});
