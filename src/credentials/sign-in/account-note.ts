// Whether a cache hit names its account, and where: apart from the sign-in plan, since default()'s warm
// path asks it and must not load the plan (bench target 4).
import type { SaveUserCredentialsOptions } from "../../options.js";
import { notebookKernel } from "../../runtime/detect.js";
import type { NotebookFace } from "../../ui/face-plan.js";
import { type PlanSources, planSources } from "./plan.js";

/** What the account note's plan reads: the kernel's globals, and the settings (read only in a notebook). */
export type AccountNoteSources = Pick<PlanSources, "globals" | "settings">;

/** Where to say whose cached credentials these are: a tslab or Deno kernel's card, unless told not to. */
export function planAccountNote(
  options: Pick<SaveUserCredentialsOptions, "accountNote" | "presenter">,
  sources?: AccountNoteSources,
): NotebookFace | undefined {
  if (options.accountNote === false || typeof options.presenter === "object") return undefined;
  if (options.presenter === "plain" || options.presenter === "terminal") return undefined;
  const kernel = notebookKernel(sources?.globals ?? globalThis);
  if (!kernel) return undefined;
  const { settings } = sources ?? planSources();
  const wanted = options.accountNote ?? settings()["account-note"];
  return wanted === false ? undefined : kernel === "tslab" ? "tslab" : "deno";
}
