// A token request's per-attempt deadline: an attempt it ends is a timeout (retried); an attempt that failed on
// its own stays that failure, even when the deadline passed meanwhile (a loaded machine).
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { UserRefreshClient } from "google-auth-library";
import { ERROR_CODES } from "cred-auth";
import { guardTokenRequests, proveCredentials } from "../../dist/protocols/token-requests.js";

const TOKEN_URL = "https://oauth2.googleapis.com/token";

/** A user client whose every token request goes to `fetch`, within 50 ms per attempt. */
function clientWith(fetch: (url: unknown, init: { signal?: AbortSignal }) => Promise<Response>): UserRefreshClient {
  const client = new UserRefreshClient({
    clientId: "client-id.apps.googleusercontent.com",
    clientSecret: "a-client-secret",
    refreshToken: "a-refresh-token-long-enough",
    transporterOptions: { fetchImplementation: fetch as never, retryConfig: { retryDelay: 1 } },
  });
  guardTokenRequests(client, { tokenUrl: TOKEN_URL, timeoutMs: 50 });
  return client;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The deadline's timer does not keep a process alive (a socket would): this does, while a test runs.
const alive = setInterval(() => {}, 1000);
after(() => clearInterval(alive));

test("an attempt the deadline ends is a timeout, asked again", async () => {
  let attempts = 0;
  const client = clientWith(
    (_url, init) =>
      new Promise((_resolve, reject) => {
        attempts++;
        init.signal?.addEventListener("abort", () =>
          reject(Object.assign(new Error("aborted"), { name: "AbortError" })),
        );
      }),
  );
  await assert.rejects(proveCredentials(client, "Refreshing"), { code: ERROR_CODES.TIMEOUT });
  assert.ok(attempts >= 2, `asked again (${attempts} attempts)`);
});

test("an attempt that failed on its own after the deadline passed is that failure, not a timeout", async () => {
  const client = clientWith(async () => {
    await sleep(150); // the deadline (50 ms) passes while the reply is read; the reading fails on its own
    throw new TypeError("terminated");
  });
  await assert.rejects(proveCredentials(client, "Refreshing"), (error: Error & { code?: string }) => {
    assert.notEqual(error.code, ERROR_CODES.TIMEOUT, error.message);
    assert.doesNotMatch(error.message, /did not answer in time/);
    return true;
  });
});
