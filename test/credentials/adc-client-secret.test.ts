// A client-secret file where credentials belong (GOOGLE_APPLICATION_CREDENTIALS, print-token's
// FILE) is named for what it is, with the sign-in that turns it into credentials; default() says
// so before it falls back to a sign-in.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { findApplicationDefaultCredentials } from "../../dist/credentials/search/adc.js";
import { isolatedWorld } from "../credentials/support.ts";

const { emulator, home } = await isolatedWorld();

test("GOOGLE_APPLICATION_CREDENTIALS naming a client-secret file: the reason says it is one and how to sign in with it", async () => {
  const path = join(home, "client_secret.json");
  const client = {
    client_id: "1-abc.apps.googleusercontent.com",
    client_secret: "not-shown",
    redirect_uris: ["http://localhost"],
  };
  writeFileSync(path, JSON.stringify({ installed: client }), { mode: 0o600 });
  const outcome = await findApplicationDefaultCredentials(["https://www.googleapis.com/auth/cloud-platform"], {
    HOME: home,
    CRED_AUTH_EMULATOR_HOST: emulator.host,
    GOOGLE_APPLICATION_CREDENTIALS: path,
  });
  assert.equal(outcome.found, undefined);
  assert.deepEqual(outcome.reasons, [
    `GOOGLE_APPLICATION_CREDENTIALS=${path}: Credentials file ${JSON.stringify(path)} is an OAuth client-secret file (an OAuth client's id and secret, as the Google Cloud console downloads it), not credentials; sign in with it to get credentials: cred-auth login credentials.json --client-secret-file ${JSON.stringify(path)}, then use credentials.json.`,
  ]);
  assert.ok(!outcome.reasons.join().includes("not-shown"), "the secret stays out");
});
