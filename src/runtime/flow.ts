import type { RuntimeInfo } from "./detect.js";

/** The caller's say on the flow; `undefined` leaves the choice to the runtime. */
export interface FlowOptions {
  useLocalWebserver?: boolean;
  /** Deprecated alias of `useLocalWebserver`. */
  authLocalWebserver?: boolean;
  openBrowser?: boolean;
}

/** How a sign-in runs here. */
export interface FlowChoice {
  /** `true`: loopback redirect; `false`: the user pastes a code. */
  useLocalWebserver: boolean;
  /** Whether to launch a browser (the URL is shown in any case). */
  openBrowser: boolean;
  /** Why, in words (for debug output). */
  reason: string;
}

/**
 * Picks the flow: the caller's explicit options win; otherwise a remote session (SSH,
 * container, hosted or remote notebook) uses the copy-paste flow, because the user's browser
 * cannot reach a loopback receiver on this machine.
 */
export function chooseFlow(runtime: RuntimeInfo, options: FlowOptions = {}): FlowChoice {
  const explicit = options.useLocalWebserver ?? options.authLocalWebserver;
  const openBrowser = options.openBrowser ?? runtime.canOpenBrowser;
  if (explicit !== undefined) {
    return { useLocalWebserver: explicit, openBrowser, reason: `useLocalWebserver: ${explicit} (set by the caller)` };
  }
  if (runtime.remote) {
    return { useLocalWebserver: false, openBrowser, reason: "copy-paste flow: the browser is on another machine" };
  }
  return { useLocalWebserver: true, openBrowser, reason: "loopback flow: the browser can reach this machine" };
}
