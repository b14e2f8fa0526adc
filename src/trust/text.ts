/**
 * Terminal-safe text: what a user, a file or a server supplied (a path, a universe, a server's
 * words) is printed only through {@link printable}, so an ESC or OSC sequence hidden in it
 * cannot retitle the terminal, hide a line or write a link.
 */
import { withoutUrlCredentials } from "./redact.js";

/**
 * C0 and C1 control characters, DEL, and the Unicode format characters that reorder or hide text
 * (bidirectional overrides and isolates, zero-width joiners, the line and paragraph separators).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's whole job
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** `text` with every control and hiding character written as a visible escape (`\x1b`, `\u202e`). */
export function printable(text: string): string {
  return text.replace(UNSAFE, (char) => {
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/** A path or name as messages quote it: JSON-quoted, then made {@link printable}. */
export function quoted(text: string): string {
  return printable(JSON.stringify(text));
}

/** A server's words are shown whole up to this length; past it, cut at a word (a hostile reply may be long). */
export const MAX_SERVER_WORDS = 1000;

/**
 * A server's words (already scrubbed of what was sent) on one {@link printable} line: every run of
 * white space becomes one space. Kept whole up to {@link MAX_SERVER_WORDS} characters, else cut at
 * the last space before it, never inside a word, and marked with `…`.
 */
export function serverWords(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  if (line.length <= MAX_SERVER_WORDS) return printable(line);
  const cut = line.slice(0, MAX_SERVER_WORDS + 1);
  const space = cut.lastIndexOf(" ");
  return `${printable(space > 0 ? cut.slice(0, space) : cut.slice(0, MAX_SERVER_WORDS))} …`;
}

/**
 * A line of debug output (CRED_AUTH_DEBUG=1: stacks, causes from fetch or the file system) as
 * every other message is shown: {@link printable}, with no URL's user info.
 */
export function debugText(line: string): string {
  return printable(withoutUrlCredentials(line));
}
