// What the command line prints, and its exit codes. Errors are one line on stderr, from our own
// error classes only (their messages never hold a secret); stacks only with CRED_AUTH_DEBUG=1.
import { writeSync } from "node:fs";
import { CredAuthError, CredCancelledError, CredConnectionError } from "../errors.js";
import { debugText, printable } from "../trust/text.js";
import { debugEnabled } from "../shared/constants.js";
import { UsageError } from "./command.js";

export const EXIT = { ok: 0, credentials: 1, usage: 2, connection: 3, cancelled: 130 } as const;

/** The exit code for an error: 2 usage, 3 connection, 130 cancelled, 1 anything else. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof CredCancelledError) return EXIT.cancelled;
  if (error instanceof CredConnectionError) return EXIT.connection;
  return EXIT.credentials;
}

/** Prints `cred-auth: MESSAGE` on stderr (and, under CRED_AUTH_DEBUG=1, the stack and causes). */
export function reportError(error: unknown): void {
  // Messages quote paths, URLs and servers' words: no control character reaches the terminal raw.
  process.stderr.write(`cred-auth: ${printable(errorLine(error))}\n`);
  if (debugEnabled()) process.stderr.write(debugDetails(error));
}

/** The one line that describes `error` to the user. */
export function errorLine(error: unknown): string {
  if (error instanceof UsageError) {
    const help = error.command ? `cred-auth ${error.command} --help` : "cred-auth --help";
    return `${oneLine(error.message)} (see ${help})`;
  }
  // The code last: what to do is read first, the code is what to search for (troubleshooting.md).
  if (error instanceof CredAuthError) return `${oneLine(error.message)} (${error.code})`;
  const fsError = describeSystemError(error);
  if (fsError) return fsError;
  const name = error instanceof Error && /^[A-Za-z]{1,40}$/.test(error.name) ? error.name : "error";
  return `unexpected ${name}; run again with CRED_AUTH_DEBUG=1 to see details`;
}

/**
 * Writes `text` to fd 1 (creating `process.stdout` costs milliseconds of print-token's ~30); returns 0. EPIPE (a
 * reader that stopped) ends the process quietly; only a full non-blocking stdout (EAGAIN) uses the stream.
 */
export function writeOut(text: string): number {
  if (stdoutStream) return writeToStream(text);
  const bytes = Buffer.from(text);
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(1, bytes, written);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EPIPE") process.exit(typeof process.exitCode === "number" ? process.exitCode : EXIT.ok);
    if (code !== "EAGAIN") throw error;
    return writeToStream(bytes.subarray(written));
  }
  return EXIT.ok;
}

let stdoutStream = false;

/** Notes that a command writes to `process.stdout` itself, so the exit waits for it to drain. */
export function noteStdoutStream(): void {
  stdoutStream = true;
}

/** Whether `process.stdout` holds output not yet written (only after a fallback to the stream). */
export function stdoutPending(): boolean {
  return stdoutStream && process.stdout.writableLength > 0;
}

function writeToStream(text: string | Uint8Array): number {
  stdoutStream = true;
  guardStdout();
  process.stdout.write(text);
  return EXIT.ok;
}

let guarded = false;

/** A reader that stops early (`| head -c1`) closes the pipe: end quietly, not with a stack. */
export function guardStdout(): void {
  if (guarded) return;
  guarded = true;
  stdoutStream = true;
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(typeof process.exitCode === "number" ? process.exitCode : EXIT.ok);
    process.exit(EXIT.credentials);
  });
  process.stderr.on("error", () => {});
}

function oneLine(message: string): string {
  return message.replace(/\s*[\r\n]+\s*/g, " ").trim();
}

/** Node's own I/O errors (e.g. a destination we could not write) name a path and a code, never content. */
function describeSystemError(error: unknown): string | undefined {
  const e = error as NodeJS.ErrnoException | undefined;
  if (!(e instanceof Error) || typeof e.code !== "string" || typeof e.syscall !== "string") return undefined;
  const where = typeof e.path === "string" ? ` ${JSON.stringify(e.path)}` : "";
  return `${e.syscall}${where} failed: ${e.code}`;
}

function debugDetails(error: unknown): string {
  const lines: string[] = [];
  for (
    let e: unknown = error, depth = 0;
    e !== undefined && e !== null && depth < 6;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const text = e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e);
    lines.push(depth === 0 ? text : `caused by: ${text}`);
  }
  // Causes come from other code (fetch, the file system): a path's escape codes or a URL's password
  // are shown as every other message shows them, line by line.
  return `${lines
    .flatMap((line) => line.split("\n"))
    .map(debugText)
    .join("\n")}\n`;
}
