// The ink app of the terminal face: loaded by the terminal presenter only, after ink and React
// (its JSX needs react/jsx-runtime, a CommonJS module). One component per file, as ink's are.
import { useEffect, useState, useSyncExternalStore, type JSX } from "react";
import type { Store } from "../view-state.js";
import { Live } from "./live.js";
import type { TerminalModules } from "./modules.js";
import { permanentText } from "./permanent-text.js";
import { InkModules } from "./use-ink.js";

export interface SignInAppProps {
  /** ink, React and ink-text-input, loaded: handed to every component below. */
  modules: TerminalModules;
  store: Store;
  /** The user pressed Enter on a non-empty code. */
  onCode(code: string): void;
  /** The user pressed Ctrl+C. */
  onCancel(): void;
  /** The user pressed Ctrl+D (end of input), as the plain face's EOF. */
  onEndOfInput(): void;
  /** Whether text may be coloured or styled (off with NO_COLOR, and when the output is no terminal). */
  color: boolean;
  /** The plan's notes, written first with the header. */
  notes: readonly string[];
}

/** The sign-in: the notes, header and URL once as plain lines, then the live part; Ctrl+C cancels. */
export function SignInApp({
  modules,
  store,
  onCode,
  onCancel,
  onEndOfInput,
  color,
  notes,
}: SignInAppProps): JSX.Element {
  const { useInput, useStdin, useStdout } = modules.ink;
  const state = useSyncExternalStore(store.subscribe, store.get);
  const { write, stdout } = useStdout();
  const { isRawModeSupported } = useStdin();
  const [printedUrl, setPrintedUrl] = useState<string | undefined>(undefined);
  const live = state.phase !== "signed-in" && state.phase !== "failed";
  const terminal = stdout as { isTTY?: boolean; columns?: number; rows?: number };
  const styled = color && terminal.isTTY === true;

  useEffect(() => {
    if (!state.url || printedUrl === state.url) return;
    write(permanentText(state, styled, notes, { columns: terminal.columns, rows: terminal.rows }));
    setPrintedUrl(state.url);
  }, [state.url, printedUrl]);

  // Raw mode turns Ctrl+C into input: without this handler it would do nothing at all.
  useInput(
    (input, key) => {
      if (key.ctrl && input === "c") onCancel();
      // Raw mode turns Ctrl+D into input too: the end of input, as a cooked terminal's EOF.
      if (key.ctrl && input === "d") onEndOfInput();
    },
    { isActive: live && isRawModeSupported === true },
  );

  return (
    <InkModules.Provider value={modules}>
      <Live state={state} onCode={onCode} color={styled} />
    </InkModules.Provider>
  );
}
