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
    // A paste with its line end, or Enter typed in the same read as the text, reaches the input
    // as one chunk that ends in "\r" (ink splits no key out of text): the line ends there, as in
    // a cooked terminal, and is handed over.
    const end = next.search(/[\r\n]/);
    const line = end < 0 ? next : next.slice(0, end);
    latest.current = line;
    setValue(line);
    if (end >= 0 && line.trim() !== "") onCode(line.trim());
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
