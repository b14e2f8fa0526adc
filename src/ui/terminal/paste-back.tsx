import type { JSX } from "react";
import { CodeInput } from "./code-input.js";

/** Beside the spinner: the browser's final address, pasted back from another machine (what to copy is said above). */
export function PasteBack({ onCode, color }: { onCode(code: string): void; color: boolean }): JSX.Element {
  return <CodeInput onCode={onCode} label="Address:" placeholder="" color={color} />;
}
