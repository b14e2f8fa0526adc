/**
 * The sign-in decision, made once per sign-in (credentials/user.ts asks, the flow and the
 * presenter follow): which flow, and whether to launch a browser. The caller's options win;
 * otherwise where the code runs decides.
 */
import type { RuntimeInfo } from "../runtime/detect.js";
import { explicitLocalWebserver, signInMode } from "./mode.js";
import type { OAuthSignInOptions } from "./options.js";

/** How this sign-in runs. */
export interface SignInDecision {
  /** `loopback`: the browser comes back to this machine; `paste`: the user pastes the code. */
  mode: "loopback" | "paste";
  /** Whether to launch a browser (the URL is shown in any case). */
  openBrowser: boolean;
  /** Why, in words (for debug output). */
  reason: string;
}

/** What the decision needs to know about where the code runs. */
export interface SignInSurroundings {
  runtime: Pick<RuntimeInfo, "remote" | "canOpenBrowser">;
  /** Whether a page that shows the code is configured (the copy-paste flow needs one). */
  codePageAvailable: boolean;
}

/**
 * Decides the flow: an explicit `useLocalWebserver` (or its deprecated alias) or `redirectUri`
 * wins; otherwise a remote session (SSH, container, hosted or remote notebook) uses the
 * copy-paste flow when a code page is configured, because the user's browser cannot reach a
 * loopback receiver here. `openBrowser` defaults to what the runtime expects to work.
 */
export function decideSignIn(options: OAuthSignInOptions, where: SignInSurroundings): SignInDecision {
  const openBrowser = options.openBrowser ?? where.runtime.canOpenBrowser;
  const explicit = explicitLocalWebserver(options);
  if (explicit !== undefined || options.redirectUri) {
    const mode = signInMode(options);
    return { mode, openBrowser, reason: `${mode} flow: chosen by the caller's options` };
  }
  if (where.runtime.remote && where.codePageAvailable) {
    return { mode: "paste", openBrowser, reason: "copy-paste flow: the browser is on another machine" };
  }
  const reason = where.runtime.remote
    ? "loopback flow: the browser is on another machine, but no code page is configured"
    : "loopback flow: the browser can reach this machine";
  return { mode: "loopback", openBrowser, reason };
}
