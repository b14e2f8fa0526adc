import type { JSX } from "react";
import { MESSAGES } from "../../messages.js";
import type { ViewState } from "../view-state.js";
import { CodeInput } from "./code-input.js";
import { PasteBack } from "./paste-back.js";
import { Spinner } from "./spinner.js";
import { useInk } from "./use-ink.js";

/** The part of the face that changes with the sign-in: spinner, code input, result. */
export function Live({ state, onCode }: { state: ViewState; onCode(code: string): void }): JSX.Element | null {
  const { Box, Text } = useInk().ink;
  switch (state.phase) {
    case "preparing":
      return <Spinner label="Preparing the sign-in…" />;
    case "waiting":
      return (
        <Box flexDirection="column">
          <Spinner label="Waiting for the sign-in in the browser… (Ctrl+C to cancel)" />
          <Text dimColor>{MESSAGES.googleErrorPage}</Text>
          {state.paste ? <PasteBack state={state} onCode={onCode} /> : null}
        </Box>
      );
    case "code":
      return (
        <Box flexDirection="column">
          {state.rejected ? <Text color="yellow">Not accepted: {state.rejected}</Text> : null}
          <CodeInput onCode={onCode} />
        </Box>
      );
    case "checking":
      return <Spinner label="Checking the code…" />;
    case "signed-in":
      return (
        <Box flexDirection="column">
          <Text color="green">✔ {state.account ? `Signed in as ${state.account}` : "Signed in"}</Text>
          {state.savedTo ? <Text>Saved to {state.savedTo}</Text> : null}
        </Box>
      );
    case "failed":
      // The error is thrown to the caller, which reports it (the CLI prints one line): shown
      // here too, it would appear twice. The spinner goes; the words come once, from there.
      return null;
  }
}
