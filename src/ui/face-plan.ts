// A sign-in's face, as the plan (credentials/sign-in/plan.ts) decides it: plain values the faces receive.
import type { Presenter } from "../oauth/events.js";

/** The faces cred-auth draws: the notebook card under tslab or Deno, the ink app, plain lines. */
export type FaceName = "tslab" | "deno" | "terminal" | "plain";

/** The notebook kernels whose cells show a card. */
export type NotebookFace = "tslab" | "deno";

/** Where a terminal face prompts: `stderr`; `tty` (/dev/tty) when stderr goes to a log; `stdin`, a pipe, unechoed. */
export type PromptDevice = "stderr" | "tty" | "stdin";

/** A sign-in's face, decided (credentials/sign-in/plan.ts): which one, and how it may draw. */
export interface FacePlan {
  /** The face to build, or the caller's own presenter. */
  readonly face: FaceName | Presenter;
  /** Chosen for where the code runs (`auto`): a face that cannot start falls back to plain lines. */
  readonly fallback: boolean;
  /** Whether the face may colour its text (off with `NO_COLOR`, and on a terminal that cannot redraw). */
  readonly color: boolean;
  readonly prompt: PromptDevice;
  /** How a notebook card takes a pasted code or address: the kernel's `prompt()`, or the next cell. */
  readonly codeEntry: "prompt" | "second-cell";
  /** Lines shown above the link: the emulator, unknown scopes (a card folds them with the details). */
  readonly notes: readonly string[];
  /** Why this flow and what else to try: folded in a card, `CRED_AUTH_DEBUG` lines on a terminal. */
  readonly details: readonly string[];
}
