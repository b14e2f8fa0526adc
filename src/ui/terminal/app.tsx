// The ink app of the terminal face. Loaded only by the terminal presenter, after ink and
// React (this module's JSX needs react/jsx-runtime, a CommonJS module).
import { useEffect, useRef, useState, useSyncExternalStore, type JSX } from "react";
import { MESSAGES } from "../../messages.js";
import { PASTE_BACK_LINE } from "../plain.js";
import { describeScopes, PRODUCT_NAME } from "../words.js";
import type { TerminalModules } from "./modules.js";
import type { Store, ViewState } from "../view-state.js";

export interface SignInAppProps {
  store: Store;
  /** The user pressed Enter on a non-empty code. */
  onCode(code: string): void;
  /** The user pressed Ctrl+C. */
  onCancel(): void;
  /** Whether text may be coloured (when the output is a terminal). */
  color: boolean;
}

const SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const SPINNER_INTERVAL_MS = 80;

/**
 * The header and the URL, written once as plain lines above the live part: ink wraps text
 * to the terminal's width, and a URL broken by inserted newlines could not be copied whole.
 */
export function permanentText(state: ViewState, color: boolean): string {
  const bold = (text: string) => (color ? `\u001B[1m${text}\u001B[22m` : text);
  const lines = [bold(`${PRODUCT_NAME} · Sign in to Google Cloud`)];
  const scopes = describeScopes(state.scopes);
  if (scopes.length > 0) lines.push("It asks to:", ...scopes.map((words) => `  • ${words}`));
  lines.push("");
  if (state.mode === "paste") lines.push("Open this link in a browser, sign in, then paste the code the page shows:");
  else if (state.browserOpened)
    lines.push("A browser window was opened to sign in. If it did not appear, open this link:");
  else lines.push("Open this link in a browser to sign in:");
  lines.push(state.url ?? "", "");
  return `${lines.join("\n")}\n`;
}

/** Builds the app's components from the loaded ink modules. */
export function createSignInApp({ ink, TextInput }: TerminalModules): (props: SignInAppProps) => JSX.Element {
  const { Box, Text, useInput, useStdin, useStdout } = ink;

  function Spinner({ label }: { label: string }) {
    const [frame, setFrame] = useState(0);
    useEffect(() => {
      const timer = setInterval(() => setFrame((n) => (n + 1) % SPINNER_FRAMES.length), SPINNER_INTERVAL_MS);
      return () => clearInterval(timer);
    }, []);
    return (
      <Text>
        <Text color="cyan">{SPINNER_FRAMES[frame]}</Text> {label}
      </Text>
    );
  }

  function CodeInput({
    onCode,
    label = "Code:",
    placeholder = "paste the code, then Enter",
  }: {
    onCode(code: string): void;
    label?: string;
    placeholder?: string;
  }) {
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
      <Box flexDirection="column">
        <Text dimColor>The code works like a password: do not share it.</Text>
        {/* A margin, not a trailing space: ink trims that when a long paste wraps ("Code:****"). */}
        <Box>
          <Box flexShrink={0} marginRight={1}>
            <Text bold>{label}</Text>
          </Box>
          <TextInput value={value} onChange={change} mask="*" placeholder={placeholder} />
        </Box>
      </Box>
    );
  }

  /** Beside the spinner: the browser's final address, pasted back from another machine. */
  function PasteBack({ state, onCode }: { state: ViewState; onCode(code: string): void }) {
    return (
      <Box flexDirection="column" marginTop={1}>
        <Text>{PASTE_BACK_LINE}</Text>
        {state.rejected ? <Text color="yellow">Not accepted: {state.rejected}</Text> : null}
        <CodeInput onCode={onCode} label="Address:" placeholder="paste the address, then Enter" />
      </Box>
    );
  }

  function Live({ state, onCode }: { state: ViewState; onCode(code: string): void }) {
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

  return function SignInApp({ store, onCode, onCancel, color }: SignInAppProps) {
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

    return <Live state={state} onCode={onCode} />;
  };
}
