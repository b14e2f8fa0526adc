// default() resolves once per process for the same scopes, options and environment: concurrent
// callers share one in-flight resolution, later callers reuse its credentials, until they fail.
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as credAuth from "cred-auth";
import { CredConnectionError, cache } from "cred-auth";
import { testCredentialsFile } from "../support/emulator.ts";
import { isolatedWorld, withEnv } from "../user/support.ts";

const { emulator, home } = await isolatedWorld();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const BIGQUERY = "https://www.googleapis.com/auth/bigquery";
const options = { credentialsCache: cache.NOOP, useLocalWebserver: true } as const;
const tokenRequests = () => emulator.stats().tokenRequests;

/** An ADC user file and an empty token cache of its own: the environment of one case. */
async function world(name: string): Promise<Record<string, string>> {
  const file = await testCredentialsFile(emulator, join(home, name), { scopes: [CLOUD] });
  const tokens = mkdtempSync(join(home, `${name}-tokens-`));
  return { GOOGLE_APPLICATION_CREDENTIALS: file, CRED_AUTH_TOKEN_CACHE: tokens };
}

for (const calls of [1, 1000]) {
  test(`${calls} concurrent default() + getAccessToken() with an empty token cache: one token request`, async () => {
    await withEnv(await world(`concurrent-${calls}`), async () => {
      const before = tokenRequests();
      const results = await Promise.all(
        Array.from({ length: calls }, async () => {
          const [credentials] = await credAuth.default([CLOUD], options);
          return { credentials, token: (await credentials.getAccessToken()).token };
        }),
      );
      assert.equal(tokenRequests() - before, 1);
      assert.equal(new Set(results.map((r) => r.credentials)).size, 1, "one credentials object for all");
      assert.equal(new Set(results.map((r) => r.token)).size, 1);
      assert.ok(emulator.checkAccessToken(results[0]!.token!));

      // A later call in the same process reuses them: no resolution, no request.
      const [again] = await credAuth.default([CLOUD], options);
      assert.equal(again, results[0]!.credentials);
      assert.equal(tokenRequests() - before, 1);
    });
  });
}

test("different scopes, options or environment do not share", async () => {
  const env = await world("apart");
  await withEnv(env, async () => {
    const [a] = await credAuth.default([CLOUD], options);
    const [sameSet] = await credAuth.default([CLOUD, CLOUD], options);
    assert.equal(sameSet, a, "the same scopes as a set share");
    const [otherScopes] = await credAuth.default([CLOUD, BIGQUERY], options);
    const [otherOptions] = await credAuth.default([CLOUD], {
      ...options,
      credentialsCache: new cache.CredentialsCache(),
    });
    assert.notEqual(otherScopes, a);
    assert.notEqual(otherOptions, a);
    const [otherEnv] = await withEnv({ CRED_AUTH_TOKEN_CACHE: mkdtempSync(join(home, "other-")) }, () =>
      credAuth.default([CLOUD], options),
    );
    assert.notEqual(otherEnv, a);
  });
});

test("a failed resolution is not kept: the next call resolves afresh", async () => {
  await withEnv(await world("failed"), async () => {
    emulator.failNext(20, { kind: "reset" }); // more than the retries
    await assert.rejects(credAuth.default([CLOUD], options), CredConnectionError);
    emulator.reset();
    const before = tokenRequests();
    const [credentials] = await credAuth.default([CLOUD], options);
    assert.ok((await credentials.getAccessToken()).token);
    assert.equal(tokenRequests() - before, 1, "a new resolution asked for a token");
  });
});

test("credentials whose refresh fails are forgotten: the next call resolves afresh", async () => {
  const env = await world("revoked");
  await withEnv(env, async () => {
    const [first] = await credAuth.default([CLOUD], options);
    const refreshToken = (first as unknown as { credentials: { refresh_token: string } }).credentials.refresh_token;
    emulator.revokeRefreshToken(refreshToken);
    first.credentials = { refresh_token: refreshToken }; // its access token has run out
    await assert.rejects(first.getAccessToken());
    // The user signs in again (gcloud auth application-default login): a new file at the same path.
    await testCredentialsFile(emulator, join(home, "revoked"), { scopes: [CLOUD] });
    const [second] = await credAuth.default([CLOUD], options);
    assert.notEqual(second, first);
    assert.ok(emulator.checkAccessToken((await second.getAccessToken()).token!));
  });
});
