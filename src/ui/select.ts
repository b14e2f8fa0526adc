import { createDenoPresenter, showDenoNote } from "./deno.js";
import { cancelledByInterrupt } from "./interrupt.js";
import { createNotebookPresenter, showTslabNote } from "./notebook.js";
import { createPlainPresenter } from "./plain.js";
import type { Presenter } from "../oauth/events.js";
import { createTerminalPresenter } from "./terminal/presenter.js";
import type { FaceName, FacePlan, NotebookFace } from "./face-plan.js";

export type { FaceName, FacePlan, NotebookFace, PromptDevice } from "./face-plan.js";

/** How a sign-in is shown: chosen from where the code runs (`auto`), or forced. */
export type PresenterChoice = "auto" | "plain" | "terminal" | "notebook" | Presenter;

/** The presenter of a planned face (ink loads only for the terminal); under `fallback`, plain lines if it fails. */
export async function selectPresenter(plan: FacePlan): Promise<Presenter> {
  const { face } = plan;
  if (typeof face === "object") return face;
  try {
    return await build(face, plan);
  } catch (error) {
    // A face that cannot start (no kernel display, no raw mode) falls back to plain lines.
    if (plan.fallback) return createPlainPresenter();
    throw error;
  }
}

function build(face: FaceName, plan: FacePlan): Presenter | Promise<Presenter> {
  const { notes, details } = plan;
  switch (face) {
    case "plain":
      return createPlainPresenter({ prompt: plan.prompt, notes });
    case "terminal":
      return createTerminalPresenter({ color: plan.color, notes });
    // Kernel › Interrupt cancels the sign-in the card shows (see interrupt.ts).
    case "tslab":
      return cancelledByInterrupt(createNotebookPresenter(undefined, { notes, details }));
    case "deno":
      return cancelledByInterrupt(createDenoPresenter(globalThis, { notes, details, codeEntry: plan.codeEntry }));
  }
}

/** "using account X (cached)" under the cell, in the kernel the plan named; never throws. */
export async function showAccountNote(kernel: NotebookFace, account: string | undefined): Promise<void> {
  try {
    if (kernel === "tslab") showTslabNote(account);
    else await showDenoNote(globalThis, account);
  } catch {
    // Only a note: a kernel that cannot display it loses nothing.
  }
}
