// The card under Deno's kernel (`Deno.jupyter.display`). A code is read with the kernel's `prompt()`; beside a
// loopback wait, which prompt() would block, the next cell brings the address instead.
import { CredCancelledError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import type { Presenter, SignInEvent } from "../oauth/events.js";
import { accountNote, type CardOptions, type CodeEntry, renderSignInHtml, renderSignInText } from "./notebook.js";
import { INITIAL_STATE, reduce, type ViewState, untilAborted } from "./view-state.js";
import { cancelledBecause, MESSAGES } from "../messages.js";

/** The part of `Deno.jupyter` this face uses. */
export interface DenoJupyter {
  display(bundle: Record<string, string>, options: { raw: true; display_id: string; update?: boolean }): Promise<void>;
}

interface DenoGlobals {
  Deno?: { jupyter?: DenoJupyter };
  prompt?: (message: string) => string | null;
  crypto?: { randomUUID(): string };
}

/** What the Deno card shows besides the sign-in, and how it takes a pasted code. */
export interface DenoCardOptions extends CardOptions {
  /** `prompt`: the kernel's `prompt()` (copy-paste flow); `second-cell`: `completeSignIn` in the next cell. */
  codeEntry?: CodeEntry;
}

/** Deno's Jupyter display, or a clear error outside Deno's kernel. */
function denoJupyter(globals: object): DenoJupyter {
  const jupyter = (globals as DenoGlobals).Deno?.jupyter;
  if (!jupyter)
    throw new CredCredentialsError(
      'The Deno notebook presenter needs Deno\'s Jupyter kernel (Deno.jupyter); use presenter: "plain" elsewhere.',
      { code: ERROR_CODES.PRESENTER_UNAVAILABLE },
    );
  return jupyter;
}

export function createDenoPresenter(
  globals: object = globalThis,
  { notes = [], details = [], codeEntry = "prompt" }: DenoCardOptions = {},
): Presenter {
  const { prompt, crypto } = globals as DenoGlobals;
  const jupyter = denoJupyter(globals);
  const displayId = `cred-auth-sign-in-${crypto?.randomUUID() ?? Date.now().toString(36)}`;
  let state: ViewState = INITIAL_STATE;
  let shown = false;
  // Deno's display is asynchronous: the last one sent, so a cell that ends waits for its card.
  let last: Promise<void> = Promise.resolve();
  const draw = () => {
    const card = { ...state, folded: [...notes, ...details] };
    const bundle = { "text/html": renderSignInHtml(card, codeEntry), "text/plain": renderSignInText(card, codeEntry) };
    last = jupyter.display(bundle, { raw: true, display_id: displayId, update: shown }).catch(() => {});
    shown = true;
  };
  const presenter: Presenter = {
    update(event: SignInEvent) {
      const next = reduce(state, event);
      // A card is drawn when it changes. An interrupt and the cancel it starts both say "failed",
      // and Deno's kernel would file a second, late message under the next cell.
      if (next === state && shown) return;
      state = next;
      draw();
    },
    drawn: () => last,
  };
  if (codeEntry === "prompt" && typeof prompt === "function") {
    presenter.readCode = async (signal: AbortSignal) => {
      if (signal.aborted) throw new CredCancelledError(MESSAGES.signInCancelled);
      // prompt() blocks the kernel until answered: beside the loopback wait it would keep the browser's redirect from
      // ever being served (only the browser completes it there); elsewhere the card with the link is sent first.
      if (state.phase === "waiting") return untilAborted(signal);
      await last;
      const code = prompt("Paste the authorization code:")?.trim();
      if (!code) throw new CredCancelledError(cancelledBecause("no code entered"));
      state = { ...state, phase: "checking" };
      draw();
      return code;
    };
  }
  return presenter;
}

/** The account of cached credentials as a note under the cell; resolves once sent (a note sent after the cell ends is lost). */
export function showDenoNote(globals: object, account: string | undefined): Promise<void> {
  return denoJupyter(globals)
    .display({ ...accountNote(account) }, { raw: true, display_id: `cred-auth-account-${Date.now().toString(36)}` })
    .catch(() => {});
}
