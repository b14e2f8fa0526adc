// One sign-in attempt: the URL to visit and the two ways to complete it (the browser coming back
// to the loopback receiver, or a pasted code or address), as a small object with named states.
import { CredCancelledError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { MESSAGES } from "../messages.js";
import { exchangeCode, type SignInResult } from "./exchange.js";
import { type LoopbackReceiver, startLoopbackReceiver } from "./loopback.js";
import { parsePastedCode } from "./paste.js";
import type { PendingSignIn } from "./pending.js";
import { buildAuthorizationUrl, createPkce, createState, type Pkce } from "./pkce.js";
import type { FlowPlan } from "./plan.js";

/** Prepares a planned sign-in: the loopback port bound (all busy: CredConnectionError), state, PKCE, the URL. */
export async function startSignIn(plan: FlowPlan, signal?: AbortSignal): Promise<PendingSignIn> {
  if (signal?.aborted) throw new CredCancelledError(MESSAGES.signInCancelled);
  const state = createState();
  const { redirect } = plan;
  if (redirect.mode === "paste") return new SignInAttempt(plan, state, redirect.uri, undefined);
  const { ports, host, path } = redirect;
  const receiver = await startLoopbackReceiver({ state, ports, host, path, timeoutMs: plan.timeoutMs, signal });
  return new SignInAttempt(plan, state, receiver.redirectUri, receiver);
}

/** Where an attempt is: open to a code, done (the tokens came), or cancelled (abandoned, with why). */
type AttemptState = { name: "open" } | { name: "done" } | { name: "cancelled"; reason?: string };

/** A sign-in attempt: `open` until its first code is exchanged (`done`: the other racer is told) or abandoned. */
class SignInAttempt implements PendingSignIn {
  readonly url: string;
  readonly mode: "loopback" | "paste";
  readonly redirectUri: string;
  readonly scopes: readonly string[];
  #state: AttemptState = { name: "open" };
  // Secrets stay private: a kernel or a log may print the attempt (SignInPendingError.pending).
  readonly #plan: FlowPlan;
  readonly #oauthState: string;
  readonly #pkce: Pkce = createPkce();
  readonly #receiver: LoopbackReceiver | undefined;

  constructor(plan: FlowPlan, oauthState: string, redirectUri: string, receiver: LoopbackReceiver | undefined) {
    this.#plan = plan;
    this.#oauthState = oauthState;
    this.#receiver = receiver;
    this.mode = plan.redirect.mode;
    this.redirectUri = redirectUri;
    this.scopes = [...plan.scopes];
    this.url = buildAuthorizationUrl({
      endpoints: plan.endpoints,
      clientId: plan.client.clientId,
      redirectUri,
      scopes: this.scopes,
      state: oauthState,
      codeChallenge: this.#pkce.codeChallenge,
      loginHint: plan.loginHint,
    });
  }

  get ended(): "done" | "cancelled" | undefined {
    return this.#state.name === "open" ? undefined : this.#state.name;
  }

  async waitForBrowser(): Promise<SignInResult> {
    this.#assertOpen();
    if (!this.#receiver)
      throw new CredCredentialsError(
        "This is a copy-paste sign-in: no browser comes back to this program; complete it with the code.",
        { code: ERROR_CODES.SIGN_IN_ENDED },
      );
    const callback = await this.#receiver.callback.catch((error: unknown) => {
      throw this.#closedBecause(error);
    });
    try {
      const result = this.#won(await this.#exchange(callback.code));
      callback.finish({ ok: true });
      return result;
    } catch (error) {
      this.cancel(); // a refused browser code ends the attempt (a pasted one may be retried)
      callback.finish({ ok: false, message: "The sign-in could not be completed; see the program's message." });
      throw error;
    }
  }

  async exchangeCode(codeOrUrl: string): Promise<SignInResult> {
    this.#assertOpen();
    const result = this.#won(await this.#exchange(parsePastedCode(codeOrUrl, this.#oauthState)));
    this.#receiver?.close(); // the browser will not come back now: free the port
    return result;
  }

  owns(pasted: string): boolean {
    return stateOf(pasted) === this.#oauthState;
  }

  /** open -> cancelled, with why; the receiver closes either way. */
  cancel(reason?: string): void {
    if (this.#state.name === "open") this.#state = { name: "cancelled", reason };
    this.#receiver?.close();
  }

  /** open -> done, for the first exchange to succeed (the other finds the attempt ended). */
  #won(result: SignInResult): SignInResult {
    this.#assertOpen();
    this.#state = { name: "done" };
    return result;
  }

  #assertOpen(): void {
    const state = this.#state;
    if (state.name === "done")
      throw new CredCredentialsError("This sign-in is already complete; start a new one.", {
        code: ERROR_CODES.SIGN_IN_ENDED,
      });
    if (state.name === "cancelled") throw new CredCancelledError(state.reason ?? MESSAGES.signInCancelled);
  }

  /** The receiver closed because the attempt was cancelled (or replaced): say why, not just "cancelled". */
  #closedBecause(error: unknown): unknown {
    const state = this.#state;
    return error instanceof CredCancelledError && state.name === "cancelled" && state.reason
      ? new CredCancelledError(state.reason)
      : error;
  }

  #exchange(code: string): Promise<SignInResult> {
    const { endpoints, client } = this.#plan;
    return exchangeCode({
      endpoints,
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      code,
      codeVerifier: this.#pkce.codeVerifier,
      redirectUri: this.redirectUri,
      requestedScopes: this.scopes,
    });
  }
}

/** The `state` of a pasted redirect address or query string, if it has one. */
function stateOf(pasted: string): string | undefined {
  const text = pasted.trim();
  try {
    const query = /^https?:\/\//i.test(text)
      ? new URL(text).searchParams
      : new URLSearchParams(text.replace(/^\?/, ""));
    return query.get("state") ?? undefined;
  } catch {
    return undefined;
  }
}
