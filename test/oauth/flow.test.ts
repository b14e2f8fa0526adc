// The whole sign-in against the emulator: real HTTP, real loopback ports, a simulated browser.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CredCancelledError, CredCredentialsError, ERROR_CODES } from "cred-auth";
import type { Presenter, SignInEvent } from "cred-auth";
import { inspect } from "node:util";
import { approveSignIn, DEMO_WEB_CLIENT } from "cred-auth/emulator";
import type { BrowserResult, Emulator } from "cred-auth/emulator";
import { SignInPendingError } from "../../dist/oauth/flow.js";
import { completePendingSignIn, getPendingSignIn } from "../../dist/oauth/pending.js";
import { withEmulator } from "../support/emulator.ts";
import { freePortRange, hasIpv6Loopback, rawRequest, signInWith, startSignInWith } from "./support.ts";

const SCOPES = ["https://www.googleapis.com/auth/cloud-platform", "openid", "email"];
const emulator: Emulator = await withEmulator();
const env: NodeJS.ProcessEnv = { CRED_AUTH_EMULATOR_HOST: emulator.host, BROWSER: "none" };

/** A presenter that records events and plays the browser when the URL is shown. */
function recorder(onUrl?: (event: Extract<SignInEvent, { type: "url" }>) => void, readCode?: Presenter["readCode"]) {
  const events: SignInEvent[] = [];
  let closed = 0;
  const presenter: Presenter = {
    update(event) {
      events.push(event);
      if (event.type === "url") onUrl?.(event);
    },
    close() {
      closed++;
    },
    ...(readCode ? { readCode } : {}),
  };
  return { presenter, events, types: () => events.map((e) => e.type), closed: () => closed };
}

/** Runs `fn` later and keeps its outcome, so a failure in the simulated browser is seen by the test. */
function later<T>(fn: () => Promise<T>): { promise: Promise<T> } {
  const box = {} as { promise: Promise<T> };
  box.promise = new Promise<T>((resolve, reject) => setImmediate(() => fn().then(resolve, reject)));
  box.promise.catch(() => {});
  return box;
}

function assertNoSecret(error: Error, ...secrets: (string | undefined)[]): void {
  for (const secret of secrets)
    if (secret) assert.ok(!error.message.includes(secret), `message leaks a secret: ${error.message}`);
}

test("loopback: URL, waiting, browser comes back, tokens, signed-in; the browser sees the success page", async () => {
  const ports = await freePortRange(10);
  let browser: { promise: Promise<BrowserResult> } | undefined;
  const r = recorder((event) => (browser = later(() => approveSignIn(event.url, { account: "bob@example.com" }))));
  const before = emulator.stats().byGrant.authorization_code ?? 0;
  const result = await signInWith({ scopes: SCOPES, env, ports, presenter: r.presenter, openBrowser: false });
  assert.deepEqual(r.types(), ["url", "waiting", "signed-in"]);
  const url = r.events[0] as Extract<SignInEvent, { type: "url" }>;
  assert.equal(url.mode, "loopback");
  assert.equal(url.browserOpened, false);
  assert.deepEqual(url.scopes, SCOPES);
  const query = new URL(url.url).searchParams;
  assert.equal(query.get("redirect_uri"), `http://localhost:${ports.first}/`);
  assert.equal(query.get("access_type"), "offline");
  assert.equal(query.get("prompt"), "consent");
  assert.equal(query.get("code_challenge_method"), "S256");
  assert.equal(result.account, "bob@example.com");
  assert.deepEqual((r.events[2] as { account?: string }).account, "bob@example.com");
  assert.ok(result.refreshToken && result.accessToken);
  assert.ok(result.expiryDate && result.expiryDate > Date.now());
  assert.ok(
    SCOPES.every(
      (s) => result.scopes.includes(s) || (s === "email" && result.scopes.some((g) => g.endsWith("userinfo.email"))),
    ),
  );
  assert.equal(emulator.checkAccessToken(result.accessToken)?.account, "bob@example.com");
  assert.equal((emulator.stats().byGrant.authorization_code ?? 0) - before, 1);
  const page = await browser!.promise;
  assert.equal(page.status, 200);
  assert.match(page.body, /Signed in\. You may close this window\./);
  assert.equal(r.closed(), 1);
  await assert.rejects(rawRequest(ports.first, "/"), /ECONNREFUSED/);
});

test("copy-paste: the user pastes the code shown by the code page; same PKCE verifier", async () => {
  let browser: { promise: Promise<BrowserResult> } | undefined;
  const r = recorder(
    (event) => (browser = later(() => approveSignIn(event.url))),
    async () => (await browser!.promise).code ?? "",
  );
  const result = await signInWith({
    scopes: SCOPES,
    env,
    useLocalWebserver: false,
    presenter: r.presenter,
    openBrowser: false,
  });
  assert.deepEqual(r.types(), ["url", "code-needed", "signed-in"]);
  const url = r.events[0] as Extract<SignInEvent, { type: "url" }>;
  assert.equal(url.mode, "paste");
  assert.equal(new URL(url.url).searchParams.get("redirect_uri"), `${emulator.url}/oauth/code`);
  assert.equal(emulator.checkAccessToken(result.accessToken)?.scopes.includes(SCOPES[0]!), true);
  assert.match((await browser!.promise).body, /password/i);
});

test("copy-paste: the whole redirect URL may be pasted instead of the code", async () => {
  let browser: { promise: Promise<BrowserResult> } | undefined;
  const r = recorder(
    (event) => (browser = later(() => approveSignIn(event.url, { followRedirect: false }))),
    async () => (await browser!.promise).url,
  );
  const result = await signInWith({
    scopes: SCOPES,
    env,
    useLocalWebserver: false,
    presenter: r.presenter,
    openBrowser: false,
  });
  assert.ok(emulator.checkAccessToken(result.accessToken));
  assert.match((await browser!.promise).url, /[?&]state=/);
});

test("Deny in the browser: CredCredentialsError in words, failed event, error page, port freed", async () => {
  const ports = await freePortRange(10);
  let browser: { promise: Promise<BrowserResult> } | undefined;
  const r = recorder((event) => (browser = later(() => approveSignIn(event.url, { decision: "deny" }))));
  await assert.rejects(
    signInWith({ scopes: SCOPES, env, ports, presenter: r.presenter, openBrowser: false }),
    (error: Error) => {
      assert.ok(error instanceof CredCredentialsError);
      assert.match(
        error.message,
        /The sign-in was denied in the browser \(access_denied\): sign in again and choose Allow\./,
      );
      return true;
    },
  );
  assert.deepEqual(r.types(), ["url", "waiting", "failed"]);
  const page = await browser!.promise;
  assert.equal(page.status, 400);
  assert.match(page.body, /denied/);
  await assert.rejects(rawRequest(ports.first, "/"), /ECONNREFUSED/);
});

test("stray requests and a wrong state before the real callback do not end the flow", async () => {
  const ports = await freePortRange(10);
  const answers: number[] = [];
  let browser: { promise: Promise<BrowserResult> } | undefined;
  const r = recorder((event) => {
    browser = later(async () => {
      const port = Number(new URL(new URL(event.url).searchParams.get("redirect_uri")!).port);
      for (const path of ["/favicon.ico", "/", "/robots.txt", "/?code=forged&state=forged", "/?code=forged"]) {
        answers.push((await rawRequest(port, path)).status);
      }
      return approveSignIn(event.url);
    });
  });
  const result = await signInWith({ scopes: SCOPES, env, ports, presenter: r.presenter, openBrowser: false });
  assert.deepEqual(answers, [404, 404, 404, 400, 400]);
  assert.ok(emulator.checkAccessToken(result.accessToken));
  assert.equal((await browser!.promise).status, 200);
});

test("the browser may come back over IPv6 ::1", async (t) => {
  if (!(await hasIpv6Loopback())) return t.skip("no IPv6 loopback here");
  const ports = await freePortRange(10);
  let browser: { promise: Promise<{ status: number }> } | undefined;
  const r = recorder((event) => {
    browser = later(async () => {
      const redirect = new URL((await approveSignIn(event.url, { followRedirect: false })).url);
      return rawRequest(Number(redirect.port), redirect.pathname + redirect.search, { host: "::1" });
    });
  });
  const result = await signInWith({ scopes: SCOPES, env, ports, presenter: r.presenter, openBrowser: false });
  assert.ok(emulator.checkAccessToken(result.accessToken));
  assert.equal((await browser!.promise).status, 200);
});

test("nobody comes back: timeout as CredCredentialsError; abort as CredCancelledError", async () => {
  const ports = await freePortRange(10);
  const r = recorder();
  await assert.rejects(
    signInWith({ scopes: SCOPES, env, ports, presenter: r.presenter, openBrowser: false, timeoutMs: 100 }),
    (error: Error) => {
      assert.ok(error instanceof CredCredentialsError);
      assert.match(error.message, /Timed out waiting for the browser sign-in/);
      return true;
    },
  );
  assert.deepEqual(r.types(), ["url", "waiting", "failed"]);

  const controller = new AbortController();
  const aborted = recorder(() => void setImmediate(() => controller.abort()));
  await assert.rejects(
    signInWith({
      scopes: SCOPES,
      env,
      ports,
      presenter: aborted.presenter,
      openBrowser: false,
      signal: controller.signal,
    }),
    CredCancelledError,
  );
  await assert.rejects(rawRequest(ports.first, "/"), /ECONNREFUSED/);

  const pasteController = new AbortController();
  const paste = recorder(
    () => void setImmediate(() => pasteController.abort()),
    (signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(new CredCancelledError("x")))),
  );
  await assert.rejects(
    signInWith({
      scopes: SCOPES,
      env,
      useLocalWebserver: false,
      presenter: paste.presenter,
      openBrowser: false,
      signal: pasteController.signal,
    }),
    CredCancelledError,
  );
  const slow = recorder(undefined, () => new Promise(() => {}));
  await assert.rejects(
    signInWith({
      scopes: SCOPES,
      env,
      useLocalWebserver: false,
      presenter: slow.presenter,
      openBrowser: false,
      timeoutMs: 50,
    }),
    /Timed out waiting for the authorization code/,
  );
});

test("a presenter that cannot read a code leaves the sign-in pending; completePendingSignIn finishes it", async () => {
  const r = recorder();
  let pendingError: SignInPendingError | undefined;
  await assert.rejects(
    signInWith({ scopes: SCOPES, env, useLocalWebserver: false, presenter: r.presenter, openBrowser: false }),
    (error: Error) => {
      assert.ok(error instanceof SignInPendingError);
      assert.ok(error instanceof CredCredentialsError);
      pendingError = error;
      return true;
    },
  );
  assert.deepEqual(r.types(), ["url", "code-needed"]);
  assert.equal(r.closed(), 0, "the presenter stays up while the code is awaited");
  assert.equal(getPendingSignIn(), pendingError!.pending);
  const { code } = await approveSignIn(pendingError!.pending.url);
  await assert.rejects(completePendingSignIn("not-the-code"), CredCredentialsError);
  assert.equal(getPendingSignIn(), pendingError!.pending, "a rejected code leaves it waiting");
  const { result } = await completePendingSignIn(code!);
  assert.ok(emulator.checkAccessToken(result.accessToken));
  assert.equal(
    Object.keys(pendingError!).includes("pending"),
    false,
    "kernels print enumerable fields: the sign-in stays out",
  );
  assert.equal(getPendingSignIn(), undefined);
  await assert.rejects(completePendingSignIn(code!), /No sign-in is waiting/);
});

test("startSignIn: the two phases; a loopback sign-in also takes the pasted redirect URL", async () => {
  const ports = await freePortRange(10);
  const pending = await startSignInWith({ scopes: SCOPES, env, ports });
  assert.equal(pending.mode, "loopback");
  assert.equal(pending.redirectUri, `http://localhost:${ports.first}/`);
  // A browser on another machine cannot reach us: the user copies the address it failed to load.
  const { url } = await approveSignIn(pending.url, { followRedirect: false });
  const result = await pending.exchangeCode(url);
  assert.ok(emulator.checkAccessToken(result.accessToken));
  await assert.rejects(rawRequest(ports.first, "/"), /ECONNREFUSED/);
  await assert.rejects(pending.exchangeCode(url), /already complete/);
});

test("a code used twice is refused without quoting it", async () => {
  const pending = await startSignInWith({ scopes: SCOPES, env, useLocalWebserver: false });
  const { code } = await approveSignIn(pending.url);
  const first = await pending.exchangeCode(code!);
  const again = await startSignInWith({ scopes: SCOPES, env, useLocalWebserver: false });
  await assert.rejects(again.exchangeCode(code!), (error: Error) => {
    assert.ok(error instanceof CredCredentialsError);
    assert.equal(error.code, ERROR_CODES.INVALID_GRANT);
    assert.equal(error.error, "invalid_grant");
    assertNoSecret(error, code, first.refreshToken, first.accessToken);
    return true;
  });
  again.cancel();
  await assert.rejects(again.exchangeCode(code!), CredCancelledError);
});

test("a denied copy-paste sign-in pasted as URL reads as denied", async () => {
  const r = recorder(undefined, async () => {
    const url = (r.events[0] as Extract<SignInEvent, { type: "url" }>).url;
    return (await approveSignIn(url, { decision: "deny", followRedirect: false })).url;
  });
  await assert.rejects(
    signInWith({ scopes: SCOPES, env, useLocalWebserver: false, presenter: r.presenter, openBrowser: false }),
    /denied/,
  );
  assert.equal(r.types().at(-1), "failed");
});

test("an unknown client is rejected by the sign-in page; cancel() frees the port", async () => {
  const ports = await freePortRange(10);
  const pending = await startSignInWith({
    scopes: SCOPES,
    env,
    ports,
    clientId: "nobody.apps",
    clientSecret: "TOPSECRET-x",
  });
  const page = await approveSignIn(pending.url);
  assert.equal(page.status, 401, "Error 401: invalid_client, as Google's page");
  assert.equal(page.code, undefined);
  pending.cancel();
  await assert.rejects(rawRequest(ports.first, "/"), /ECONNREFUSED/);
  await assert.rejects(pending.waitForBrowser(), CredCancelledError);
});

test("a loopback redirectUri of the caller's is listened on exactly (host, port, path)", async () => {
  const { first } = await freePortRange(1);
  const redirectUri = `http://127.0.0.1:${first}/callback`;
  const pending = await startSignInWith({ scopes: SCOPES, env, redirectUri });
  assert.equal(pending.mode, "loopback");
  assert.equal(pending.redirectUri, redirectUri);
  assert.equal((await rawRequest(first, "/?code=x&state=y")).status, 404, "only the given path counts");
  const browser = approveSignIn(pending.url);
  const result = await pending.waitForBrowser();
  assert.ok(emulator.checkAccessToken(result.accessToken));
  assert.equal((await browser).status, 200);
});

test("the code exchange with a loopback emulator ignores HTTP(S)_PROXY", async () => {
  const names = ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"] as const;
  const saved = names.map((n) => process.env[n]);
  for (const n of names) process.env[n] = "http://127.0.0.1:9"; // nothing listens there
  try {
    const pending = await startSignInWith({ scopes: SCOPES, env, useLocalWebserver: false });
    const { code } = await approveSignIn(pending.url);
    const result = await pending.exchangeCode(code!);
    assert.ok(emulator.checkAccessToken(result.accessToken));
  } finally {
    names.forEach((n, i) => {
      if (saved[i] === undefined) delete process.env[n];
      else process.env[n] = saved[i];
    });
  }
});

test("an attempt is open until its first exchange (done) or cancel (cancelled), once; it shows no client secret", async () => {
  const pending = await startSignInWith({ scopes: SCOPES, env, useLocalWebserver: false });
  assert.equal(pending.ended, undefined);
  const printed = `${JSON.stringify(pending)} ${inspect(pending, { showHidden: true, depth: 4 })}`;
  assert.ok(!printed.includes(DEMO_WEB_CLIENT.clientSecret), "the client secret is not shown");
  const { code } = await approveSignIn(pending.url);
  await pending.exchangeCode(code!);
  assert.equal(pending.ended, "done");
  pending.cancel("too late");
  assert.equal(pending.ended, "done", "a done attempt stays done");
  await assert.rejects(pending.exchangeCode(code!), { code: ERROR_CODES.SIGN_IN_ENDED });
  await assert.rejects(pending.waitForBrowser(), { code: ERROR_CODES.SIGN_IN_ENDED });

  const cancelled = await startSignInWith({ scopes: SCOPES, env, useLocalWebserver: false });
  cancelled.cancel("replaced by a test");
  cancelled.cancel("a second reason");
  assert.equal(cancelled.ended, "cancelled");
  await assert.rejects(
    cancelled.exchangeCode("4/0Ax"),
    (e: Error) => e instanceof CredCancelledError && e.message === "replaced by a test",
  );
});

test("loopback: the browser's code and a pasted address both in flight; the first exchange wins, the other is told it ended", async (t) => {
  const ports = await freePortRange(10);
  const pending = await startSignInWith({ scopes: SCOPES, env, ports });
  const { url } = await approveSignIn(pending.url, { followRedirect: false });
  const other = new URL((await approveSignIn(pending.url, { followRedirect: false })).url); // a second approval
  emulator.setTokenDelay(300); // both exchanges are under way before either is answered
  t.after(() => emulator.setTokenDelay(0));
  const exchanges = () => emulator.stats().byGrant.authorization_code ?? 0;
  const before = exchanges();
  const browser = pending.waitForBrowser();
  const page = rawRequest(ports.first, other.pathname + other.search);
  while (exchanges() === before) await new Promise((resolve) => setTimeout(resolve, 5));
  const pasted = pending.exchangeCode(url);
  await browser;
  await assert.rejects(pasted, { code: ERROR_CODES.SIGN_IN_ENDED });
  assert.equal(pending.ended, "done");
  assert.equal((await page).status, 200, "the browser that won gets the success page");
});
