/**
 * The notebook face: the sign-in as HTML in the cell's output, updated in place. Under tslab
 * it goes through the kernel's own display (`globalThis.__tslab__.require("tslab")`; a second
 * copy of tslab is "Not ready"). A tslab cell has no stdin: the copy-paste flow completes in a
 * second cell with `completeSignIn(code)`.
 */
import { randomBytes } from "node:crypto";
import { sep } from "node:path";
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import type { Presenter, SignInEvent } from "../oauth/events.js";
import { failureLine, INITIAL_STATE, isFinal, reduce, type ViewState } from "./view-state.js";
import { describeScopes, PRODUCT_NAME } from "./words.js";
import { escapeHtml } from "../util/html.js";
import { MESSAGES } from "../messages.js";

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

/**
 * The running tslab kernel's display module; a clear error outside tslab. tslab's `Display`
 * sends one MIME type per message, so a display with both HTML and `text/plain` goes through
 * the writer that `Display.raw` itself uses, when it can be reached.
 */
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

/**
 * tslab's display writer: the kernel's own `tslab/dist/jupyter` module. The notebook's
 * `require` finds it only when tslab is installed beside the notebook; a global tslab (`npm
 * install -g tslab`) is not on that path, but the running kernel has loaded the module, so it is
 * in this process's module cache whichever copy runs.
 */
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

// The second cell assigns what completeSignIn returns: a bare call would display the credentials
// object as the cell's result; this way the cell shows only its short "Signed in as …" note.
/** The second-cell call shown in the copy-paste flow. */
export const COMPLETE_SIGN_IN_CALL = 'const signedIn = await credAuth.completeSignIn("PASTE-THE-CODE-HERE");';

/** The second-cell call shown beside the loopback wait, for a browser on another machine. */
export const COMPLETE_WITH_ADDRESS_CALL = 'const signedIn = await credAuth.completeSignIn("PASTE-THE-ADDRESS-HERE");';

/** What a card shows besides the sign-in's state. */
export interface CardOptions {
  /** Lines above the link: the flow chosen for this machine and how to change it, notices. */
  notes?: readonly string[];
}

/**
 * A presenter drawing into one updatable notebook display (created at the first event, so
 * nothing shows for a sign-in that never starts). It has no `readCode`: the copy-paste flow
 * then ends the cell and waits for {@link COMPLETE_SIGN_IN_CALL} in another one.
 */
export function createNotebookPresenter(
  tslab: TslabDisplayModule = kernelTslab(),
  { notes = [] }: CardOptions = {},
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
      display = draw(display ?? tslab, { ...state, notes });
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

/** A card: the sign-in's state and the plan's notes. */
export type CardState = ViewState & { notes?: readonly string[] };

/** How the user hands over a pasted code: a second cell (tslab) or the kernel's prompt (Deno). */
export type CodeEntry = "second-cell" | "prompt";

// The card takes the front end's own colours: JupyterLab's theme variables where they exist
// (light and dark themes), else `inherit` (VS Code, Colab, nbconvert's HTML). Only the button
// has fixed colours, white on Google blue (5.4:1), the same on every theme. The state shows in
// the left border's colour and in words, never in a colour-emoji glyph.
const TEXT_COLOR = "var(--jp-content-font-color1, inherit)";
// Secondary text: JupyterLab's second text colour (AA on its themes), else the page's own.
const MUTED_COLOR = "var(--jp-content-font-color2, inherit)";
const ACCENT: Readonly<Record<ViewState["phase"], string>> = {
  preparing: "var(--jp-border-color1, #9aa0a6)",
  waiting: "var(--jp-brand-color1, #1967d2)",
  code: "var(--jp-brand-color1, #1967d2)",
  checking: "var(--jp-brand-color1, #1967d2)",
  "signed-in": "var(--jp-success-color1, #1e8e3e)",
  failed: "var(--jp-error-color1, #d93025)",
};
const CARD_STYLE =
  "font-family:var(--jp-ui-font-family, system-ui, sans-serif);line-height:1.45;" +
  "border:1px solid var(--jp-border-color1, rgba(128,128,128,0.5));border-radius:6px;" +
  "padding:10px 14px;max-width:720px;background:transparent";
const CODE_STYLE = "font-family:var(--jp-code-font-family, monospace);color:inherit;background:transparent;padding:0";

/** The whole sign-in card for `state`; every value from outside is HTML-escaped. */
export function renderSignInHtml(state: CardState, codeEntry: CodeEntry = "second-cell"): string {
  const parts = [`<div style="font-weight:600">${escapeHtml(PRODUCT_NAME)} · Sign in to Google Cloud</div>`];
  // The notes (the emulator, the flow chosen and which setting changes it) are for whoever
  // wants to know why: folded away, the card reads in a person's words.
  if (state.notes?.length && !isFinal(state))
    parts.push(
      `<details data-cred-auth-notes style="font-size:0.9em;margin-top:2px;color:${MUTED_COLOR}"><summary style="cursor:pointer">Technical details</summary>${state.notes.map((note) => `<div>${escapeHtml(note)}</div>`).join("")}</details>`,
    );
  const scopes = describeScopes(state.scopes);
  if (scopes.length > 0) {
    parts.push(
      `<div style="margin-top:4px">It asks to:</div><ul style="margin:4px 0;padding-left:1.4em">${scopes.map((words) => `<li>${escapeHtml(words)}</li>`).join("")}</ul>`,
    );
  }
  if (state.url && !isFinal(state)) parts.push(signInLink(state.url));
  parts.push(
    `<div data-cred-auth-status="${state.phase}" style="margin-top:8px">${statusHtml(state, codeEntry)}</div>`,
  );
  return (
    `<div class="cred-auth-sign-in" style="${CARD_STYLE};color:${TEXT_COLOR};border-left:4px solid ${ACCENT[state.phase]}">` +
    `${parts.join("")}</div>`
  );
}

/** The button, and the whole address behind a collapsed line (a click selects all of it). */
function signInLink(url: string): string {
  if (!/^https?:\/\//i.test(url))
    return `<div>Open this address in a browser: <code style="${CODE_STYLE}">${escapeHtml(url)}</code></div>`;
  const href = escapeHtml(url);
  return (
    `<div style="margin:8px 0"><a href="${href}" target="_blank" rel="noopener noreferrer" ` +
    `style="display:inline-block;padding:6px 14px;border-radius:4px;background:#1967d2;color:#ffffff;text-decoration:none;font-weight:600">Sign in with Google</a></div>` +
    `<details style="margin:4px 0"><summary style="cursor:pointer">The button does not open? Copy the address</summary>` +
    `<code data-cred-auth-url style="${CODE_STYLE};display:block;margin-top:4px;user-select:all;-webkit-user-select:all;word-break:break-all;white-space:pre-wrap">${href}</code></details>`
  );
}

function statusHtml(state: CardState, codeEntry: CodeEntry): string {
  const rejected = state.rejected
    ? `<div style="font-weight:600">${NOT_ACCEPTED}</div><div style="font-size:0.9em;color:${MUTED_COLOR}">${escapeHtml(state.rejected)}</div>`
    : "";
  switch (state.phase) {
    case "preparing":
      return "Preparing the sign-in…";
    case "waiting":
      return `${rejected}${waitingWords(state)}${state.paste && codeEntry === "second-cell" ? pasteBackHelp() : ""}<div style="margin-top:6px">${escapeHtml(MESSAGES.googleErrorPage)}</div>`;
    case "code":
      return `${rejected}${codeEntry === "prompt" ? `${CODE_WARNING} Paste it into the input box below.` : secondCellHelp()}`;
    case "checking":
      return "Checking the code…";
    case "signed-in":
      return [
        `<span style="font-weight:600">${state.account ? `Signed in as ${escapeHtml(state.account)}` : "Signed in"}</span>`,
        state.savedTo ? `<div>Saved to <code style="${CODE_STYLE}">${escapeHtml(state.savedTo)}</code></div>` : "",
      ].join("");
    case "failed":
      return `<span style="font-weight:600">${escapeHtml(failureLine(state))}</span>`;
  }
}

/** A refused paste: the sign-in goes on. */
const NOT_ACCEPTED = "Not accepted; still waiting: paste again.";

function waitingWords(state: ViewState): string {
  return state.browserOpened
    ? "A browser tab was opened: waiting for the sign-in…"
    : "Waiting for the sign-in in the browser…";
}

const CODE_WARNING = "After signing in, the page shows a code (it works like a password: do not share it).";

function secondCellHelp(): string {
  return (
    `${CODE_WARNING} Copy it, then run in a new cell:<pre style="${CODE_STYLE};margin:6px 0">${escapeHtml(COMPLETE_SIGN_IN_CALL)}</pre>` +
    `${escapeHtml(AFTER_SECOND_CELL)} No kernel restart is needed.`
  );
}

/** What the second cell does for the first: the credentials it returned work from then on. */
const AFTER_SECOND_CELL = "The sign-in then finishes here, and what this cell returned works.";

/** Loopback on a machine the browser may not reach: the browser's final address, pasted back. */
function pasteBackHelp(): string {
  return (
    '<div style="margin-top:6px">If your browser is on another machine, it ends on an error page at ' +
    "<code>http://localhost:…</code>. Copy that page's whole address from the address bar, then run in a new cell:" +
    `<pre style="${CODE_STYLE};margin:6px 0">${escapeHtml(COMPLETE_WITH_ADDRESS_CALL)}</pre>${escapeHtml(AFTER_SECOND_CELL)}</div>`
  );
}

/** The card as plain text, for nbconvert and text front ends (and screen readers of raw output). */
export function renderSignInText(state: CardState, codeEntry: CodeEntry = "second-cell"): string {
  const lines = [`${PRODUCT_NAME} · Sign in to Google Cloud`];
  if (state.notes?.length && !isFinal(state)) lines.push(...state.notes);
  if (state.url && !isFinal(state)) lines.push(`Open this link in a browser to sign in: ${state.url}`);
  if (state.rejected && !isFinal(state)) lines.push(`${NOT_ACCEPTED} ${state.rejected}`);
  lines.push(statusText(state, codeEntry));
  return lines.join("\n");
}

function statusText(state: ViewState, codeEntry: CodeEntry): string {
  switch (state.phase) {
    case "preparing":
      return "Preparing the sign-in…";
    case "waiting":
      return `${
        state.paste && codeEntry === "second-cell"
          ? `${waitingWords(state)} If the browser ends on an error page at http://localhost:…, copy its whole address and run in a new cell: ${COMPLETE_WITH_ADDRESS_CALL} ${AFTER_SECOND_CELL}`
          : waitingWords(state)
      }\n${MESSAGES.googleErrorPage}`;
    case "code":
      return codeEntry === "prompt"
        ? `${CODE_WARNING} Paste it into the input box below.`
        : `${CODE_WARNING} Copy it, then run in a new cell: ${COMPLETE_SIGN_IN_CALL} ${AFTER_SECOND_CELL}`;
    case "checking":
      return "Checking the code…";
    case "signed-in":
      return [
        state.account ? `Signed in as ${state.account}` : "Signed in",
        ...(state.savedTo ? [`Saved to ${state.savedTo}`] : []),
      ].join("\n");
    case "failed":
      return failureLine(state);
  }
}
