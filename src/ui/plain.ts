import { closeSync, openSync } from "node:fs";
import { createInterface } from "node:readline";
import { ReadStream, WriteStream } from "node:tty";
import { CredCancelledError } from "../errors.js";
import type { Presenter, SignInEvent } from "../oauth/events.js";
import { MESSAGES } from "../messages.js";
import type { PromptDevice } from "./face-plan.js";
import { INITIAL_STATE, reduce, refusalLine, untilAborted } from "./view-state.js";
import { inputClosedError } from "./words.js";

export interface PlainPresenterOptions {
  /** Default `process.stderr`: stdout stays clean for the program's own output. */
  output?: NodeJS.WritableStream;
  /** Default `process.stdin`. */
  input?: NodeJS.ReadableStream;
  /** Where a code is asked for (the plan decides): `stderr`, `tty` (/dev/tty, when stderr is a log), `stdin` (a pipe). */
  prompt?: PromptDevice;
  /** Lines shown first: the emulator, unknown scopes. */
  notes?: readonly string[];
  /** Opens the controlling terminal (default /dev/tty); for the `tty` prompt. */
  openTerminal?: () => Terminal | undefined;
}

/** The controlling terminal, opened for a conversation that must not reach a redirected stderr. */
export interface Terminal {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
  close(): void;
}

/** A sign-in as plain lines on stderr; a pasted code read cooked from the terminal (its own echo and Ctrl+C) or a pipe. */
export function createPlainPresenter(options: PlainPresenterOptions = {}): Presenter {
  // Without a plan: the terminal when stdin is one, else the pipe.
  const device = options.prompt ?? (isTty(options.input ?? process.stdin) ? "stderr" : "stdin");
  const terminal = device === "tty" ? (options.openTerminal ?? openControllingTerminal)() : undefined;
  // With the controlling terminal open, the whole conversation goes there, where the person is.
  const output = terminal?.output ?? options.output ?? process.stderr;
  const input = terminal?.input ?? options.input ?? process.stdin;
  const interactive = terminal !== undefined || (device === "stderr" && isTty(input));
  const say = (line: string): void => void output.write(`${line}\n`);
  for (const note of options.notes ?? []) say(`cred-auth: ${note}`);
  let state = INITIAL_STATE;
  return {
    update(event: SignInEvent) {
      state = reduce(state, event);
      // The error's line is the caller's to print (the CLI's last line); only a conversation held
      // on the terminal, away from stderr, ends with it there too.
      if (event.type === "failed") {
        if (terminal) say(`cred-auth: ${state.error}`);
        return;
      }
      for (const line of linesFor(event, { canPaste: interactive })) say(line);
    },
    readCode(signal: AbortSignal) {
      // A pipe is read only for a code the flow needs; beside the loopback wait it stays untouched.
      if (state.phase === "waiting" && !interactive) return untilAborted(signal);
      const prompt = state.phase === "waiting" ? "Or paste the address here: " : "Enter the authorization code: ";
      if (!interactive) say(prompt.trim());
      return readLine({ input, output: interactive ? output : undefined, prompt, signal });
    },
    close() {
      terminal?.close();
    },
  };
}

function isTty(stream: NodeJS.ReadableStream): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/** /dev/tty, for reading and writing (as ssh and sudo prompt); undefined when there is none (Windows, no terminal). */
export function openControllingTerminal(): Terminal | undefined {
  let readFd: number | undefined;
  try {
    readFd = openSync("/dev/tty", "r");
    const writeFd = openSync("/dev/tty", "w");
    const input = new ReadStream(readFd);
    const output = new WriteStream(writeFd);
    return {
      input,
      output,
      close() {
        input.destroy();
        output.destroy();
      },
    };
  } catch {
    if (readFd !== undefined) closeSync(readFd);
    return undefined;
  }
}

/** The line that says what to copy when the browser is on another machine. */
export const PASTE_BACK_LINE =
  "If the browser is on another machine, it ends on an error page at http://localhost:…: copy its whole address and paste it here.";

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
      if (event.rejected) return [refusalLine(event.rejected)];
      return [
        "Waiting for the sign-in to complete in the browser...",
        ...(event.paste && canPaste ? [PASTE_BACK_LINE] : []),
      ];
    case "code-needed":
      if (event.rejected) return [refusalLine(event.rejected)];
      return ["After signing in, copy the code shown and paste it here (it works only for this sign-in)."];
    case "signed-in":
      return [
        event.account ? `Signed in as ${event.account}.` : "Signed in.",
        ...(event.savedTo ? [`Credentials saved to ${event.savedTo}.`] : []),
      ];
    case "failed":
      return [];
  }
}

interface LineRequest {
  input: NodeJS.ReadableStream;
  /** Where the prompt goes (the terminal, which echoes what is typed); undefined: no prompt. */
  output: NodeJS.WritableStream | undefined;
  prompt: string;
  signal: AbortSignal;
}

/** One line from `input`, cooked (the terminal's echo and Ctrl+C); its end or the signal's abort ends the sign-in. */
function readLine({ input, output, prompt, signal }: LineRequest): Promise<string> {
  if (signal.aborted) return Promise.reject(new CredCancelledError(MESSAGES.signInCancelled));
  // A stream that already ended never emits "end" again: a second sign-in must not wait for it.
  const closed = () => inputClosedError(isTty(input));
  if ((input as { readableEnded?: boolean }).readableEnded) return Promise.reject(closed());
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input, ...(output ? { output } : {}), terminal: false });
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      outcome();
      rl.close();
    };
    const onAbort = (): void =>
      settle(() => {
        output?.write("\n"); // the prompt's line ends (after the terminal's own ^C), so what follows starts a line
        reject(new CredCancelledError(MESSAGES.signInCancelled));
      });
    signal.addEventListener("abort", onAbort, { once: true });
    rl.once("close", () => {
      signal.removeEventListener("abort", onAbort);
      releaseStdin(input);
      settle(() => {
        output?.write("\n"); // Ctrl+D echoes no line end: what follows starts a line of its own
        reject(closed());
      });
    });
    rl.on("line", (answer) => settle(() => resolve(answer)));
    if (output) rl.setPrompt(prompt);
    if (output) rl.prompt();
  });
}

/** A piped stdin that stays open would keep the process alive after the answer. */
function releaseStdin(input: NodeJS.ReadableStream): void {
  if (input !== process.stdin) return;
  process.stdin.pause();
  // Not a terminal's: a later prompt (login's "Remember …?") must still keep the process up.
  if (!process.stdin.isTTY) (process.stdin as { unref?: () => void }).unref?.();
}
