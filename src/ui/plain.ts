import { createInterface } from "node:readline";
import { CredCancelledError, CredCredentialsError } from "../errors.js";
import type { Presenter, SignInEvent } from "../oauth/events.js";

/** Where the plain presenter writes and reads. */
export interface PlainPresenterOptions {
  /** Default `process.stderr`: stdout stays clean for the program's own output. */
  output?: NodeJS.WritableStream;
  /** Default `process.stdin`. */
  input?: NodeJS.ReadableStream;
}

/**
 * Shows a sign-in as plain lines on stderr, and reads a pasted code from stdin (a terminal
 * or a pipe). Never writes to stdout.
 */
export function createPlainPresenter(options: PlainPresenterOptions = {}): Presenter {
  const output = options.output ?? process.stderr;
  const input = options.input ?? process.stdin;
  const say = (line: string): void => void output.write(`${line}\n`);
  return {
    update(event: SignInEvent) {
      for (const line of linesFor(event)) say(line);
    },
    readCode(signal: AbortSignal) {
      return readLine(input, output, "Enter the authorization code: ", signal);
    },
  };
}

/** The lines shown for one event. */
export function linesFor(event: SignInEvent): string[] {
  switch (event.type) {
    case "url":
      return [
        ...(event.browserOpened
          ? ["A browser window was opened for the sign-in; if it did not appear, open the URL below."]
          : []),
        `Please visit this URL to authorize this application: ${event.url}`,
      ];
    case "waiting":
      return ["Waiting for the sign-in to complete in the browser..."];
    case "code-needed":
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
  if (signal.aborted) return Promise.reject(new CredCancelledError("The sign-in was cancelled."));
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input, output, terminal: Boolean((input as { isTTY?: boolean }).isTTY) });
    let answered = false;
    const onAbort = (): void => {
      answered = true;
      rl.close();
      reject(new CredCancelledError("The sign-in was cancelled."));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    rl.once("close", () => {
      signal.removeEventListener("abort", onAbort);
      // A piped stdin that stays open would otherwise keep the process alive after the answer.
      if (input === process.stdin) {
        process.stdin.pause();
        (process.stdin as { unref?: () => void }).unref?.();
      }
      if (!answered)
        reject(
          new CredCredentialsError(
            "No authorization code was entered (the input was closed); run again and paste the code.",
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
