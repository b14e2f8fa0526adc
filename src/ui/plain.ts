import { createInterface } from "node:readline";
import { CredCancelledError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import type { Presenter, SignInEvent } from "../oauth/events.js";
import { MESSAGES } from "../messages.js";

/** Where the plain presenter writes and reads. */
export interface PlainPresenterOptions {
  /** Default `process.stderr`: stdout stays clean for the program's own output. */
  output?: NodeJS.WritableStream;
  /** Default `process.stdin`. */
  input?: NodeJS.ReadableStream;
}

/**
 * Shows a sign-in as plain lines on stderr, and reads a pasted code from stdin (a terminal
 * or a pipe). While the loopback flow waits, the browser's final address can be pasted too,
 * when stdin is a terminal. Never writes to stdout.
 */
export function createPlainPresenter(options: PlainPresenterOptions = {}): Presenter {
  const output = options.output ?? process.stderr;
  const input = options.input ?? process.stdin;
  const tty = Boolean((input as { isTTY?: boolean }).isTTY);
  const say = (line: string): void => void output.write(`${line}\n`);
  let waiting = false;
  return {
    update(event: SignInEvent) {
      waiting = event.type === "waiting";
      for (const line of linesFor(event, { canPaste: tty })) say(line);
    },
    readCode(signal: AbortSignal) {
      // A pipe is read only for a code the flow needs; beside the loopback wait it stays untouched.
      if (waiting && !tty) return untilAborted(signal);
      const prompt = waiting ? "Or paste the address here: " : "Enter the authorization code: ";
      return readLine(input, output, prompt, signal);
    },
  };
}

/** Never resolves; rejects when `signal` aborts. */
function untilAborted(signal: AbortSignal): Promise<string> {
  return new Promise((_, reject) => {
    const stop = (): void => reject(new CredCancelledError(MESSAGES.signInCancelled));
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
}

/** The line that says what to copy when the browser is on another machine. */
export const PASTE_BACK_LINE =
  "If the browser is on another machine, it ends on an error page at http://localhost:…: copy that page's whole address from the address bar and paste it here.";

/** The lines shown for one event; `canPaste`: the face reads a pasted address beside the wait. */
export function linesFor(event: SignInEvent, { canPaste = false }: { canPaste?: boolean } = {}): string[] {
  switch (event.type) {
    case "url":
      return [
        ...(event.browserOpened
          ? ["A browser window was opened for the sign-in; if it did not appear, open the URL below."]
          : []),
        `Please visit this URL to authorize this application: ${event.url}`,
      ];
    case "waiting":
      if (event.rejected) return [`Not accepted: ${event.rejected.message}`];
      return [
        "Waiting for the sign-in to complete in the browser...",
        MESSAGES.googleErrorPage,
        ...(event.paste && canPaste ? [PASTE_BACK_LINE] : []),
      ];
    case "code-needed":
      if (event.rejected) return [`Not accepted: ${event.rejected.message}`];
      return [
        "After signing in, copy the code shown and paste it here. The code is a credential like a password: do not share it.",
      ];
    case "signed-in":
      return [
        event.account ? `Signed in as ${event.account}.` : "Signed in.",
        ...(event.savedTo ? [`Credentials saved to ${event.savedTo}.`] : []),
      ];
    case "failed":
      return [];
  }
}

function readLine(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  prompt: string,
  signal: AbortSignal,
): Promise<string> {
  if (signal.aborted) return Promise.reject(new CredCancelledError(MESSAGES.signInCancelled));
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input, output, terminal: Boolean((input as { isTTY?: boolean }).isTTY) });
    let answered = false;
    const onAbort = (): void => {
      answered = true;
      rl.close();
      reject(new CredCancelledError(MESSAGES.signInCancelled));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    rl.once("close", () => {
      signal.removeEventListener("abort", onAbort);
      // A piped stdin that stays open would otherwise keep the process alive after the answer.
      if (input === process.stdin) {
        process.stdin.pause();
        // Not a terminal's: a later prompt (login's "Remember …?") must still keep the process up.
        if (!process.stdin.isTTY) (process.stdin as { unref?: () => void }).unref?.();
      }
      if (!answered)
        reject(
          new CredCredentialsError(
            "No authorization code was entered (the input was closed); run again and paste the code.",
            { code: ERROR_CODES.INVALID_CODE },
          ),
        );
    });
    rl.question(prompt, (answer) => {
      answered = true;
      resolve(answer);
      rl.close();
    });
  });
}
