import type { PresenterChoice } from "../options.js";
import { createPlainPresenter } from "./plain.js";
import type { Presenter } from "./presenter.js";

/**
 * The presenter for a sign-in: the one given, or one chosen for where the code runs.
 * For now every choice but a Presenter object is the plain (stderr) presenter; the terminal
 * and notebook faces plug in here.
 */
export async function selectPresenter(choice: PresenterChoice | undefined, context: { mode: "loopback" | "paste" }): Promise<Presenter> {
  void context;
  if (typeof choice === "object" && choice !== null) return choice;
  return createPlainPresenter();
}
