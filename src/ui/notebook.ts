// The notebook card, updated in place through the running tslab kernel's own display (a second copy
// of tslab is "Not ready"); a tslab cell has no stdin, so a pasted code comes in a second cell.
import { randomBytes } from "node:crypto";
import { sep } from "node:path";
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import type { Presenter, SignInEvent } from "../oauth/events.js";
import { MESSAGES } from "../messages.js";
import { INITIAL_STATE, isFinal, reduce, type ViewState } from "./view-state.js";
import { describeScopes, PRODUCT_NAME } from "./words.js";
import { escapeHtml } from "../util/html.js";

/** What a card shows: HTML for rich front ends, `text/plain` for nbconvert and text front ends. */
export interface DisplayBundle {
  "text/html": string;
  "text/plain": string;
}

/** One updatable display: `show` sends the whole bundle; `html` alone is the fallback. */
export interface NotebookDisplay {
  html(html: string): void;
  show?(bundle: DisplayBundle): void;
}

/** The part of the `tslab` module this face uses. */
export interface TslabDisplayModule {
  newDisplay(): NotebookDisplay;
}

/** tslab's internal writer of display messages (`tslab/dist/jupyter`), set while a cell runs. */
interface TslabJupyterModule {
  lastWriteDisplayData?: ((message: object, update: boolean) => void) | null;
}

type KernelRequire = (id: string) => unknown;

/** The running tslab's display; through its writer when reachable (`Display` sends one MIME type a message). */
export function kernelTslab(globals: object = globalThis, loaded: ModuleCache = require.cache): TslabDisplayModule {
  const kernel = (globals as { __tslab__?: { require?: KernelRequire } }).__tslab__;
  if (typeof kernel?.require !== "function") {
    throw new CredCredentialsError(
      'The notebook presenter needs a tslab kernel; use presenter: "plain" or "terminal" elsewhere.',
      { code: ERROR_CODES.PRESENTER_UNAVAILABLE },
    );
  }
  const tslab = kernel.require("tslab") as TslabDisplayModule;
  const writer = tslabWriter(kernel.require, loaded);
  if (!writer) return tslab;
  return { newDisplay: () => bundleDisplay(writer) };
}

/** The module cache of this process (CommonJS `require.cache`): the kernel's modules are in it. */
export type ModuleCache = Readonly<Record<string, { exports?: unknown } | undefined>>;

const TSLAB_JUPYTER = `${sep}tslab${sep}dist${sep}jupyter.js`;

/** tslab's display writer, `tslab/dist/jupyter`: from the module cache (a global tslab), else by require. */
function tslabWriter(require: KernelRequire, loaded: ModuleCache): TslabJupyterModule | undefined {
  const running = Object.keys(loaded).find((path) => path.endsWith(TSLAB_JUPYTER));
  const candidates = [() => (running ? loaded[running]?.exports : undefined), () => require("tslab/dist/jupyter")];
  for (const candidate of candidates) {
    try {
      const jupyter = candidate() as TslabJupyterModule | undefined;
      if (jupyter && typeof jupyter === "object" && "lastWriteDisplayData" in jupyter) return jupyter;
    } catch {
      // Not this one: try the next.
    }
  }
  return undefined;
}

/** A display sending whole bundles, with its own display id (as tslab's `newDisplay` does). */
function bundleDisplay(jupyter: TslabJupyterModule): NotebookDisplay {
  const displayId = randomBytes(8).toString("hex");
  let shown = false;
  const show = (data: Partial<DisplayBundle>): void => {
    const write = jupyter.lastWriteDisplayData;
    if (typeof write !== "function") throw new CredCredentialsError("The tslab display is not ready.");
    write({ data, metadata: {}, transient: { display_id: displayId } }, shown);
    shown = true;
  };
  return { show, html: (html) => show({ "text/html": html }) };
}

/** The second cell's call (copy-paste): assigned, so the cell shows its "Signed in as …" note, not the credentials. */
export const COMPLETE_SIGN_IN_CALL = 'const signedIn = await credAuth.completeSignIn("PASTE-THE-CODE-HERE");';

/** The second-cell call shown beside the loopback wait, for a browser on another machine. */
export const COMPLETE_WITH_ADDRESS_CALL = 'const signedIn = await credAuth.completeSignIn("PASTE-THE-ADDRESS-HERE");';

/** What a card shows besides the sign-in's state: the plan's notes and details, folded. */
export interface CardOptions {
  notes?: readonly string[];
  details?: readonly string[];
}

/** A presenter drawing one updatable card (from the first event on); no `readCode`: the next cell brings the code. */
export function createNotebookPresenter(
  tslab: TslabDisplayModule = kernelTslab(),
  { notes = [], details = [] }: CardOptions = {},
): Presenter {
  let state: ViewState = INITIAL_STATE;
  let display: NotebookDisplay | undefined;
  // A sign-in left waiting for a paste keeps this presenter: the flow tells it how the sign-in
  // ended (completed by the second cell, the browser, an interrupt or a newer sign-in).
  return {
    update(event: SignInEvent) {
      const next = reduce(state, event);
      // A card is drawn when it changes: an interrupt and the cancel it starts both say "failed".
      if (next === state && display) return;
      state = next;
      display = draw(display ?? tslab, { ...state, folded: [...notes, ...details] });
    },
  };
}

/** Draws `state` (into a new display the first time); never throws. */
function draw(target: NotebookDisplay | TslabDisplayModule, state: CardState): NotebookDisplay | undefined {
  try {
    const display = "newDisplay" in target ? target.newDisplay() : target;
    const html = renderSignInHtml(state);
    if (display.show) display.show({ "text/html": html, "text/plain": renderSignInText(state) });
    else display.html(html);
    return display;
  } catch {
    // A display that cannot draw (kernel shutting down) must not break the sign-in.
    return "newDisplay" in target ? undefined : target;
  }
}

/** The account of cached credentials, as a small note under the cell (`text/plain` with it). */
export function showTslabNote(account: string | undefined, tslab: TslabDisplayModule = kernelTslab()): void {
  const display = tslab.newDisplay();
  const note = accountNote(account);
  if (display.show) display.show(note);
  else display.html(note["text/html"]);
}

/** "cred-auth: using account X (cached)", as HTML (small, the front end's muted colour) and text. */
export function accountNote(account: string | undefined): DisplayBundle {
  const text = `${PRODUCT_NAME}: using ${account ? `account ${account}` : "the cached credentials"} (cached)`;
  return {
    "text/html": `<div class="cred-auth-account" style="font-size:0.85em;color:${MUTED_COLOR}">${escapeHtml(text)}</div>`,
    "text/plain": text,
  };
}

/** A card: the sign-in's state, and the lines folded behind "Details" (the plan's notes and details). */
export type CardState = ViewState & { folded?: readonly string[] };

/** How the user hands over a pasted code: a second cell (tslab) or the kernel's prompt (Deno). */
export type CodeEntry = "second-cell" | "prompt";

// The card takes the front end's own colours: JupyterLab's theme variables where they exist
// (light and dark themes), else `inherit` (VS Code, Colab, nbconvert). Only the button has fixed
// colours, white on Google blue (5.4:1). The state shows in the left border's colour and in words.
const TEXT_COLOR = "var(--jp-content-font-color1, inherit)";
const MUTED_COLOR = "var(--jp-content-font-color2, inherit)";
const ACCENT: Readonly<Partial<Record<ViewState["phase"], string>>> = {
  preparing: "var(--jp-border-color1, #9aa0a6)",
  "signed-in": "var(--jp-success-color1, #1e8e3e)",
  failed: "var(--jp-error-color1, #d93025)",
};
const CARD_STYLE =
  "font-family:var(--jp-ui-font-family, system-ui, sans-serif);line-height:1.45;" +
  "border:1px solid var(--jp-border-color1, rgba(128,128,128,0.5));border-radius:6px;" +
  "padding:10px 14px;max-width:720px;background:transparent";
const CODE_STYLE = "font-family:var(--jp-code-font-family, monospace);color:inherit;background:transparent;padding:0";

/** What a card says, the same in HTML and in text: the title, what it asks, the link, the one action. */
interface Card {
  title: string;
  asks: string[];
  url?: string;
  lines: string[];
  /** The call to run in a new cell. */
  call?: string;
  folded: readonly string[];
}

function cardOf(state: CardState, entry: CodeEntry): Card {
  const live = !isFinal(state);
  return {
    title: `${PRODUCT_NAME} · ${titleOf(state)}`,
    asks: live ? describeScopes(state.scopes) : [],
    ...(live && state.url ? { url: state.url } : {}),
    ...statusOf(state, entry),
    folded: live ? (state.folded ?? []) : [],
  };
}

/** The title leads with the outcome once there is one. */
function titleOf(state: ViewState): string {
  if (state.phase === "signed-in") return state.account ? `Signed in as ${state.account}` : "Signed in";
  if (state.phase === "failed")
    return state.errorCode === ERROR_CODES.CANCELLED ? "Sign-in cancelled" : "Sign-in failed";
  return "Sign in to Google Cloud";
}

/** A refused paste: why, and that the sign-in goes on. */
const stillWaiting = (state: ViewState): string[] => (state.rejected ? [state.rejected] : []);

function statusOf(state: ViewState, entry: CodeEntry): Pick<Card, "lines" | "call"> {
  switch (state.phase) {
    case "preparing":
      return { lines: ["Preparing the sign-in…"] };
    case "waiting":
      if (state.paste && entry === "second-cell")
        return {
          lines: [
            ...stillWaiting(state),
            "If sign-in ends on an error page at http://localhost:…, paste its address into this in a new cell:",
          ],
          call: COMPLETE_WITH_ADDRESS_CALL,
        };
      return {
        lines: [
          state.browserOpened
            ? "A browser tab was opened: sign in there."
            : "Waiting for you to sign in in the browser…",
        ],
      };
    case "code":
      if (entry === "prompt")
        return {
          lines: [...stillWaiting(state), "After signing in, paste the code the page shows in the input box below."],
        };
      return {
        lines: [...stillWaiting(state), "After signing in, copy the code the page shows and run in a new cell:"],
        call: COMPLETE_SIGN_IN_CALL,
      };
    case "checking":
      return { lines: ["Checking the code…"] };
    case "signed-in":
      return { lines: state.savedTo ? [`Saved to ${state.savedTo}`] : [] };
    case "failed":
      return { lines: [failedWords(state)] };
  }
}

/** Where a failed card's cell says why: the kernel prints the thrown error as one line under the card. */
const ERROR_BELOW = "Why, and what to do: the error under this card.";
const ERROR_BELOW_CANCELLED = "Why: the error under this card.";

/** A failure's words; thrown into the card's own cell, the kernel's error line below says them, so the card points there. */
function failedWords(state: ViewState): string {
  const cancelled = state.errorCode === ERROR_CODES.CANCELLED;
  if (state.thrown) return cancelled ? `${ERROR_BELOW_CANCELLED} ${MESSAGES.signInCellAgain}` : ERROR_BELOW;
  return cancelled ? cancelledWords(state) : (state.error ?? "");
}

/** A cancel's words, then how to start again, then its code: `words Run the sign-in cell again. (ERR_CANCELLED)`. */
function cancelledWords(state: ViewState): string {
  const code = ` (${ERROR_CODES.CANCELLED})`;
  const words = state.error?.endsWith(code) ? state.error.slice(0, -code.length) : (state.error ?? "");
  return `${words} ${MESSAGES.signInCellAgain}${code}`;
}

/** The whole sign-in card for `state`; every value from outside is HTML-escaped. */
export function renderSignInHtml(state: CardState, entry: CodeEntry = "second-cell"): string {
  const card = cardOf(state, entry);
  const parts = [`<div style="font-weight:600">${escapeHtml(card.title)}</div>`];
  if (card.folded.length > 0)
    parts.push(
      `<details data-cred-auth-notes style="font-size:0.9em;margin-top:2px;color:${MUTED_COLOR}"><summary style="cursor:pointer">Details</summary>${card.folded.map((line) => `<div>${escapeHtml(line)}</div>`).join("")}</details>`,
    );
  if (card.asks.length > 0)
    parts.push(
      `<div style="margin-top:4px">It asks to:</div><ul style="margin:4px 0;padding-left:1.4em">${card.asks.map((words) => `<li>${escapeHtml(words)}</li>`).join("")}</ul>`,
    );
  if (card.url) parts.push(signInLink(card.url));
  const call = card.call ? `<pre style="${CODE_STYLE};margin:6px 0">${escapeHtml(card.call)}</pre>` : "";
  parts.push(
    `<div data-cred-auth-status="${state.phase}" style="margin-top:8px">${card.lines.map((line) => `<div>${escapeHtml(line)}</div>`).join("")}${call}</div>`,
  );
  return (
    `<div class="cred-auth-sign-in" style="${CARD_STYLE};color:${TEXT_COLOR};border-left:4px solid ${ACCENT[state.phase] ?? "var(--jp-brand-color1, #1967d2)"}">` +
    `${parts.join("")}</div>`
  );
}

/** The button, and the whole address behind a folded line (a click selects all of it). */
function signInLink(url: string): string {
  if (!/^https?:\/\//i.test(url))
    return `<div>Open this address in a browser: <code style="${CODE_STYLE}">${escapeHtml(url)}</code></div>`;
  const href = escapeHtml(url);
  return (
    `<div style="margin:8px 0"><a href="${href}" target="_blank" rel="noopener noreferrer" ` +
    `style="display:inline-block;padding:6px 14px;border-radius:4px;background:#1967d2;color:#ffffff;text-decoration:none;font-weight:600">Sign in with Google</a></div>` +
    `<details style="margin:4px 0"><summary style="cursor:pointer">Copy the link</summary>` +
    `<code data-cred-auth-url style="${CODE_STYLE};display:block;margin-top:4px;user-select:all;-webkit-user-select:all;word-break:break-all;white-space:pre-wrap">${href}</code></details>`
  );
}

/** The card as plain text, for nbconvert and text front ends: no details. */
export function renderSignInText(state: CardState, entry: CodeEntry = "second-cell"): string {
  const card = cardOf(state, entry);
  const asks = card.asks.length > 0 ? [`It asks to: ${card.asks.join("; ")}.`] : [];
  const link = card.url ? [`Open this link to sign in: ${card.url}`] : [];
  return [card.title, ...asks, ...link, ...card.lines, ...(card.call ? [card.call] : [])].join("\n");
}
