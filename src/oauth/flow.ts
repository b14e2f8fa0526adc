/**
 * The OAuth 2.0 installed-app sign-in, in two phases so terminals and notebooks can share it:
 * {@link startSignIn} prepares (port, client, PKCE, URL) and {@link signIn} drives a
 * presenter through it. No screen here: everything the user sees goes through a Presenter.
 */
import { CredCancelledError, CredCredentialsError } from "../errors.js";
import type { Presenter } from "./events.js";
import { browserExpected, openBrowser as launchBrowser } from "./browser.js";
import { resolveClient } from "./client.js";
import { resolveEndpoints, type Endpoints } from "../google/endpoints.js";
import { exchangeCode, type SignInResult } from "./exchange.js";
import { DEFAULT_TIMEOUT_MS, startLoopbackReceiver, type LoopbackReceiver, type PortRange } from "./loopback.js";
import { loopbackTarget, signInMode } from "./mode.js";
import type { OAuthSignInOptions } from "./options.js";
import { parsePastedCode, pasteRedirectUri } from "./paste.js";
import { type PendingSignIn, SignInPendingError, setPendingSignIn } from "./pending.js";
import { buildAuthorizationUrl, createPkce, createState } from "./pkce.js";

export type { SignInResult } from "./exchange.js";
// Defined beside the pending sign-in, so the package and default() need not load this module.
export { SignInPendingError } from "./pending.js";
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
}

/**
 * Prepares a sign-in: resolves the client, binds the loopback port (all ten busy:
 * CredConnectionError, before any URL exists), creates `state` and PKCE, builds the URL.
 */
export async function startSignIn(options: StartSignInOptions): Promise<PendingSignIn> {
  if (options.signal?.aborted) throw new CredCancelledError("The sign-in was cancelled.");
  const env = options.env ?? process.env;
  const endpoints = options.endpoints ?? resolveEndpoints(env);
  const mode = signInMode(options);
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
  const ensureOpen = (): void => {
    if (ended === "done") throw new CredCredentialsError("This sign-in is already complete; start a new one.");
    if (ended === "cancelled") throw new CredCancelledError("The sign-in was cancelled.");
  };

  return {
    url,
    mode,
    redirectUri,
    scopes,
    async waitForBrowser() {
      ensureOpen();
      if (!receiver)
        throw new CredCredentialsError(
          "This is a copy-paste sign-in: no browser comes back to this program; complete it with the code.",
        );
      const callback = await receiver.callback;
      try {
        const result = await exchange(callback.code);
        ended = "done";
        callback.finish({ ok: true });
        return result;
      } catch (error) {
        ended = "cancelled";
        callback.finish({ ok: false, message: "The sign-in could not be completed; see the program's message." });
        throw error;
      }
    },
    async exchangeCode(codeOrUrl) {
      ensureOpen();
      const result = await exchange(parsePastedCode(codeOrUrl, state));
      ended = "done";
      receiver?.close();
      return result;
    },
    cancel() {
      if (!ended) ended = "cancelled";
      receiver?.close();
    },
  };
}

/** What {@link signIn} needs beyond {@link StartSignInOptions}. */
export interface SignInOptions extends StartSignInOptions {
  presenter: Presenter;
  /** Launch a browser? Default: when one can be expected here ({@link browserExpected}). */
  openBrowser?: boolean;
  /**
   * Runs once the tokens arrived, before "signed-in" is reported (the caller saves here);
   * returns the path saved to, if any. Its errors fail the sign-in.
   */
  complete?: (result: SignInResult) => Promise<string | undefined>;
}

/**
 * Runs a whole sign-in through a presenter: URL (and browser) → waiting / code-needed →
 * exchange → signed-in or failed. The presenter is closed at the end, except when a
 * {@link SignInPendingError} leaves the copy-paste sign-in waiting for a code.
 */
export async function signIn(options: SignInOptions): Promise<SignInResult> {
  const { presenter } = options;
  const env = options.env ?? process.env;
  let pending: PendingSignIn | undefined;
  let keepPresenter = false;
  try {
    pending = await startSignIn(options);
    const browserOpened = (options.openBrowser ?? browserExpected(env)) ? await launchBrowser(pending.url, env) : false;
    presenter.update({ type: "url", url: pending.url, mode: pending.mode, scopes: pending.scopes, browserOpened });
    let result: SignInResult;
    if (pending.mode === "loopback") {
      presenter.update({ type: "waiting" });
      result = await pending.waitForBrowser();
    } else {
      presenter.update({ type: "code-needed" });
      if (!presenter.readCode) {
        setPendingSignIn(pending, options.complete);
        keepPresenter = true;
        throw new SignInPendingError(pending);
      }
      const code = await readCodeWithin(
        presenter.readCode.bind(presenter),
        options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        options.signal,
      );
      result = await pending.exchangeCode(code);
    }
    const savedTo = await options.complete?.(result);
    presenter.update({ type: "signed-in", account: result.account, savedTo: savedTo || undefined });
    return result;
  } catch (error) {
    if (error instanceof SignInPendingError) throw error;
    pending?.cancel();
    presenter.update({ type: "failed", error: error instanceof Error ? error : new Error(String(error)) });
    throw error;
  } finally {
    if (!keepPresenter) await presenter.close?.();
  }
}

/** The presenter's code, or a timeout (CredCredentialsError) / abort (CredCancelledError). */
async function readCodeWithin(
  readCode: (signal: AbortSignal) => Promise<string>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<string> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new CredCredentialsError(
            `Timed out waiting for the authorization code after ${Math.round(timeoutMs / 1000)} s; run again.`,
          ),
        ),
      timeoutMs,
    );
    onAbort = () => reject(new CredCancelledError("The sign-in was cancelled."));
    if (signal?.aborted) onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([readCode(controller.signal), stopped]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
    controller.abort();
  }
}
