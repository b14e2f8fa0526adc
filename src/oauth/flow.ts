// The installed-app sign-in: startSignIn prepares it, signIn drives a presenter through it (no screen here).
import { CredCancelledError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { startSignIn } from "./attempt.js";
import { checkClient } from "./client-check.js";
import type { Presenter } from "./events.js";
import { openBrowser } from "../os/browser.js";
import type { SignInResult } from "./exchange.js";
import {
  type CompleteSignIn,
  type PendingSignIn,
  SignInPendingError,
  beginSignIn,
  endSignIn,
  endWaitingSignIn,
  getPendingSignIn,
  setPendingSignIn,
} from "./pending.js";
import type { FlowPlan } from "./plan.js";
import { MESSAGES } from "../messages.js";

export type { SignInResult } from "./exchange.js";
// Defined beside the pending sign-in, so the package and default() need not load this module.
export { SignInPendingError, cancelSignIn } from "./pending.js";
export type { PendingSignIn } from "./pending.js";
export type { FlowPlan } from "./plan.js";
export { startSignIn };

/** What a planned sign-in runs with: the face, the cancel signal, and what to do with the tokens. */
export interface SignInRun {
  presenter: Presenter;
  signal?: AbortSignal;
  /** Saves the tokens before "signed-in" is reported; returns the path saved to. Its errors fail the sign-in. */
  complete?: CompleteSignIn;
}

/** How many pasted codes or addresses a face may offer before the sign-in fails. */
export const MAX_PASTE_ATTEMPTS = 3;

/**
 * Runs a sign-in through a presenter: url → waiting | code-needed → signed-in | failed. Beside the
 * loopback wait a pasted address may win; a refused paste is asked again (up to {@link MAX_PASTE_ATTEMPTS}).
 */
export async function signIn(plan: FlowPlan, run: SignInRun): Promise<SignInResult> {
  const { presenter, signal, complete } = run;
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(new CredCancelledError(MESSAGES.signInCancelled));
  signal?.addEventListener("abort", onAbort, { once: true });
  let pending: PendingSignIn | undefined;
  let keepPresenter = false;
  try {
    pending = await startSignIn(plan, signal);
    const started = pending;
    beginSignIn(started, (reason) => {
      started.cancel(reason.message);
      stop.abort(reason);
    });
    // An unknown client or a dead emulator fails now, before the user is sent anywhere.
    if (plan.checkClient) await checkClient(plan, pending.redirectUri);
    const browserOpened = await openBrowser(pending.url, plan.browser);
    presenter.update({ type: "url", url: pending.url, mode: pending.mode, scopes: pending.scopes, browserOpened });
    const loopback = pending.mode === "loopback";
    // Loopback: a pasted address is offered where the browser is known elsewhere, or (no verdict) if the face can read.
    const paste = plan.pasteBack ?? presenter.readCode !== undefined;
    presenter.update(loopback ? { type: "waiting", paste } : { type: "code-needed" });
    // A face that cannot read what is pasted leaves the sign-in waiting for completeSignIn (or the browser).
    if (!presenter.readCode && (!loopback || plan.pasteBack)) {
      if (loopback) leavePending(pending, presenter, complete);
      else setPendingSignIn(pending, complete, presenter);
      keepPresenter = true;
      await presenter.drawn?.();
      throw new SignInPendingError(pending);
    }
    const result = !loopback
      ? await within(readPastes(pending, presenter, stop.signal, "code-needed"), plan.timeoutMs, stop.signal)
      : paste
        ? await firstOf(pending, presenter, stop.signal)
        : await pending.waitForBrowser();
    endSignIn(pending);
    const savedTo = await complete?.(result);
    presenter.update({ type: "signed-in", account: result.account, savedTo: savedTo || undefined });
    return result;
  } catch (error) {
    if (error instanceof SignInPendingError) throw error;
    if (pending) endSignIn(pending);
    pending?.cancel();
    presenter.update({
      type: "failed",
      error: error instanceof Error ? error : new Error(String(error)),
      thrown: true,
    });
    throw error;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!keepPresenter) {
      stop.abort();
      await presenter.close?.();
    }
  }
}

/** Loopback: the browser's redirect or a pasted address, whichever comes first (the other is then ignored). */
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

/** Reads pasted codes or addresses until one is accepted; a refused one is reported, and asked for again. */
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

/** A paste that failed but left the sign-in open: the user may paste again (not after a Deny). */
function isRefusedPaste(error: unknown, pending: PendingSignIn): boolean {
  return (
    !pending.ended &&
    error instanceof CredCredentialsError &&
    error.code !== ERROR_CODES.ACCESS_DENIED &&
    !(error instanceof SignInPendingError) &&
    !(error instanceof CredCancelledError)
  );
}

/** A loopback sign-in left for `completeSignIn(address)`; a browser that does come back completes it here. */
function leavePending(pending: PendingSignIn, presenter: Presenter, complete: CompleteSignIn | undefined): void {
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
    (error: unknown) => {
      // Completed by a paste, or cancelled by someone who told the presenter: nothing to add.
      if (pending.ended === "done" || getPendingSignIn() !== pending) return;
      // Denied, timed out: the card, and the credentials the first cell returned, say so.
      endWaitingSignIn(pending, error instanceof Error ? error : new Error(String(error)));
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
