// Terminal-safe text: what a user, a file or a server supplied is printed only through printable(),
// so an escape sequence hidden in it cannot retitle the terminal, hide a line or write a link.
import { CredConnectionError, ERROR_CODES } from "../errors.js";
import { withoutUrlCredentials } from "./redact.js";

/** C0 and C1 controls, DEL, and the format characters that reorder or hide text (bidi, zero-width, separators). */
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

/** A server's scrubbed words on one printable line, cut at a space before MAX_SERVER_WORDS characters and marked `…`. */
export function serverWords(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  if (line.length <= MAX_SERVER_WORDS) return printable(line);
  const cut = line.slice(0, MAX_SERVER_WORDS + 1);
  const space = cut.lastIndexOf(" ");
  return `${printable(space > 0 ? cut.slice(0, space) : cut.slice(0, MAX_SERVER_WORDS))} …`;
}

/** A line of debug output (CRED_AUTH_DEBUG=1) as every message is shown: printable, without a URL's user info. */
export function debugText(line: string): string {
  return printable(withoutUrlCredentials(line));
}

/** The longest token printed (Google's access and ID tokens are 2 KiB at most). */
export const MAX_TOKEN_LENGTH = 16 * 1024;

/** A token as a server must answer it: visible ASCII only (RFC 6750's token characters and more), no white space. */
const TOKEN = /^[\x21-\x7e]+$/;

/** Whether `text` is a token as a server must answer one: visible ASCII, at most {@link MAX_TOKEN_LENGTH} long. */
export function isToken(text: string): boolean {
  return text.length <= MAX_TOKEN_LENGTH && TOKEN.test(text);
}

/**
 * `token` when it is a token (visible ASCII, at most MAX_TOKEN_LENGTH), else a coded error showing
 * nothing of it: an escape code or CR LF would reach a terminal, or add a line to `--format header`.
 */
export function checkedToken(token: string, what: string): string {
  if (isToken(token)) return token;
  throw new CredConnectionError(
    `The server answered ${what} that is not a token (it holds white space, control characters or other text, or is too long); cred-auth printed none of it. Check the token URL the credentials name.`,
    { code: ERROR_CODES.TOKEN_MALFORMED },
  );
}

/** What {@link UNSAFE} finds that JSON leaves raw: all but C0, which JSON writes as escapes (and its own line breaks). */
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** JSON of `value` with every character printable() escapes written as `\\uXXXX`: the same data, nothing hidden. */
export function safeJson(value: unknown, indent?: number): string {
  return (JSON.stringify(value, null, indent) ?? "null").replace(
    JSON_UNSAFE,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
