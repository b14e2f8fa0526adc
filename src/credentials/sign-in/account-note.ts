// Whether a cache hit names its account, and where: planned apart from the sign-in plan
// (credentials/sign-in/plan.ts) because it is asked on default()'s warm path, which must not load the
// whole plan (its runtime detection, settings reader, client check and scope data: bench target 4).
import type { SaveUserCredentialsOptions } from "../../options.js";
import { notebookKernel } from "../../runtime/detect.js";
import type { Settings } from "../../settings/keys.js";
import type { NotebookFace } from "../../ui/face-plan.js";
import { planSources } from "./plan.js";
import { chosen } from "./settings-order.js";

/** What the account note's plan reads: the kernel's globals, and the settings (read only in a notebook). */
export interface AccountNoteSources {
  /** The globals a notebook kernel marks (default `globalThis`). */
  readonly globals?: object;
  /** The user's settings; read only inside a notebook kernel. */
  settings(): Settings;
}

/**
 * Where to say which account cached credentials belong to: the notebook card's kernel (a small
 * "using account X (cached)" note), or nowhere: outside a tslab or Deno kernel, with the caller's
 * own presenter, or when `accountNote: false` or the `account-note` setting turns it off. Asked
 * on every cache hit, so it detects only the kernel (no settings read outside a notebook).
 */
export function planAccountNote(
  options: Pick<SaveUserCredentialsOptions, "accountNote" | "presenter">,
  sources?: AccountNoteSources,
): NotebookFace | undefined {
  if (options.accountNote === false || typeof options.presenter === "object") return undefined;
  if (options.presenter === "plain" || options.presenter === "terminal") return undefined;
  const kernel = notebookKernel(sources?.globals ?? globalThis);
  if (!kernel) return undefined;
  const { settings } = sources ?? planSources();
  const wanted = chosen(
    options.accountNote,
    () => undefined,
    () => settings()["account-note"],
  );
  return wanted === false ? undefined : kernel === "tslab" ? "tslab" : "deno";
}
