import { useRef, useState, type JSX } from "react";
import { useInk } from "./use-ink.js";

export interface CodeInputProps {
  /** The user pressed Enter on a non-empty code. */
  onCode(code: string): void;
  label?: string;
  placeholder?: string;
  /** Colour (the cursor's inverse, the grey placeholder); off with NO_COLOR. */
  color: boolean;
}

/**
 * The input for a pasted code or address, shown as typed: it is a single-use code bound to this
 * sign-in's PKCE verifier, and a person checks what they pasted. Enter hands it over.
 */
export function CodeInput({
  onCode,
  label = "Code:",
  placeholder = "paste the code, then Enter",
  color,
}: CodeInputProps): JSX.Element {
  const { ink, TextInput } = useInk();
  const { Box, Text, useInput } = ink;
  const [value, setValue] = useState("");
  // Input handlers are re-attached after each render: Enter right behind a paste could reach
  // a handler holding the value of the render before. The ref always has the latest one.
  const latest = useRef("");
  const change = (next: string) => {
    latest.current = next;
    setValue(next);
  };
  useInput((_input, key) => {
    if (key.return && latest.current.trim() !== "") onCode(latest.current.trim());
  });
  return (
    // A margin, not a trailing space: ink trims that when a long paste wraps.
    <Box>
      <Box flexShrink={0} marginRight={1}>
        <Text bold={color}>{label}</Text>
      </Box>
      <TextInput value={value} onChange={change} placeholder={color ? placeholder : ""} showCursor={color} />
    </Box>
  );
}
