import { CredCancelledError, CredCredentialsError } from "../errors.js";
import { MESSAGES } from "../messages.js";
import type { SignInEvent } from "../oauth/events.js";
import { describeError, errorCodeOf } from "./words.js";

/** What a sign-in face shows now (the terminal and notebook faces share it). */
export type Phase = "preparing" | "waiting" | "code" | "checking" | "signed-in" | "failed";

export interface ViewState {
  phase: Phase;
  url?: string;
  mode?: "loopback" | "paste";
  scopes: readonly string[];
  browserOpened: boolean;
  account?: string;
  savedTo?: string;
  /** The failure in words with its code, as every face ends: `words (ERR_...)`. */
  error?: string;
  /** The failure's stable code (`ERR_...`), shown beside the words: what to look up. */
  errorCode?: string;
  /** The failure is thrown to the call that shows this face, which prints it (see the `failed` event). */
  thrown?: boolean;
  /** Loopback: the browser's final address may be pasted back (see the `waiting` event). */
  paste?: boolean;
  /** The paste just refused, in words with its code (see {@link refusalLine}); the face asks again. */
  rejected?: string;
}

export const INITIAL_STATE: ViewState = { phase: "preparing", scopes: [], browserOpened: false };

/** The state after `event`. A final state (signed in, failed) stays final. */
export function reduce(state: ViewState, event: SignInEvent): ViewState {
  if (isFinal(state)) return state;
  switch (event.type) {
    case "url":
      return { ...state, url: event.url, mode: event.mode, scopes: event.scopes, browserOpened: event.browserOpened };
    case "waiting":
      return { ...state, phase: "waiting", paste: event.paste, rejected: rejectedWords(event.rejected) };
    case "code-needed":
      return { ...state, phase: "code", rejected: rejectedWords(event.rejected) };
    case "signed-in":
      return { ...state, phase: "signed-in", account: event.account, savedTo: event.savedTo };
    case "failed": {
      const errorCode = errorCodeOf(event.error);
      const thrown = event.thrown ? { thrown: true } : {};
      return {
        ...state,
        phase: "failed",
        error: wordsWithCode(event.error),
        ...(errorCode ? { errorCode } : {}),
        ...thrown,
      };
    }
  }
}

function rejectedWords(error: Error | undefined): string | undefined {
  return error ? refusalLine(error) : undefined;
}

/** A paste that did not complete the sign-in (refused, or not sent through: a network error); the face asks again. */
export function refusalLine(error: Error): string {
  const what = error instanceof CredCredentialsError ? "Not accepted" : "Not completed";
  return `${what}: ${wordsWithCode(error)} Still waiting: paste again.`;
}

/** An error in words with its code: `words (ERR_...)`. */
export function wordsWithCode(error: Error): string {
  const code = errorCodeOf(error);
  return code ? `${describeError(error)} (${code})` : describeError(error);
}

/** Never resolves; rejects when `signal` aborts (a face that waits for the browser, not for a paste). */
export function untilAborted(signal: AbortSignal): Promise<string> {
  return new Promise((_, reject) => {
    const stop = (): void => reject(new CredCancelledError(MESSAGES.signInCancelled));
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
}

export function isFinal(state: ViewState): boolean {
  return state.phase === "signed-in" || state.phase === "failed";
}

/** A minimal external store for React's useSyncExternalStore. */
export interface Store {
  get(): ViewState;
  set(next: ViewState): void;
  subscribe(listener: () => void): () => void;
}

export function createStore(initial: ViewState = INITIAL_STATE): Store {
  let state = initial;
  const listeners = new Set<() => void>();
  return {
    get: () => state,
    set(next) {
      if (next === state) return;
      state = next;
      for (const listener of [...listeners]) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
