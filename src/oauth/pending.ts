// The copy-paste sign-in waiting for its code in this process (a notebook's first cell
// started it, the second cell brings the code). One at a time: a new one replaces the old.
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import type { SignInResult } from "./exchange.js";

/** Runs once the code is exchanged: saves where the call that started the sign-in meant to. */
export type CompleteSignIn = (result: SignInResult) => Promise<string | undefined>;

/** A prepared sign-in: the URL to visit and the ways to complete it. */
export interface PendingSignIn {
  /** The authorization URL the user must open. */
  readonly url: string;
  /** `loopback`: the browser comes back by itself; `paste`: the user pastes the code. */
  readonly mode: "loopback" | "paste";
  /** Where the provider sends the browser back: the loopback receiver or the code page. */
  readonly redirectUri: string;
  /** The scopes requested. */
  readonly scopes: readonly string[];
  /**
   * Loopback only: waits for the browser's redirect, exchanges the code, answers the
   * browser's page. Rejects on `error=`, timeout ({@link CredCredentialsError}) and abort
   * (`CredCancelledError`).
   */
  waitForBrowser(): Promise<SignInResult>;
  /**
   * Completes the sign-in with a pasted code or redirect URL (works in both modes: in the
   * loopback mode it serves a browser that could not reach this machine). A failed exchange
   * can be retried with another code; a successful one ends the sign-in.
   */
  exchangeCode(codeOrUrl: string): Promise<SignInResult>;
  /** Abandons the sign-in and closes its loopback server. Idempotent. */
  cancel(): void;
}

let waiting: PendingSignIn | undefined;
let completion: CompleteSignIn | undefined;

/**
 * Remembers `pending` as the sign-in waiting for a code, abandoning an older one. `complete`
 * is what the starting call does with the result (write its file, fill its cache), so that
 * whichever call brings the code, the credentials land where the first call asked.
 */
export function setPendingSignIn(pending: PendingSignIn, complete?: CompleteSignIn): void {
  if (waiting && waiting !== pending) waiting.cancel();
  waiting = pending;
  completion = complete;
}

/** The sign-in waiting for a code, if any. */
export function getPendingSignIn(): PendingSignIn | undefined {
  return waiting;
}

/** Forgets (and cancels) the sign-in waiting for a code. */
export function clearPendingSignIn(): void {
  waiting?.cancel();
  waiting = undefined;
  completion = undefined;
}

/**
 * Completes the waiting sign-in with a pasted code or redirect URL, then runs the starting
 * call's completion (returning where it saved). On success the sign-in is forgotten; a
 * rejected code leaves it waiting so the right one can still be pasted.
 */
export async function completePendingSignIn(codeOrUrl: string): Promise<{ result: SignInResult; savedTo?: string }> {
  const pending = waiting;
  const complete = completion;
  if (!pending) {
    throw new CredCredentialsError(
      "No sign-in is waiting for a code in this process; call again without a code to start one.",
    );
  }
  const result = await pending.exchangeCode(codeOrUrl);
  if (waiting === pending) {
    waiting = undefined;
    completion = undefined;
  }
  const savedTo = (await complete?.(result)) || undefined;
  return { result, ...(savedTo ? { savedTo } : {}) };
}

/**
 * Thrown by `getUserCredentials`, `saveUserCredentials` and `default()` in the copy-paste flow
 * when the face cannot read a code (a notebook cell has no stdin). The sign-in stays pending in
 * this process: complete it with `completeSignIn(code)`, or by calling again with `{ code }`.
 * (Internally: `completePendingSignIn(code)` above.)
 */
export class SignInPendingError extends CredCredentialsError {
  override name = "SignInPendingError";
  /** The sign-in waiting for its code: `pending.url` is the link to open. */
  declare readonly pending: PendingSignIn;
  /** @param pending The sign-in waiting for its code. */
  constructor(pending: PendingSignIn) {
    super(
      'Sign-in needs the authorization code: open the link shown, sign in, then run completeSignIn("<the code>") (or call again with { code }).',
      { code: ERROR_CODES.SIGN_IN_PENDING },
    );
    // Not enumerable: kernels print an error's own enumerable fields under its message.
    Object.defineProperty(this, "pending", { value: pending, enumerable: false });
  }
}
