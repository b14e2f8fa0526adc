// One question at a time at an interactive terminal: questions on stderr, answers from stdin.
// `config init` and `revoke` ask through it.
import { CredCancelledError } from "../errors.js";

/** A terminal to ask questions at, line by line. */
export interface TerminalPrompt {
  /** One line typed at the terminal; Ctrl+C or a closed input cancels (CredCancelledError with `cancelled`). */
  ask(question: string): Promise<string>;
  close(): void;
}

/** Opens the prompt; `cancelled` is what a cancelled question says (CredCancelledError's message). */
export async function terminalPrompt(cancelled: string): Promise<TerminalPrompt> {
  const { createInterface } = await import("node:readline/promises");
  const lines = createInterface({ input: process.stdin, output: process.stderr });
  const cancel = new AbortController();
  lines.once("SIGINT", () => cancel.abort());
  lines.once("close", () => cancel.abort());
  return {
    async ask(question) {
      try {
        return await lines.question(question, { signal: cancel.signal });
      } catch (error) {
        if (cancel.signal.aborted) throw new CredCancelledError(cancelled, { cause: error });
        throw error;
      }
    },
    close: () => lines.close(),
  };
}
