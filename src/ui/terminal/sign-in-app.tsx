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
  /** Whether text may be coloured (when the output is a terminal). */
  color: boolean;
}

/** The sign-in: the header and URL once as plain lines, then the live part; Ctrl+C cancels. */
export function SignInApp({ modules, store, onCode, onCancel, color }: SignInAppProps): JSX.Element {
  const { useInput, useStdin, useStdout } = modules.ink;
  const state = useSyncExternalStore(store.subscribe, store.get);
  const { write, stdout } = useStdout();
  const { isRawModeSupported } = useStdin();
  const [printedUrl, setPrintedUrl] = useState<string | undefined>(undefined);
  const live = state.phase !== "signed-in" && state.phase !== "failed";

  useEffect(() => {
    if (!state.url || printedUrl === state.url) return;
    write(permanentText(state, color && (stdout as { isTTY?: boolean }).isTTY === true));
    setPrintedUrl(state.url);
  }, [state.url, printedUrl]);

  // Raw mode turns Ctrl+C into input: without this handler it would do nothing at all.
  useInput(
    (input, key) => {
      if (key.ctrl && input === "c") onCancel();
    },
    { isActive: live && isRawModeSupported === true },
  );

  return (
    <InkModules.Provider value={modules}>
      <Live state={state} onCode={onCode} />
    </InkModules.Provider>
  );
}
