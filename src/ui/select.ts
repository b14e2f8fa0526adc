import { createDenoPresenter } from "./deno.js";
import { cancelledByInterrupt } from "./interrupt.js";
import { createNotebookPresenter } from "./notebook.js";
import { createPlainPresenter } from "./plain.js";
import type { Presenter } from "../oauth/events.js";
import { createTerminalPresenter } from "./terminal/index.js";

/** How a sign-in is shown: chosen from where the code runs (`auto`), or forced. */
export type PresenterChoice = "auto" | "plain" | "terminal" | "notebook" | Presenter;

/** The faces cred-auth draws: the notebook card under tslab or Deno, the ink app, plain lines. */
export type FaceName = "tslab" | "deno" | "terminal" | "plain";

/** A sign-in's face, decided (credentials/plan.ts): which one, and how it may draw. */
export interface FacePlan {
  /** The face to build, or the caller's own presenter. */
  readonly face: FaceName | Presenter;
  /** Chosen for where the code runs (`auto`): a face that cannot start falls back to plain lines. */
  readonly fallback: boolean;
  /** Whether the face may colour its text (off with `NO_COLOR`). */
  readonly color: boolean;
}

/** What a presenter needs beyond its plan. */
export interface PresenterContext {
  /**
   * Aborted with a CredCancelledError when the user cancels in the presenter (Ctrl+C in the
   * terminal face); the sign-in's signal should follow it.
   */
  abort?: AbortController;
}

/**
 * The presenter of a planned face: the caller's own, a notebook card (tslab's display, or
 * Deno's with its prompt), the ink app, or plain lines on stderr. ink and React load only when
 * the terminal face is built. Under `fallback`, a face that cannot start gives plain lines.
 */
export async function selectPresenter(plan: FacePlan, context: PresenterContext = {}): Promise<Presenter> {
  const { face } = plan;
  if (typeof face === "object") return face;
  try {
    return await build(face, plan, context);
  } catch (error) {
    // A face that cannot start (no kernel display, no raw mode) falls back to plain lines.
    if (plan.fallback) return createPlainPresenter();
    throw error;
  }
}

function build(face: FaceName, plan: FacePlan, context: PresenterContext): Presenter | Promise<Presenter> {
  switch (face) {
    case "plain":
      return createPlainPresenter();
    case "terminal":
      return createTerminalPresenter({ abort: context.abort, color: plan.color });
    // Kernel › Interrupt cancels the sign-in the card shows (see interrupt.ts).
    case "tslab":
      return cancelledByInterrupt(createNotebookPresenter());
    case "deno":
      return cancelledByInterrupt(createDenoPresenter());
  }
}
