// What the OAuth flow is told, as plain values: credentials/sign-in/plan.ts decides; the flow reads nothing.
import type { Endpoints } from "../protocols/endpoints.js";
import type { BrowserLaunch } from "../os/browser.js";
import type { ResolvedClient } from "./client.js";

/** How long a sign-in waits for the user by default: 5 minutes. */
export const DEFAULT_TIMEOUT_MS = 300_000;

export interface PortRange {
  first: number;
  last: number;
}

/** Where a loopback receiver listens: `localhost` (127.0.0.1 and ::1), or one address. */
export type LoopbackHost = "localhost" | "127.0.0.1" | "::1";

/** The browser comes back to a receiver on this machine (`http://HOST:PORT/PATH`). */
export interface LoopbackRedirect {
  readonly mode: "loopback";
  readonly host: LoopbackHost;
  /** Ports tried in order: the first free one is used. */
  readonly ports: PortRange;
  readonly path: string;
}

/** The browser lands on a page that shows the code, which the user pastes (copy-paste flow). */
export interface CodePageRedirect {
  readonly mode: "paste";
  /** The page's address, the redirect URI of the sign-in. */
  readonly uri: string;
}

/** A sign-in's flow, decided: what {@link startSignIn} and {@link signIn} need (oauth/flow.ts). */
export interface FlowPlan {
  readonly scopes: readonly string[];
  readonly endpoints: Endpoints;
  readonly client: ResolvedClient;
  /** Where the browser is sent back: the loopback receiver, or a code page. */
  readonly redirect: LoopbackRedirect | CodePageRedirect;
  /** Loopback: `true` when the browser is probably elsewhere (its final address pasted back); undefined: no verdict. */
  readonly pasteBack: boolean | undefined;
  /** Whether and how to launch a browser for the URL (always shown as well). */
  readonly browser: BrowserLaunch;
  readonly timeoutMs: number;
  /** Pre-selects the account on the sign-in page. */
  readonly loginHint?: string;
  /** Ask the token server about the client before the browser opens (oauth/client-check.ts): fail before, not after. */
  readonly checkClient: boolean;
}
