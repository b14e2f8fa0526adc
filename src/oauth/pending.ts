// The copy-paste sign-in waiting for its code in this process (a notebook's first cell
// started it, the second cell brings the code). One at a time: a new one replaces the old.
import { CredCredentialsError } from "../errors.js";
import type { SignInResult } from "./exchange.js";
import type { PendingSignIn } from "./flow.js";

let waiting: PendingSignIn | undefined;

/** Remembers `pending` as the sign-in waiting for a code, abandoning an older one. */
export function setPendingSignIn(pending: PendingSignIn): void {
  if (waiting && waiting !== pending) waiting.cancel();
  waiting = pending;
}

/** The sign-in waiting for a code, if any. */
export function getPendingSignIn(): PendingSignIn | undefined {
  return waiting;
}

/** Forgets (and cancels) the sign-in waiting for a code. */
export function clearPendingSignIn(): void {
  waiting?.cancel();
  waiting = undefined;
}

/**
 * Completes the waiting sign-in with a pasted code or redirect URL. On success the sign-in
 * is forgotten; a rejected code leaves it waiting so the right one can still be pasted.
 */
export async function completePendingSignIn(codeOrUrl: string): Promise<SignInResult> {
  const pending = waiting;
  if (!pending) {
    throw new CredCredentialsError("No sign-in is waiting for a code in this process; call again without a code to start one.");
  }
  const result = await pending.exchangeCode(codeOrUrl);
  if (waiting === pending) waiting = undefined;
  return result;
}
