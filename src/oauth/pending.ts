// The sign-in in progress in this process, one at a time: a new one cancels the one before, and one
// left waiting for a pasted code (a notebook's first cell) stays here until the second cell brings it.
import { CredCancelledError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { MESSAGES } from "../messages.js";
import { codeOf } from "../util/thrown.js";
import type { Presenter } from "./events.js";
import type { SignInResult } from "./exchange.js";

/** Runs once the code is exchanged: saves where the call that started the sign-in meant to. */
export type CompleteSignIn = (result: SignInResult) => Promise<string | undefined>;

/** A prepared sign-in: the URL to visit and the ways to complete it. */
export interface PendingSignIn {
  /** The authorization URL the user must open. */
  readonly url: string;
  /** `loopback`: the browser comes back by itself (or its address is pasted); `paste`: the user pastes the code. */
  readonly mode: "loopback" | "paste";
  /** Where the provider sends the browser back: the loopback receiver or the code page. */
  readonly redirectUri: string;
  /** The scopes requested. */
  readonly scopes: readonly string[];
  /** `done` once the tokens arrived, `cancelled` once abandoned; undefined while open. */
  readonly ended: "done" | "cancelled" | undefined;
  /** Loopback only: the browser's redirect, its code exchanged; rejects on `error=`, timeout and abort. */
  waitForBrowser(): Promise<SignInResult>;
  /** Completes the sign-in with a pasted code or redirect address; a refused one may be followed by another. */
  exchangeCode(codeOrUrl: string): Promise<SignInResult>;
  /** Whether pasted text carries this sign-in's `state` (a redirect address of this very sign-in). */
  owns(pasted: string): boolean;
  /** Abandons the sign-in and closes its loopback server. Idempotent. */
  cancel(reason?: string): void;
}

/** Ends a sign-in's waits (closes its port) with this error. */
type Stop = (reason: Error) => void;

/** None (`idle`), one a call drives (`running`), or one left for a later call (`waiting`), with its saver and face. */
type Slot =
  | { name: "idle" }
  | { name: "running"; pending: PendingSignIn; stop: Stop }
  | { name: "waiting"; pending: PendingSignIn; stop: Stop; complete?: CompleteSignIn; presenter?: Presenter };

let slot: Slot = { name: "idle" };
/** Sign-ins replaced by a newer one, newest last, so their leftovers can be recognised. */
const replaced: PendingSignIn[] = [];
const REMEMBERED = 5;
/** Why each sign-in that ended early ended (replaced, cancelled, denied): its credentials say so. */
const endings = new WeakMap<PendingSignIn, Error>();

type Held = Exclude<Slot, { name: "idle" }>;

function holding(pending: PendingSignIn): Held | undefined {
  return slot.name !== "idle" && slot.pending === pending ? slot : undefined;
}

/** Registers `pending` as the sign-in in progress, cancelling the one before; `stop` ends its waits. */
export function beginSignIn(pending: PendingSignIn, stop?: Stop): Held {
  if (slot.name !== "idle" && slot.pending !== pending)
    retire(slot, new CredCancelledError(MESSAGES.signInReplaced), true);
  slot = { name: "running", pending, stop: stop ?? ((reason) => pending.cancel(reason.message)) };
  return slot;
}

/** Forgets `pending` if it is the one in progress (it ended, one way or another): back to `idle`. */
export function endSignIn(pending: PendingSignIn): void {
  if (holding(pending)) slot = { name: "idle" };
}

/** Leaves `pending` waiting for {@link completePendingSignIn}; `complete` saves where the first call meant to. */
export function setPendingSignIn(pending: PendingSignIn, complete?: CompleteSignIn, presenter?: Presenter): void {
  const { stop } = holding(pending) ?? beginSignIn(pending);
  slot = { name: "waiting", pending, stop, complete, presenter };
}

/** Whether a call is driving the sign-in in progress (it will throw how it ends), not one left waiting. */
export function signInRunning(): boolean {
  return slot.name === "running";
}

/** The sign-in waiting for a pasted code or address, if any. */
export function getPendingSignIn(): PendingSignIn | undefined {
  return slot.name === "waiting" ? slot.pending : undefined;
}

/**
 * Cancels the sign-in in progress in this process, if any: its port closes, nothing is written,
 * its presenter says so (a kernel interrupt's hook). @returns whether there was one.
 */
export function cancelSignIn(message: string = MESSAGES.signInCancelled): boolean {
  if (slot.name === "idle") return false;
  retire(slot, new CredCancelledError(message), false);
  return true;
}

/** The slot's sign-in ends with `reason` (replaced, cancelled, denied): the slot is idle again. */
function retire(held: Held, reason: Error, remember: boolean): void {
  endings.set(held.pending, reason);
  if (remember) {
    replaced.push(held.pending);
    if (replaced.length > REMEMBERED) replaced.shift();
  }
  slot = { name: "idle" };
  held.stop(reason);
  // A call still running reports the cancel itself; a waiting sign-in has nobody else to.
  if (held.name === "waiting" && held.presenter) {
    held.presenter.update({ type: "failed", error: reason });
    void held.presenter.close?.();
  }
}

/** Why `pending` ended before its tokens came (replaced, cancelled, denied), if it did. */
export function whyEnded(pending: PendingSignIn): Error | undefined {
  return endings.get(pending);
}

/** The waiting sign-in `pending` ended with `error` (the browser's refusal): its card and credentials say so. */
export function endWaitingSignIn(pending: PendingSignIn, error: Error): void {
  const held = holding(pending);
  if (held) retire(held, codeOf(error) === ERROR_CODES.ACCESS_DENIED ? deniedError() : error, false);
}

/** The words of a sign-in denied in the browser (Deny on the consent page), for a notebook. */
export function deniedError(): CredCredentialsError {
  return new CredCredentialsError(MESSAGES.signInDenied, {
    code: ERROR_CODES.ACCESS_DENIED,
    error: "access_denied",
  });
}

/** The placeholders the card and the notebooks write where the address or code goes. */
const PLACEHOLDER = /^PASTE-THE-(ADDRESS|CODE)-HERE$/i;

/** The placeholder itself pasted (Run All): said here, no request sent; the sign-in keeps waiting. */
function assertNotPlaceholder(pasted: string, mode: PendingSignIn["mode"] | undefined): void {
  if (!PLACEHOLDER.test(pasted.trim())) return;
  const what = mode === "paste" ? "the code the sign-in page showed" : "the address your browser ended on";
  throw new CredCredentialsError(
    `"${pasted.trim()}" is the placeholder: paste ${what} in its place, then run this cell again.`,
    { code: ERROR_CODES.INVALID_CODE },
  );
}

/** A paste that failed: a denial ends the sign-in; anything else leaves it waiting, and its card says so. */
function refusedPaste(waiting: Extract<Slot, { name: "waiting" }>, error: unknown): unknown {
  const { pending, presenter } = waiting;
  if (codeOf(error) === ERROR_CODES.ACCESS_DENIED) {
    endWaitingSignIn(pending, error as Error);
    return deniedError();
  }
  if (pending.ended || !(error instanceof Error)) return error;
  // The first cell's card says it, a network error included: the sign-in still waits.
  presenter?.update(
    pending.mode === "loopback"
      ? { type: "waiting", paste: true, rejected: error }
      : { type: "code-needed", rejected: error },
  );
  if (!(error instanceof CredCredentialsError)) return error;
  const reason = error.message.split("\n")[0];
  return new CredCredentialsError(`Not accepted; the sign-in is still waiting: paste again. (${reason})`, {
    code: error.code,
    cause: error,
  });
}

/** Completes the waiting sign-in with a pasted code or address, then saves; the placeholder and stale addresses go unsent. */
export async function completePendingSignIn(codeOrUrl: string): Promise<{ result: SignInResult; savedTo?: string }> {
  const waiting = slot.name === "waiting" ? slot : undefined;
  assertNotPlaceholder(codeOrUrl, waiting?.pending.mode);
  const fromReplaced = replaced.find((old) => old.owns(codeOrUrl));
  if (fromReplaced && !waiting?.pending.owns(codeOrUrl)) {
    throw new CredCredentialsError(
      "A newer sign-in replaced the one this address is from: open the newest link and paste what it gives.",
      { code: ERROR_CODES.STATE_MISMATCH },
    );
  }
  if (!waiting) {
    throw new CredCredentialsError(
      "No sign-in is waiting for a code in this process; call again without a code to start one.",
      { code: ERROR_CODES.NO_PENDING_SIGN_IN },
    );
  }
  let result: SignInResult;
  try {
    result = await waiting.pending.exchangeCode(codeOrUrl);
  } catch (error) {
    throw refusedPaste(waiting, error);
  }
  endSignIn(waiting.pending);
  const savedTo = (await waiting.complete?.(result)) || undefined;
  // The face that showed the link hears how it ended (the card in the first cell).
  if (waiting.presenter) {
    waiting.presenter.update({ type: "signed-in", account: result.account, savedTo });
    void waiting.presenter.close?.();
  }
  return { result, ...(savedTo ? { savedTo } : {}) };
}

/**
 * Thrown when the sign-in needs something pasted and the face cannot read it (a notebook cell): it
 * stays pending in this process for `completeSignIn(codeOrAddress)`, or a call again with `{ code }`.
 */
export class SignInPendingError extends CredCredentialsError {
  /** The sign-in waiting for its code: `pending.url` is the link to open. */
  declare readonly pending: PendingSignIn;
  /** @param pending The sign-in waiting for its code. */
  constructor(pending: PendingSignIn) {
    super(
      pending.mode === "loopback"
        ? 'Sign-in is waiting: open the link shown and sign in. If the browser then shows an error page at http://localhost:…, copy that page\'s whole address and run completeSignIn("<the address>").'
        : 'Sign-in needs the authorization code: open the link shown, sign in, then run completeSignIn("<the code>") (or call again with { code }).',
      { code: ERROR_CODES.SIGN_IN_PENDING },
    );
    // Not enumerable: kernels print an error's own enumerable fields under its message.
    Object.defineProperty(this, "pending", { value: pending, enumerable: false });
  }
}
