/**
 * The notebook face: the sign-in as HTML in the cell's output, updated in place. Under tslab
 * it goes through the kernel's own display (`globalThis.__tslab__.require("tslab")`; a second
 * copy of tslab is "Not ready"). A tslab cell has no stdin: the copy-paste flow completes in a
 * second cell with `completeSignIn(code)`.
 */
import { CredCredentialsError } from "../errors.js";
import type { Presenter, SignInEvent } from "../oauth/events.js";
import { INITIAL_STATE, reduce, type ViewState } from "./view-state.js";
import { describeScopes, PRODUCT_NAME } from "./words.js";

/** The part of tslab's `Display` this face uses. */
export interface NotebookDisplay {
  html(html: string): void;
}

/** The part of the `tslab` module this face uses. */
export interface TslabDisplayModule {
  newDisplay(): NotebookDisplay;
}

/** The running tslab kernel's display module; a clear error outside tslab. */
export function kernelTslab(globals: object = globalThis): TslabDisplayModule {
  const kernel = (globals as { __tslab__?: { require?: (id: string) => unknown } }).__tslab__;
  if (typeof kernel?.require !== "function") {
    throw new CredCredentialsError(
      'The notebook presenter needs a tslab kernel; use presenter: "plain" or "terminal" elsewhere.',
    );
  }
  return kernel.require("tslab") as TslabDisplayModule;
}

/** The second-cell call shown in the copy-paste flow. */
export const COMPLETE_SIGN_IN_CALL = 'await credAuth.completeSignIn("PASTE-THE-CODE-HERE")';

/**
 * A presenter drawing into one updatable notebook display (created at the first event, so
 * nothing shows for a sign-in that never starts). It has no `readCode`: the copy-paste flow
 * then ends the cell and waits for {@link COMPLETE_SIGN_IN_CALL} in another one.
 */
export function createNotebookPresenter(tslab: TslabDisplayModule = kernelTslab()): Presenter {
  let state: ViewState = INITIAL_STATE;
  let display: NotebookDisplay | undefined;
  return {
    update(event: SignInEvent) {
      state = reduce(state, event);
      display = draw(display ?? tslab, state);
      if (state.phase === "code" && display) waitingCard = { display, state };
      // The second cell's presenter: its sign-in is the one the earlier card is waiting for.
      if (event.type === "signed-in" && waitingCard && waitingCard.display !== display && state.url === undefined) {
        draw(waitingCard.display, reduce(waitingCard.state, event));
        waitingCard = undefined;
      }
    },
  };
}

/** The card of the copy-paste sign-in waiting for its code in this kernel, if any. */
let waitingCard: { display: NotebookDisplay; state: ViewState } | undefined;

/** Draws `state` (into a new display the first time); never throws. */
function draw(target: NotebookDisplay | TslabDisplayModule, state: ViewState): NotebookDisplay | undefined {
  try {
    const display = "newDisplay" in target ? target.newDisplay() : target;
    display.html(renderSignInHtml(state));
    return display;
  } catch {
    // A display that cannot draw (kernel shutting down) must not break the sign-in.
    return "newDisplay" in target ? undefined : target;
  }
}

const STATUS_STYLE: Readonly<Record<ViewState["phase"], string>> = {
  preparing: "color:#5f6368",
  waiting: "color:#5f6368",
  code: "color:#202124",
  checking: "color:#5f6368",
  "signed-in": "color:#137333;font-weight:600",
  failed: "color:#c5221f;font-weight:600",
};

/** How the user hands over a pasted code: a second cell (tslab) or the kernel's prompt (Deno). */
export type CodeEntry = "second-cell" | "prompt";

/** The whole sign-in card for `state`; every value from outside is HTML-escaped. */
export function renderSignInHtml(state: ViewState, codeEntry: CodeEntry = "second-cell"): string {
  const parts = [
    `<div style="font-weight:600;font-size:1.1em">${escapeHtml(PRODUCT_NAME)} · Sign in to Google Cloud</div>`,
  ];
  const scopes = describeScopes(state.scopes);
  if (scopes.length > 0) {
    parts.push(
      `<div style="margin-top:4px">It asks to:</div><ul style="margin:4px 0">${scopes.map((words) => `<li>${escapeHtml(words)}</li>`).join("")}</ul>`,
    );
  }
  const done = state.phase === "signed-in" || state.phase === "failed";
  if (state.url && !done) parts.push(signInLink(state.url));
  parts.push(
    `<div data-cred-auth-status="${state.phase}" style="margin-top:8px;${STATUS_STYLE[state.phase]}">${statusHtml(state, codeEntry)}</div>`,
  );
  return `<div class="cred-auth-sign-in" style="font-family:system-ui,sans-serif;border:1px solid #dadce0;border-radius:8px;padding:12px 16px;max-width:720px">${parts.join("")}</div>`;
}

function signInLink(url: string): string {
  if (!/^https?:\/\//i.test(url)) return `<div>Open this address in a browser: <code>${escapeHtml(url)}</code></div>`;
  const href = escapeHtml(url);
  return (
    `<div style="margin:8px 0"><a href="${href}" target="_blank" rel="noopener noreferrer" ` +
    `style="display:inline-block;padding:6px 14px;border-radius:4px;background:#1a73e8;color:#fff;text-decoration:none">Sign in with Google</a></div>` +
    `<div style="font-size:0.85em;color:#5f6368">If the button does not open, copy this address into a browser:<br><code style="word-break:break-all">${href}</code></div>`
  );
}

function statusHtml(state: ViewState, codeEntry: CodeEntry): string {
  switch (state.phase) {
    case "preparing":
      return "Preparing the sign-in…";
    case "waiting":
      return state.browserOpened
        ? "⏳ A browser tab was opened: waiting for the sign-in…"
        : "⏳ Waiting for the sign-in in the browser…";
    case "code":
      return codeEntry === "prompt" ? `${CODE_WARNING} Paste it into the input box below.` : secondCellHelp();
    case "checking":
      return "Checking the code…";
    case "signed-in":
      return [
        `✔ ${state.account ? `Signed in as ${escapeHtml(state.account)}` : "Signed in"}`,
        state.savedTo
          ? `<div style="font-weight:normal;color:#202124">Saved to <code>${escapeHtml(state.savedTo)}</code></div>`
          : "",
      ].join("");
    case "failed":
      return `✖ ${escapeHtml(state.error ?? "The sign-in failed.")}`;
  }
}

const CODE_WARNING = "After signing in, the page shows a code (it works like a password: do not share it).";

function secondCellHelp(): string {
  return (
    `${CODE_WARNING} Copy it, then run in a new cell:<pre style="margin:6px 0">${escapeHtml(COMPLETE_SIGN_IN_CALL)}</pre>` +
    "or run this cell again with the option <code>{ code: &quot;…&quot; }</code>. No kernel restart is needed."
  );
}

/** Escapes text for HTML content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
