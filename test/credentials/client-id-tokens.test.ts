// A google-auth-library client's ID token (credentials/tokens/id-token-clients.ts): kept in memory while it has
// time left and shared by concurrent callers, refused for a client that cannot mint one, and a caller's Compute
// asked through cred-auth's own metadata request.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Compute } from "google-auth-library";
import * as credAuth from "cred-auth";
import { ERROR_CODES } from "cred-auth";
import { verifyIdToken } from "../support/id-tokens.ts";
import { isolatedWorld, withEnv } from "./support.ts";

const { emulator } = await isolatedWorld();
const first = emulator.addRunService({ name: "first" });
const second = emulator.addRunService({ name: "second" });
type Credentials = credAuth.IdTokenOptions["credentials"];

/** A client of the caller's own whose n-th ID token lives `lifetimes[n]` seconds (the last one after), counted. */
function ownClient(lifetimes: number[]) {
  const client = { minted: 0, getAccessToken: async () => ({}), fetchIdToken: async (_audience: string) => "" };
  client.fetchIdToken = async (audience) => {
    const life = lifetimes[Math.min(client.minted, lifetimes.length - 1)] as number;
    client.minted += 1;
    const part = (json: object) => Buffer.from(JSON.stringify(json)).toString("base64url");
    const claims = { aud: audience, exp: Math.floor(Date.now() / 1000) + life, n: client.minted };
    return `${part({ alg: "none" })}.${part(claims)}.sig`;
  };
  return { client, credentials: client as unknown as Credentials };
}

test("a kept ID token is served again while it has time left; two callers of a stale one share one new token", async () => {
  const { client, credentials } = ownClient([240, 3600]);
  const stale = await credAuth.fetchIdToken(first, { credentials });
  const [a, b] = await Promise.all([
    credAuth.fetchIdToken(first, { credentials }),
    credAuth.fetchIdToken(first, { credentials }),
  ]);
  assert.notEqual(a, stale);
  assert.equal(b, a, "the second caller waited for the first one's token");
  assert.equal(await credAuth.fetchIdToken(first, { credentials }), a, "kept");
  assert.equal(client.minted, 2);
});

test("a client without fetchIdToken cannot mint ID tokens; a bad token from one that has it is named as its", async () => {
  const none = { getAccessToken: async () => ({}) } as unknown as Credentials;
  await assert.rejects(credAuth.fetchIdToken(first, { credentials: none }), {
    code: ERROR_CODES.ID_TOKEN_UNSUPPORTED,
    message: /cannot mint ID tokens/,
  });
  const garbage = { getAccessToken: async () => ({}), fetchIdToken: async () => "not a jwt" };
  await assert.rejects(credAuth.fetchIdToken(first, { credentials: garbage as unknown as Credentials }), {
    code: ERROR_CODES.SERVER_ERROR,
    message: /^The client's fetchIdToken\(\) sent an ID token that is not a readable JWT/,
  });
});

test("a Compute the caller built gets its ID token through cred-auth: a metadata server without one is a coded error", async () => {
  emulator.setMetadata({ projectId: "vm-project", email: "vm@vm-project.iam.gserviceaccount.com" });
  try {
    await withEnv({ GCE_METADATA_HOST: emulator.host }, async () => {
      const credentials = new Compute();
      const token = await credAuth.fetchIdToken(first, { credentials });
      assert.equal((await verifyIdToken(emulator, token, first)).aud, first);
      emulator.setMetadata(null);
      await assert.rejects(credAuth.fetchIdToken(second, { credentials }), (error: Error) => {
        assert.ok(error instanceof credAuth.CredAuthError, `${error.name}: ${error.message}`);
        return true;
      });
    });
  } finally {
    emulator.setMetadata(null);
  }
});
