import { CredCredentialsError } from "../errors.js";
import { detectRuntime, type RuntimeInfo } from "../runtime/index.js";
import { createDenoPresenter } from "./deno.js";
import { cancelledByInterrupt } from "./interrupt.js";
import { createNotebookPresenter } from "./notebook.js";
import { createPlainPresenter } from "./plain.js";
import type { Presenter } from "../oauth/events.js";
import { createTerminalPresenter } from "./terminal/index.js";

/** How a sign-in is shown: chosen from where the code runs (`auto`), or forced. */
export type PresenterChoice = "auto" | "plain" | "terminal" | "notebook" | Presenter;

/** What the chosen presenter needs to know about the sign-in and its surroundings. */
export interface PresenterContext {
  mode: "loopback" | "paste";
  /** Where the code runs. Default: {@link detectRuntime} of this process. */
  runtime?: RuntimeInfo;
  /**
   * Aborted with a CredCancelledError when the user cancels in the presenter (Ctrl+C in the
   * terminal face); the sign-in's signal should follow it.
   */
  abort?: AbortController;
}

/**
 * The presenter for a sign-in: the one given, or one chosen for where the code runs (`auto`):
 * a tslab kernel gets the notebook display, Deno's kernel its display and prompt, an
 * interactive terminal the ink app, anything else (pipes, CI, other kernels) plain lines on
 * stderr. ink and React load only when the terminal face is chosen.
 */
export async function selectPresenter(
  choice: PresenterChoice | undefined,
  context: PresenterContext,
): Promise<Presenter> {
  if (typeof choice === "object" && choice !== null) return choice;
  const runtime = context.runtime ?? detectRuntime();
  switch (choice ?? uiSetting() ?? "auto") {
    case "plain":
      return createPlainPresenter();
    case "terminal":
      return terminalPresenter(context);
    case "notebook":
      return notebookPresenter(runtime);
    default:
      return autoPresenter(runtime, context);
  }
}

async function autoPresenter(runtime: RuntimeInfo, context: PresenterContext): Promise<Presenter> {
  try {
    if (runtime.kind === "tslab" || runtime.kind === "deno-jupyter") return await notebookPresenter(runtime);
    if (runtime.kind === "terminal") return await terminalPresenter(context);
  } catch {
    // A face that cannot start (no kernel display, no raw mode) falls back to plain lines.
  }
  return createPlainPresenter();
}

function terminalPresenter(context: PresenterContext): Promise<Presenter> {
  return createTerminalPresenter({ abort: context.abort });
}

async function notebookPresenter(runtime: RuntimeInfo): Promise<Presenter> {
  // Kernel › Interrupt cancels the sign-in this card shows (see interrupt.ts).
  if (runtime.kind === "tslab") return cancelledByInterrupt(createNotebookPresenter());
  if (runtime.kind === "deno-jupyter") return cancelledByInterrupt(createDenoPresenter());
  throw new CredCredentialsError(
    'presenter: "notebook" needs a tslab or Deno Jupyter kernel; use "auto", "terminal" or "plain" here.',
  );
}

/** The `ui` setting (cred-auth config), read only when the call names no presenter. */
function uiSetting(): PresenterChoice | undefined {
  return (require("../settings/read.js") as typeof import("../settings/read.js")).readSetting("ui");
}
