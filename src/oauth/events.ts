/**
 * How a sign-in is shown. The OAuth flow (src/oauth) knows no screen: it reports what
 * happens to a presenter, and a presenter knows these events, not OAuth.
 */

/** One step of a sign-in, as reported by the flow. */
export type SignInEvent =
  /** The authorization URL is ready; the presenter shows it (and may offer a button). */
  | {
      /** Discriminates the events. */
      type: "url";
      /** The provider's authorization URL to open. */
      url: string;
      /** `loopback`: the browser comes back by itself; `paste`: the user pastes a code. */
      mode: "loopback" | "paste";
      /** The scopes asked for. */
      scopes: readonly string[];
      /** Whether a browser was launched for the user. */
      browserOpened: boolean;
    }
  /** Waiting for the browser to come back to the loopback receiver. */
  | {
      /** Discriminates the events. */
      type: "waiting";
    }
  /** Copy-paste flow: the code is needed now. */
  | {
      /** Discriminates the events. */
      type: "code-needed";
    }
  /** Signed in. `account` is the e-mail when the provider told it. */
  | {
      /** Discriminates the events. */
      type: "signed-in";
      /** The account's e-mail, when the provider told it. */
      account?: string;
      /** Where the credentials were written, when they were. */
      savedTo?: string;
    }
  /** The sign-in failed or was cancelled. */
  | {
      /** Discriminates the events. */
      type: "failed";
      /** Why: a cred-auth error. */
      error: Error;
    };

/** Shows a sign-in to the user. */
export interface Presenter {
  /** Called for every event, in order. Must not throw. */
  update(event: SignInEvent): void;
  /**
   * Reads a pasted authorization code (or the whole redirect URL). Absent when this
   * presenter cannot prompt (a tslab cell has no stdin): the copy-paste flow then
   * completes through a second call with the code.
   */
  readCode?(signal: AbortSignal): Promise<string>;
  /** Releases the screen (unmounts an ink app, for example). */
  close?(): void | Promise<void>;
}
