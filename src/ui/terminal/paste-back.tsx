import type { JSX } from "react";
import { PASTE_BACK_LINE } from "../plain.js";
import type { ViewState } from "../view-state.js";
import { CodeInput } from "./code-input.js";
import { useInk } from "./use-ink.js";

/** Beside the spinner: the browser's final address, pasted back from another machine. */
export function PasteBack({ state, onCode }: { state: ViewState; onCode(code: string): void }): JSX.Element {
  const { Box, Text } = useInk().ink;
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text>{PASTE_BACK_LINE}</Text>
      {state.rejected ? <Text color="yellow">Not accepted: {state.rejected}</Text> : null}
      <CodeInput onCode={onCode} label="Address:" placeholder="paste the address, then Enter" />
    </Box>
  );
}
