import { MESSAGES } from "../../messages.js";
import { PASTE_BACK_LINE } from "../plain.js";
import type { ViewState } from "../view-state.js";
import { describeScopes, PRODUCT_NAME } from "../words.js";

/**
 * What is written once, as plain lines above the live part: the plan's notes, the header, what
 * to do while waiting, and last the URL whole on a line of its own (ink wraps text to the
 * terminal's width, and a URL broken by inserted newlines could not be copied). Only a line or two stays
 * live below it, so nothing the terminal cannot erase (taller than the screen) is ever redrawn.
 */
export function permanentText(state: ViewState, color: boolean, notes: readonly string[] = []): string {
  const bold = (text: string) => (color ? `\u001B[1m${text}\u001B[22m` : text);
  const lines = [...notes.map((note) => `cred-auth: ${note}`), bold(`${PRODUCT_NAME} · Sign in to Google Cloud`)];
  const scopes = describeScopes(state.scopes);
  if (scopes.length > 0) lines.push("It asks to:", ...scopes.map((words) => `  • ${words}`));
  // What to do after signing in comes before the link: the URL stays next to the live part, on
  // screen however narrow or short the terminal is.
  if (state.mode === "paste") lines.push("The code works only for this sign-in; it is shown as you paste it.");
  else lines.push(MESSAGES.googleErrorPage, ...(state.paste ? [PASTE_BACK_LINE] : []));
  lines.push("");
  if (state.mode === "paste") lines.push("Open this link in a browser, sign in, then paste the code the page shows:");
  else if (state.browserOpened)
    lines.push("A browser window was opened to sign in. If it did not appear, open this link:");
  else lines.push("Open this link in a browser to sign in:");
  lines.push(state.url ?? "", "");
  return `${lines.join("\n")}\n`;
}
