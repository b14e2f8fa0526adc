import { describeScopes, PRODUCT_NAME } from "../words.js";
import type { ViewState } from "../view-state.js";

/**
 * The header and the URL, written once as plain lines above the live part: ink wraps text
 * to the terminal's width, and a URL broken by inserted newlines could not be copied whole.
 */
export function permanentText(state: ViewState, color: boolean): string {
  const bold = (text: string) => (color ? `\u001B[1m${text}\u001B[22m` : text);
  const lines = [bold(`${PRODUCT_NAME} · Sign in to Google Cloud`)];
  const scopes = describeScopes(state.scopes);
  if (scopes.length > 0) lines.push("It asks to:", ...scopes.map((words) => `  • ${words}`));
  lines.push("");
  if (state.mode === "paste") lines.push("Open this link in a browser, sign in, then paste the code the page shows:");
  else if (state.browserOpened)
    lines.push("A browser window was opened to sign in. If it did not appear, open this link:");
  else lines.push("Open this link in a browser to sign in:");
  lines.push(state.url ?? "", "");
  return `${lines.join("\n")}\n`;
}
