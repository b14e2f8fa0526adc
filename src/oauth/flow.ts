/**
 * The OAuth 2.0 installed-app sign-in, in two phases so terminals and notebooks can share it:
 * {@link startSignIn} prepares (port, client, PKCE, URL) and {@link signIn} drives a
 * presenter through it. No screen here: everything the user sees goes through a Presenter.
 */
import { CredCancelledError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import type { Presenter } from "./events.js";
import { browserExpected, openBrowser as launchBrowser } from "./browser.js";
import { resolveClient } from "./client.js";
import { resolveEndpoints, type Endpoints } from "../google/endpoints.js";
import { exchangeCode, type SignInResult } from "./exchange.js";
import {
  DEFAULT_TIMEOUT_MS,
  startLoopbackReceiver,
  type LoopbackCallback,
  type LoopbackReceiver,
  type PortRange,
} from "./loopback.js";
import { loopbackTarget, signInMode } from "./mode.js";
import type { OAuthSignInOptions } from "./options.js";
import { parsePastedCode, pasteRedirectUri } from "./paste.js";
import {
  type PendingSignIn,
  SignInPendingError,
  beginSignIn,
  endSignIn,
  getPendingSignIn,
  setPendingSignIn,
} from "./pending.js";
import { buildAuthorizationUrl, createPkce, createState } from "./pkce.js";
import { MESSAGES } from "../messages.js";

export type { SignInResult } from "./exchange.js";
// Defined beside the pending sign-in, so the package and default() need not load this module.
export { SignInPendingError, cancelSignIn } from "./pending.js";
export type { PendingSignIn } from "./pending.js";

/** The sign-in options shared with the public functions (see {@link OAuthSignInOptions}). */
type SharedSignInOptions = Pick<
  OAuthSignInOptions,
  | "clientId"
  | "clientSecret"
  | "useLocalWebserver"
  | "authLocalWebserver"
  | "redirectUri"
  | "loginHint"
  | "timeoutMs"
  | "signal"
>;

/** What a sign-in needs. */
export interface StartSignInOptions extends SharedSignInOptions {
  scopes: readonly string[];
  /** Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Default: from `env` (`CRED_AUTH_EMULATOR_HOST`). */
  endpoints?: Endpoints;
  /** Loopback ports to try (tests); default `CRED_AUTH_LOOPBACK_PORTS` or 8080-8089. */
  ports?: PortRange;
  /** The flow, when the caller already decided it (credentials/user.ts); default `signInMode(options)`. */
  mode?: "loopback" | "paste";
}

/**
 * Prepares a sign-in: resolves the client, binds the loopback port (all ten busy:
 * CredConnectionError, before any URL exists), creates `state` and PKCE, builds the URL.
 */
export async function startSignIn(options: StartSignInOptions): Promise<PendingSignIn> {
  if (options.signal?.aborted) throw new CredCancelledError(MESSAGES.signInCancelled);
  const env = options.env ?? process.env;
  const endpoints = options.endpoints ?? resolveEndpoints(env);
  const mode = options.mode ?? signInMode(options);
  const client = resolveClient(
    { clientId: options.clientId, clientSecret: options.clientSecret, mode, redirectUri: options.redirectUri },
    env,
    endpoints,
  );
  const state = createState();
  const pkce = createPkce();
  const scopes = [...options.scopes];

  let receiver: LoopbackReceiver | undefined;
  let redirectUri: string;
  if (mode === "loopback") {
    const target = options.redirectUri ? loopbackTarget(options.redirectUri) : undefined;
    receiver = await startLoopbackReceiver({
      state,
      ports: target?.ports ?? options.ports,
      host: target?.host,
      path: target?.path,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      env,
    });
    redirectUri = receiver.redirectUri;
  } else {
    redirectUri = pasteRedirectUri(options.redirectUri, endpoints, env);
  }

  const url = buildAuthorizationUrl({
    endpoints,
    clientId: client.clientId,
    redirectUri,
    scopes,
    state,
    codeChallenge: pkce.codeChallenge,
    loginHint: options.loginHint,
  });
  const exchange = (code: string): Promise<SignInResult> =>
    exchangeCode({
      endpoints,
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      code,
      codeVerifier: pkce.codeVerifier,
      redirectUri,
      requestedScopes: scopes,
    });

  let ended: "done" | "cancelled" | undefined;
  let cancelReason: string | undefined;
  const ensureOpen = (): void => {
    if (ended === "done")
      throw new CredCredentialsError("This sign-in is already complete; start a new one.", {
        code: ERROR_CODES.SIGN_IN_ENDED,
      });
    if (ended === "cancelled") throw new CredCancelledError(cancelReason ?? MESSAGES.signInCancelled);
  };

  return {
    url,
    mode,
    redirectUri,
    scopes,
    get ended() {
      return ended;
    },
    async waitForBrowser() {
      ensureOpen();
      if (!receiver)
        throw new CredCredentialsError(
          "This is a copy-paste sign-in: no browser comes back to this program; complete it with the code.",
          { code: ERROR_CODES.SIGN_IN_ENDED },
        );
      let callback: LoopbackCallback;
      try {
        callback = await receiver.callback;
      } catch (error) {
        // Closed because the sign-in was cancelled (or replaced): say why, not just "cancelled".
        if (error instanceof CredCancelledError && cancelReason) throw new CredCancelledError(cancelReason);
        throw error;
      }
      try {
        const result = await exchange(callback.code);
        if (ended === "done")
          throw new CredCredentialsError("This sign-in was completed by a pasted address.", {
            code: ERROR_CODES.SIGN_IN_ENDED,
          });
        ended = "done";
        callback.finish({ ok: true });
        return result;
      } catch (error) {
        if (!ended) ended = "cancelled";
        callback.finish({ ok: false, message: "The sign-in could not be completed; see the program's message." });
        throw error;
      }
    },
    async exchangeCode(codeOrUrl) {
      ensureOpen();
      const result = await exchange(parsePastedCode(codeOrUrl, state));
      ensureOpen(); // the browser came back first, or the sign-in was cancelled meanwhile
      ended = "done";
      receiver?.close();
      return result;
    },
    owns(pasted) {
      return stateOf(pasted) === state;
    },
    cancel(reason) {
      if (!ended) {
        ended = "cancelled";
        cancelReason = reason;
      }
      receiver?.close();
    },
  };
}

/** The `state` of a pasted redirect address or query string, if it has one. */
function stateOf(pasted: string): string | undefined {
  const text = pasted.trim();
  try {
    const query = /^https?:\/\//i.test(text)
      ? new URL(text).searchParams
      : new URLSearchParams(text.replace(/^\?/, ""));
    return query.get("state") ?? undefined;
  } catch {
    return undefined;
  }
}

/** What {@link signIn} needs beyond {@link StartSignInOptions}. */
export interface SignInOptions extends StartSignInOptions {
  presenter: Presenter;
  /** Launch a browser? Default: when one can be expected here ({@link browserExpected}). */
  openBrowser?: boolean;
  /**
   * The browser is probably on another machine, so in the loopback flow its redirect may never
   * arrive and the user pastes the browser's final address instead. A presenter that cannot
   * read (a notebook cell) then ends the call with {@link SignInPendingError} while the receiver
   * keeps listening: whichever comes first, the redirect or `completeSignIn(address)`, wins.
   * `false`: the browser is here, no paste is offered. Default: offered by a face that can read.
   */
  pasteBack?: boolean;
  /**
   * Runs once the tokens arrived, before "signed-in" is reported (the caller saves here);
   * returns the path saved to, if any. Its errors fail the sign-in.
   */
  complete?: (result: SignInResult) => Promise<string | undefined>;
}

/** How many pasted codes or addresses a face may offer before the sign-in fails. */
export const MAX_PASTE_ATTEMPTS = 3;

/**
 * Runs a whole sign-in through a presenter: URL (and browser) → waiting / code-needed →
 * exchange → signed-in or failed. In the loopback flow a presenter that can read takes the
 * browser's final address pasted back while the receiver waits: the first to arrive wins.
 * A refused paste is reported and asked again (up to {@link MAX_PASTE_ATTEMPTS}). A sign-in
 * started later in this process, or `cancelSignIn()`, cancels this one. The presenter is
 * closed at the end, except when a {@link SignInPendingError} leaves the sign-in waiting.
 */
export async function signIn(options: SignInOptions): Promise<SignInResult> {
  const { presenter } = options;
  const env = options.env ?? process.env;
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(new CredCancelledError(MESSAGES.signInCancelled));
  options.signal?.addEventListener("abort", onAbort, { once: true });
  let pending: PendingSignIn | undefined;
  let keepPresenter = false;
  try {
    pending = await startSignIn(options);
    const started = pending;
    beginSignIn(started, (reason) => {
      started.cancel(reason.message);
      stop.abort(reason);
    });
    const browserOpened = (options.openBrowser ?? browserExpected(env)) ? await launchBrowser(pending.url, env) : false;
    presenter.update({ type: "url", url: pending.url, mode: pending.mode, scopes: pending.scopes, browserOpened });
    let result: SignInResult;
    if (pending.mode === "loopback") {
      // Offered where the browser is known to be elsewhere, or (no verdict) wherever the face can read.
      const paste = options.pasteBack ?? presenter.readCode !== undefined;
      presenter.update({ type: "waiting", paste });
      if (!presenter.readCode && options.pasteBack) {
        leavePending(pending, presenter, options.complete);
        keepPresenter = true;
        throw new SignInPendingError(pending);
      }
      result = paste ? await firstOf(pending, presenter, stop.signal) : await pending.waitForBrowser();
    } else {
      presenter.update({ type: "code-needed" });
      if (!presenter.readCode) {
        setPendingSignIn(pending, options.complete, presenter);
        keepPresenter = true;
        throw new SignInPendingError(pending);
      }
      result = await within(
        readPastes(pending, presenter, stop.signal, "code-needed"),
        options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        stop.signal,
      );
    }
    endSignIn(pending);
    const savedTo = await options.complete?.(result);
    presenter.update({ type: "signed-in", account: result.account, savedTo: savedTo || undefined });
    return result;
  } catch (error) {
    if (error instanceof SignInPendingError) throw error;
    if (pending) endSignIn(pending);
    pending?.cancel();
    presenter.update({ type: "failed", error: error instanceof Error ? error : new Error(String(error)) });
    throw error;
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    if (!keepPresenter) {
      stop.abort();
      await presenter.close?.();
    }
  }
}

/**
 * Loopback: the browser's redirect, or the address pasted into a presenter that can read,
 * whichever comes first; the other is then ignored (the receiver closes, the prompt ends).
 */
async function firstOf(pending: PendingSignIn, presenter: Presenter, signal: AbortSignal): Promise<SignInResult> {
  if (!presenter.readCode) return pending.waitForBrowser();
  const pastes = new AbortController();
  const stopPastes = (): void => pastes.abort(signal.reason);
  signal.addEventListener("abort", stopPastes, { once: true });
  const pasted = readPastes(pending, presenter, pastes.signal, "waiting");
  pasted.catch(() => {}); // the loser's outcome is of no interest
  // A paste that wins closes the receiver, which rejects the wait: that is no failure.
  const browser = pending.waitForBrowser().catch((error: unknown) => {
    if (pending.ended === "done") return pasted;
    throw error;
  });
  try {
    return await Promise.race([browser, pasted]);
  } finally {
    signal.removeEventListener("abort", stopPastes);
    pastes.abort();
  }
}

/**
 * Reads pasted codes or addresses until one is accepted. A refused one (wrong, used, expired,
 * another sign-in's) is reported through the presenter, and asked for again.
 */
async function readPastes(
  pending: PendingSignIn,
  presenter: Presenter,
  signal: AbortSignal,
  asking: "waiting" | "code-needed",
): Promise<SignInResult> {
  if (!presenter.readCode)
    throw new CredCredentialsError("This display cannot read a pasted code.", {
      code: ERROR_CODES.PRESENTER_UNAVAILABLE,
    });
  const readCode = presenter.readCode.bind(presenter);
  for (let attempt = 1; ; attempt++) {
    const text = await readCode(signal);
    if (signal.aborted) throw signal.reason ?? new CredCancelledError(MESSAGES.signInCancelled);
    try {
      return await pending.exchangeCode(text);
    } catch (error) {
      if (!isRefusedPaste(error, pending) || attempt >= MAX_PASTE_ATTEMPTS) throw error;
      const rejected = error as Error;
      presenter.update(
        asking === "waiting" ? { type: "waiting", paste: true, rejected } : { type: "code-needed", rejected },
      );
    }
  }
}

/** A paste that failed but left the sign-in open: the user may paste again. */
function isRefusedPaste(error: unknown, pending: PendingSignIn): boolean {
  return (
    !pending.ended &&
    error instanceof CredCredentialsError &&
    !(error instanceof SignInPendingError) &&
    !(error instanceof CredCancelledError)
  );
}

/**
 * A loopback sign-in whose face cannot read (a notebook cell): it waits for
 * `completeSignIn(address)` while the receiver keeps listening. A browser that does come back
 * completes it here, and the face is told.
 */
function leavePending(pending: PendingSignIn, presenter: Presenter, complete: SignInOptions["complete"]): void {
  setPendingSignIn(pending, complete, presenter);
  pending.waitForBrowser().then(
    async (result) => {
      endSignIn(pending);
      try {
        const savedTo = await complete?.(result);
        presenter.update({ type: "signed-in", account: result.account, savedTo: savedTo || undefined });
      } catch (error) {
        presenter.update({ type: "failed", error: error as Error });
      }
      await presenter.close?.();
    },
    async (error: unknown) => {
      // Completed by a paste, or cancelled by someone who told the presenter: nothing to add.
      if (pending.ended === "done" || getPendingSignIn() !== pending) return;
      endSignIn(pending);
      presenter.update({ type: "failed", error: error instanceof Error ? error : new Error(String(error)) });
      await presenter.close?.();
    },
  );
}

/** `work`, or a timeout (CredCredentialsError) / abort (the signal's reason, a CredCancelledError). */
async function within<T>(work: Promise<T>, timeoutMs: number, signal: AbortSignal): Promise<T> {
  work.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new CredCredentialsError(
            `Timed out waiting for the authorization code after ${Math.round(timeoutMs / 1000)} s; run again.`,
            { code: ERROR_CODES.TIMEOUT },
          ),
        ),
      timeoutMs,
    );
    onAbort = () =>
      reject(signal.reason instanceof Error ? signal.reason : new CredCancelledError(MESSAGES.signInCancelled));
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([work, stopped]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}
