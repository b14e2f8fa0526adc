import type { JSX } from "react";
import type { ViewState } from "../view-state.js";
import { CodeInput } from "./code-input.js";
import { Spinner } from "./spinner.js";
import { useInk } from "./use-ink.js";

/** A paste that was not accepted, with its code; the input below asks again. */
function Rejected({ words, color }: { words: string; color: boolean }): JSX.Element {
  const { Text } = useInk().ink;
  return <Text {...(color ? { color: "yellow" } : {})}>{words}</Text>;
}

/** The live line or two (spinner, input, result): shorter than any screen, so every frame can be erased. */
export function Live({
  state,
  onCode,
  color,
}: {
  state: ViewState;
  onCode(code: string): void;
  color: boolean;
}): JSX.Element | null {
  const { Box, Text } = useInk().ink;
  switch (state.phase) {
    case "preparing":
      return <Spinner label="Preparing the sign-in…" color={color} />;
    case "waiting":
      return (
        <Box flexDirection="column">
          <Spinner label="Waiting… (Ctrl+C to cancel)" color={color} />
          {state.rejected ? <Rejected words={state.rejected} color={color} /> : null}
          {/* The browser's final address, pasted back from another machine (what to copy is said above). */}
          {state.paste ? <CodeInput onCode={onCode} label="Address:" placeholder="" color={color} /> : null}
        </Box>
      );
    case "code":
      return (
        <Box flexDirection="column">
          {state.rejected ? <Rejected words={state.rejected} color={color} /> : null}
          <CodeInput onCode={onCode} color={color} />
        </Box>
      );
    case "checking":
      return <Spinner label="Checking the code…" color={color} />;
    case "signed-in":
      return (
        <Box flexDirection="column">
          <Text {...(color ? { color: "green" } : {})}>
            ✔ {state.account ? `Signed in as ${state.account}` : "Signed in"}
          </Text>
          {state.savedTo ? <Text>Saved to {state.savedTo}</Text> : null}
        </Box>
      );
    case "failed":
      // The error is thrown to the caller, which reports it (the CLI prints one line with its
      // code): shown here too, it would appear twice. The spinner goes; the words come from there.
      return null;
  }
}
