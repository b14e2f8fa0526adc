// The ID-token side from another process: `--run-service`, and the admin API's rotate-id-token-keys,
// oauth-client and run-service routes, as a test driving `cred-auth emulator` would use them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseEmulatorArgs } from "cred-auth/emulator";
import { startEmulatorProcess } from "../support/emulator-process.ts";
import { decodeJwtParts } from "../support/id-tokens.ts";
import { postForm, signAssertion } from "./support.ts";

test("parseEmulatorArgs: --run-service NAME[=AUDIENCE,...], repeatable, names checked", () => {
  assert.deepEqual(
    parseEmulatorArgs(["--run-service", "api=https://api.example.com,aud-2", "--run-service=plain"]).runServices,
    [
      { name: "api", customAudiences: ["https://api.example.com", "aud-2"] },
      { name: "plain", customAudiences: [] },
    ],
  );
  assert.throws(() => parseEmulatorArgs(["--run-service", "Not_A_Name"]), /lowercase letters/);
  assert.throws(() => parseEmulatorArgs(["--run-service"]), /needs a value/);
});

async function admin(
  url: string,
  path: string,
  body: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${url}/__emulator${path}`, { method: "POST", body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

test("cred-auth emulator --run-service in a child process, driven through the admin API", async () => {
  const emulator = await startEmulatorProcess(
    ["--port", "0", "--quiet", "--run-service", "api=https://api.example.com"],
    /protected service:/,
  );
  const { url } = emulator;
  try {
    assert.match(emulator.stdout(), new RegExp(`protected service: ${url.replace(/\./g, "\\.")}/run/api\\n`));

    // A service-account key's ID token for the custom audience reaches the service.
    const key = (await admin(url, "/service-account-key", {})).json as Record<string, string>;
    const now = Math.floor(Date.now() / 1000);
    const assertion = signAssertion(key.private_key, {
      iss: key.client_email,
      aud: key.token_uri,
      iat: now,
      exp: now + 3600,
      target_audience: "https://api.example.com",
    });
    const grant = await postForm(`${url}/token`, {
      grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
      assertion,
    });
    const idToken = String(grant.json.id_token);
    const call = (path: string) => fetch(`${url}${path}`, { headers: { Authorization: `Bearer ${idToken}` } });
    assert.equal((await call("/run/api")).status, 200);

    const keys = await admin(url, "/rotate-id-token-keys", {});
    assert.equal(keys.status, 200);
    assert.notEqual(keys.json.signing, decodeJwtParts(idToken).header.kid);
    assert.equal((keys.json.published as string[]).length, 3);

    const service = await admin(url, "/run-service", { name: "later", customAudiences: ["https://api.example.com"] });
    assert.deepEqual(service.json, { url: `${url}/run/later` });
    assert.equal((await call("/run/later")).status, 200);

    // An IAP-style client registered at run time is the audience of a user's refresh grant.
    const added = await admin(url, "/oauth-client", {
      clientId: "iap.apps.emulator.invalid",
      clientSecret: "s",
      type: "web",
    });
    assert.deepEqual(added, { status: 200, json: { clientId: "iap.apps.emulator.invalid" } });
    const user = (await admin(url, "/refresh-token", { scopes: ["openid", "email"] })).json as Record<string, string>;
    const refreshed = await postForm(`${url}/token`, {
      grant_type: "refresh_token",
      refresh_token: user.refresh_token,
      client_id: user.client_id,
      client_secret: user.client_secret,
      audience: "iap.apps.emulator.invalid",
    });
    assert.equal(decodeJwtParts(String(refreshed.json.id_token)).claims.aud, "iap.apps.emulator.invalid");
    for (const body of [{ clientId: "x" }, { clientId: "x", clientSecret: "s", type: "tv" }, "nope"])
      assert.equal((await admin(url, "/oauth-client", body)).status, 400, JSON.stringify(body));

    const stats = (await (await fetch(`${url}/__emulator/stats`)).json()) as Record<string, unknown>;
    assert.equal(stats.runRequests, 2);
    assert.equal(stats.idTokens, 2);
    assert.deepEqual(stats.idTokensBySource, { "jwt-bearer": 1, refresh_token: 1 });
  } finally {
    assert.equal(await emulator.stop(), 0, emulator.stderr());
  }
});
