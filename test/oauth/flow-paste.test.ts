// The loopback flow with the browser's final address pasted back (a browser on another
// machine), refused pastes, and one sign-in per process: against the emulator, real ports.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CredCancelledError, CredCredentialsError, ERROR_CODES } from "cred-auth";
import type { Presenter, SignInEvent } from "cred-auth";
import { approveSignIn } from "cred-auth/emulator";
import type { Emulator } from "cred-auth/emulator";
import { MAX_PASTE_ATTEMPTS, SignInPendingError, cancelSignIn } from "../../dist/oauth/flow.js";
import { completePendingSignIn, getPendingSignIn } from "../../dist/oauth/pending.js";
import { withEmulator } from "../support/emulator.ts";
import { freePortRange, rawRequest, signInWith } from "./support.ts";

const SCOPES = ["https://www.googleapis.com/auth/cloud-platform", "openid", "email"];
const emulator: Emulator = await withEmulator();
const env: NodeJS.ProcessEnv = { CRED_AUTH_EMULATOR_HOST: emulator.host, BROWSER: "none" };

/** A presenter recording events; `pastes` are handed to readCode in order (a function: computed on demand). */
function face(pastes?: Array<() => Promise<string>>) {
  const events: SignInEvent[] = [];
  let urlSeen!: (url: string) => void;
  const url = new Promise<string>((resolve) => (urlSeen = resolve));
  let closed = 0;
  const presenter: Presenter = {
    update(event) {
      events.push(event);
      if (event.type === "url") urlSeen(event.url);
    },
    close() {
      closed++;
    },
  };
  if (pastes) {
    presenter.readCode = (signal) => {
      const next = pastes.shift();
      if (next) return next();
      return new Promise((_, reject) => signal.addEventListener("abort", () => reject(new CredCancelledError("x"))));
    };
  }
  return { presenter, events, url, types: () => events.map((e) => e.type), closed: () => closed };
}

/** The address a browser on another machine ends on: the redirect to a loopback it cannot reach. */
async function finalAddress(url: Promise<string>, account = "alice@example.com"): Promise<string> {
  const page = await approveSignIn(await url, { account, followRedirect: false });
  assert.match(page.url, /^http:\/\/localhost:\d+\/\?/);
  return page.url;
}

const portOf = (authUrl: string): number =>
  Number(new URL(new URL(authUrl).searchParams.get("redirect_uri") ?? "").port);

test("loopback: the browser's final address pasted back completes the sign-in; the receiver closes", async () => {
  const ports = await freePortRange(10);
  const f = face([() => finalAddress(f.url)]);
  const codes = emulator.stats().byGrant.authorization_code ?? 0;
  const result = await signInWith({ scopes: SCOPES, env, ports, presenter: f.presenter, openBrowser: false });
  assert.equal(result.account, "alice@example.com");
  assert.deepEqual(f.types(), ["url", "waiting", "signed-in"]);
  assert.deepEqual(f.events[1], { type: "waiting", paste: true }, "the face is told it may offer the paste");
  assert.equal((emulator.stats().byGrant.authorization_code ?? 0) - codes, 1, "one exchange");
  await assert.rejects(rawRequest(portOf(await f.url), "/"), /ECONNREFUSED/, "the listener lost and is closed");
});

test("the listener wins when the browser comes back first; the paste prompt is ended", async () => {
  const ports = await freePortRange(10);
  let promptAborted = false;
  const f = face();
  f.presenter.readCode = (signal) =>
    new Promise((_, reject) =>
      signal.addEventListener("abort", () => {
        promptAborted = true;
        reject(new CredCancelledError("x"));
      }),
    );
  const browser = f.url.then((url) => approveSignIn(url));
  const result = await signInWith({ scopes: SCOPES, env, ports, presenter: f.presenter, openBrowser: false });
  assert.equal((await browser).status, 200);
  assert.ok(emulator.checkAccessToken(result.accessToken));
  assert.equal(promptAborted, true);
  assert.deepEqual(f.types(), ["url", "waiting", "signed-in"]);
});

test("another sign-in's address (wrong state) and a wrong code are refused; the sign-in stays pending", async () => {
  const ports = await freePortRange(10);
  const other = face([() => finalAddress(other.url)]);
  // An address from an earlier, finished sign-in of the same client.
  const otherAddress = new Promise<string>((resolve) => {
    other.presenter.readCode = async () => {
      const address = await finalAddress(other.url);
      resolve(address);
      return address;
    };
  });
  await signInWith({ scopes: SCOPES, env, ports, presenter: other.presenter, openBrowser: false });

  const f = face([
    () => otherAddress,
    async () => {
      const mine = new URL(await finalAddress(f.url));
      mine.searchParams.set("code", "4/0AWrongCode_x-y");
      return mine.href;
    },
    () => finalAddress(f.url, "bob@example.com"),
  ]);
  const result = await signInWith({ scopes: SCOPES, env, ports, presenter: f.presenter, openBrowser: false });
  assert.equal(result.account, "bob@example.com");
  assert.deepEqual(f.types(), ["url", "waiting", "waiting", "waiting", "signed-in"]);
  const [, , stateRefused, codeRefused] = f.events as Array<Extract<SignInEvent, { type: "waiting" }>>;
  assert.match(stateRefused!.rejected!.message, /another sign-in/);
  assert.match(codeRefused!.rejected!.message, /invalid_grant: the sign-in code was already used or has expired/);
  assert.ok(!codeRefused!.rejected!.message.includes("4/0AWrongCode"), "the code is not quoted");
});

test("Deny on another machine: the pasted address carries access_denied, and the sign-in ends (no second prompt)", async () => {
  const ports = await freePortRange(10);
  const denied = async () => (await approveSignIn(await f.url, { decision: "deny", followRedirect: false })).url;
  const f = face([denied, async () => "never asked"]);
  await assert.rejects(
    signInWith({ scopes: SCOPES, env, ports, presenter: f.presenter, openBrowser: false }),
    (error: Error) => error instanceof CredCredentialsError && error.code === ERROR_CODES.ACCESS_DENIED,
  );
  assert.deepEqual(f.types(), ["url", "waiting", "failed"], "no refusal asking again: the sign-in ended");
  await assert.rejects(rawRequest(portOf(await f.url), "/"), /ECONNREFUSED/);
});

test(`after ${MAX_PASTE_ATTEMPTS} refused pastes the sign-in fails, and its port closes`, async () => {
  const ports = await freePortRange(10);
  const wrong = async () => "4/0AWrongCode_again";
  const f = face([wrong, wrong, wrong, wrong]);
  await assert.rejects(
    signInWith({ scopes: SCOPES, env, ports, presenter: f.presenter, openBrowser: false }),
    (error: Error) => error instanceof CredCredentialsError && /already used or has expired/.test(error.message),
  );
  assert.deepEqual(f.types(), ["url", "waiting", "waiting", "waiting", "failed"]);
  await assert.rejects(rawRequest(portOf(await f.url), "/"), /ECONNREFUSED/);
});

test("a face that cannot read (a notebook cell) with pasteBack: SignInPendingError, then the address completes it", async () => {
  const ports = await freePortRange(10);
  const f = face();
  let pending: SignInPendingError | undefined;
  let saved = 0;
  await assert.rejects(
    signInWith({
      scopes: SCOPES,
      env,
      ports,
      presenter: f.presenter,
      openBrowser: false,
      pasteBack: true,
      complete: async () => {
        saved++;
        return "/tmp/where.json";
      },
    }),
    (error: Error) => {
      assert.ok(error instanceof SignInPendingError);
      pending = error;
      return true;
    },
  );
  assert.equal(
    pending!.stack,
    `SignInPendingError [ERR_SIGN_IN_PENDING]: ${pending!.message}`,
    "no stack frames for a kernel to print",
  );
  assert.match(pending!.message, /completeSignIn\("<the address>"\)/);
  assert.deepEqual(f.types(), ["url", "waiting"]);
  assert.deepEqual(f.events[1], { type: "waiting", paste: true });
  const address = await finalAddress(f.url);
  await assert.rejects(completePendingSignIn("4/0ANotTheCode"), /already used or has expired/);
  assert.equal(getPendingSignIn(), pending!.pending, "still pending after a wrong code");
  const { result, savedTo } = await completePendingSignIn(address);
  assert.equal(result.account, "alice@example.com");
  assert.equal(savedTo, "/tmp/where.json");
  assert.equal(saved, 1);
  assert.deepEqual(f.events.at(-1), { type: "signed-in", account: "alice@example.com", savedTo: "/tmp/where.json" });
  await assert.rejects(rawRequest(portOf(await f.url), "/"), /ECONNREFUSED/);
  assert.equal(getPendingSignIn(), undefined);
});

test("a new sign-in cancels the pending one: port closed, its face told, nothing saved; its address is refused", async () => {
  const ports = await freePortRange(10);
  const first = face();
  let saved = 0;
  const options = {
    scopes: SCOPES,
    env,
    ports,
    openBrowser: false,
    pasteBack: true,
    complete: async () => void saved++,
  };
  await assert.rejects(signInWith({ ...options, presenter: first.presenter }), SignInPendingError);
  const oldAddress = await finalAddress(first.url);
  const second = face();
  await assert.rejects(signInWith({ ...options, presenter: second.presenter }), SignInPendingError);
  // Told at once (the same tick), not after a timeout.
  const told = first.events.at(-1) as Extract<SignInEvent, { type: "failed" }>;
  assert.equal(told.type, "failed");
  assert.ok(told.error instanceof CredCancelledError);
  assert.match(told.error.message, /newer sign-in replaced/);
  assert.equal(first.closed(), 1);
  await assert.rejects(rawRequest(portOf(await first.url), "/"), /ECONNREFUSED/);
  await assert.rejects(completePendingSignIn(oldAddress), /A newer sign-in replaced the one this address is from/);
  assert.equal(saved, 0);
  const { result } = await completePendingSignIn(await finalAddress(second.url));
  assert.ok(emulator.checkAccessToken(result.accessToken));
  assert.equal(saved, 1);
});

test("cancelSignIn() (the interrupt hook) ends a waiting sign-in: CredCancelledError, port closed, nothing saved", async () => {
  const ports = await freePortRange(10);
  const f = face([]);
  let saved = 0;
  const running = signInWith({
    scopes: SCOPES,
    env,
    ports,
    presenter: f.presenter,
    openBrowser: false,
    complete: async () => void saved++,
  });
  await f.url;
  while (f.types().length < 2) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(cancelSignIn(), true);
  await assert.rejects(running, CredCancelledError);
  assert.deepEqual(f.types(), ["url", "waiting", "failed"]);
  assert.equal(f.closed(), 1);
  assert.equal(saved, 0);
  await assert.rejects(rawRequest(portOf(await f.url), "/"), /ECONNREFUSED/);
  assert.equal(cancelSignIn(), false, "nothing left to cancel");
});

test("copy-paste: a code that is not accepted is said so and asked for again; the next one works", async () => {
  const f = face([
    async () => "4/0AWrongCode_first",
    async () => (await approveSignIn(await f.url, { account: "carol@example.com" })).code ?? "",
  ]);
  const result = await signInWith({
    scopes: SCOPES,
    env,
    useLocalWebserver: false,
    presenter: f.presenter,
    openBrowser: false,
  });
  assert.equal(result.account, "carol@example.com");
  assert.deepEqual(f.types(), ["url", "code-needed", "code-needed", "signed-in"]);
  const asked = f.events[2] as Extract<SignInEvent, { type: "code-needed" }>;
  assert.match(asked.rejected?.message ?? "", /invalid_grant: the sign-in code was already used or has expired/);
});
