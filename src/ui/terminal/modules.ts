// ink and ink-text-input are ESM-only and heavy: their types only here, their code loaded on use.
export type InkModule = typeof import("ink", { with: { "resolution-mode": "import" }});
export type TextInputModule = typeof import("ink-text-input", { with: { "resolution-mode": "import" }});
export type ReactModule = typeof import("react");

/** The modules the terminal face draws with, loaded the first time it is used. */
export interface TerminalModules {
  ink: InkModule;
  react: ReactModule;
  TextInput: TextInputModule["default"];
}

let loading: Promise<TerminalModules> | undefined;

/** Loads ink, React and ink-text-input once. */
export function loadTerminalModules(): Promise<TerminalModules> {
  loading ??= Promise.all([import("ink"), import("react"), import("ink-text-input")]).then(
    ([ink, react, textInput]) => ({
      ink,
      react: (react as ReactModule & { default?: ReactModule }).default ?? react,
      TextInput: textInput.default,
    }),
  );
  return loading;
}
