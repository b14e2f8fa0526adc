import type { ViewState } from "../view-state.js";
import { describeScopes, PRODUCT_NAME } from "../words.js";

/** Rows kept free: the command line above, the live part at its tallest and the cursor's line below. */
const RESERVED_ROWS = 6;

/** How much of the text is written, from all of it to what a short screen must still show. */
const LAYOUTS = [
  { blankLines: true, scopeList: true, scopes: true },
  { blankLines: false, scopeList: true, scopes: true },
  { blankLines: false, scopeList: false, scopes: true },
  { blankLines: false, scopeList: false, scopes: false },
] as const;
type Layout = (typeof LAYOUTS)[number];

/**
 * The text written once above the live part, the URL last and whole (a URL broken by ink could not be
 * copied), broken at spaces; on a short screen optional lines go until it fits, so nothing scrolls off.
 */
export function permanentText(
  state: ViewState,
  color: boolean,
  notes: readonly string[] = [],
  size: { columns?: number | undefined; rows?: number | undefined } = {}, // the terminal's, when it is one
): string {
  const room = size.rows === undefined ? Number.POSITIVE_INFINITY : size.rows - RESERVED_ROWS;
  const layouts = LAYOUTS.map((layout) => lines(state, notes, layout).flatMap((line) => wrap(line, size.columns)));
  const fitting = layouts.find((text) => rowsOf(text, size.columns) <= room) ?? layouts[LAYOUTS.length - 1] ?? [];
  const styled = fitting.map((line) => (color && line.header ? `\u001B[1m${line.text}\u001B[22m` : line.text));
  return `${styled.join("\n")}\n`;
}

/** A line of the text: the URL is never broken (it could not be copied); the header is bold. */
interface Line {
  text: string;
  url?: boolean;
  header?: boolean;
}

/** The text's lines in `layout`, before they are broken to the terminal's width. */
function lines(state: ViewState, notes: readonly string[], layout: Layout): Line[] {
  const text = (words: string): Line => ({ text: words });
  const blank = layout.blankLines ? [text("")] : [];
  const out = [
    ...notes.map((note) => text(`cred-auth: ${note}`)),
    { text: `${PRODUCT_NAME} · Sign in to Google Cloud`, header: true },
  ];
  const scopes = layout.scopes ? describeScopes(state.scopes) : [];
  if (scopes.length > 0 && layout.scopeList) out.push(text("It asks to:"), ...scopes.map((s) => text(`  • ${s}`)));
  else if (scopes.length > 0) out.push(text(`It asks to: ${scopes.map(midSentence).join("; ")}.`));
  out.push(...blank, text(linkLine(state)), { text: state.url ?? "", url: true }, ...blank);
  return out;
}

/** Scope words ("See your primary email address") inside a sentence; a name ("BigQuery") stays. */
const midSentence = (words: string): string =>
  /^[A-Z][a-z ]/.test(words) ? words[0]?.toLowerCase() + words.slice(1) : words;

function linkLine(state: ViewState): string {
  // The spinner, which says how to cancel, is not shown while a code is asked for: this line says it.
  if (state.mode === "paste") return "Open this link, sign in, and paste the code here (Ctrl+C to cancel):";
  const open = state.browserOpened
    ? "A browser window was opened to sign in; if it did not appear, open this link"
    : "Open this link to sign in";
  // What a remote user must paste is said before the URL, so the URL stays next to the input.
  return state.paste ? `${open}; from another machine, paste the address it ends on:` : `${open}:`;
}

/** `line` broken at spaces to `columns`, continuations indented to its bullet; the URL and long words stay whole. */
function wrap(line: Line, columns: number | undefined): Line[] {
  if (line.url || columns === undefined || line.text.length <= columns) return [line];
  const lead = /^\s*(• )?/.exec(line.text)?.[0] ?? "";
  const lines = breakAtSpaces(line.text.slice(lead.length), columns - lead.length);
  return lines.map((text, i) => ({ ...line, text: `${i === 0 ? lead : " ".repeat(lead.length)}${text}` }));
}

/** `text` broken at spaces into lines of at most `width` (a longer word stays whole, on a line of its own). */
export function breakAtSpaces(text: string, width: number): string[] {
  const [first = "", ...words] = text.split(" ");
  const lines: string[] = [];
  let line = first;
  for (const word of words) {
    if (line.length + 1 + word.length <= width) line = `${line} ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  return [...lines, line];
}

/** The rows `text` takes on a terminal `columns` wide (a line longer than that wraps there). */
function rowsOf(text: readonly Line[], columns: number | undefined): number {
  const width = columns === undefined || columns < 1 ? Number.POSITIVE_INFINITY : columns;
  return text.reduce((rows, line) => rows + Math.max(1, Math.ceil(line.text.length / width)), 0);
}
