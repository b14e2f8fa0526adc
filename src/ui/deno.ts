/**
 * The notebook face under Deno's Jupyter kernel: the same HTML card through
 * `Deno.jupyter.display`, updated in place, and the kernel's `prompt()` (a Jupyter input
 * request) for a pasted code.
 */
import { CredCancelledError, CredCredentialsError } from "../errors.js";
import type { Presenter, SignInEvent } from "../oauth/events.js";
import { renderSignInHtml, renderSignInText } from "./notebook.js";
import { INITIAL_STATE, reduce, type ViewState } from "./view-state.js";

/** The part of `Deno.jupyter` this face uses. */
export interface DenoJupyter {
  display(bundle: Record<string, string>, options: { raw: true; display_id: string; update?: boolean }): Promise<void>;
}

interface DenoGlobals {
  Deno?: { jupyter?: DenoJupyter };
  prompt?: (message: string) => string | null;
  crypto?: { randomUUID(): string };
}

/** A presenter for Deno's Jupyter kernel (`globals` defaults to `globalThis`). */
export function createDenoPresenter(globals: object = globalThis): Presenter {
  const { Deno, prompt, crypto } = globals as DenoGlobals;
  const jupyter = Deno?.jupyter;
  if (!jupyter)
    throw new CredCredentialsError(
      'The Deno notebook presenter needs Deno\'s Jupyter kernel (Deno.jupyter); use presenter: "plain" elsewhere.',
    );
  const displayId = `cred-auth-sign-in-${crypto?.randomUUID() ?? Date.now().toString(36)}`;
  let state: ViewState = INITIAL_STATE;
  let shown = false;
  const draw = () => {
    const bundle = { "text/html": renderSignInHtml(state, "prompt"), "text/plain": renderSignInText(state, "prompt") };
    jupyter.display(bundle, { raw: true, display_id: displayId, update: shown }).catch(() => {});
    shown = true;
  };
  const presenter: Presenter = {
    update(event: SignInEvent) {
      state = reduce(state, event);
      draw();
    },
  };
  if (typeof prompt === "function") {
    presenter.readCode = async (signal: AbortSignal) => {
      if (signal.aborted) throw new CredCancelledError("The sign-in was cancelled.");
      // prompt() blocks the kernel until answered: beside the loopback wait it would keep the
      // browser's redirect from ever being served. There, only the browser completes the sign-in.
      if (state.phase === "waiting") return untilAborted(signal);
      const code = prompt("Paste the authorization code:")?.trim();
      if (!code) throw new CredCancelledError("No code was entered; the sign-in was cancelled. Nothing was saved.");
      state = { ...state, phase: "checking" };
      draw();
      return code;
    };
  }
  return presenter;
}

/** Never resolves; rejects when `signal` aborts. */
function untilAborted(signal: AbortSignal): Promise<string> {
  return new Promise((_, reject) => {
    const stop = (): void => reject(new CredCancelledError("The sign-in was cancelled."));
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
}
