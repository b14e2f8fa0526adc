/**
 * How a sign-in is shown. The OAuth flow knows no screen: it reports what
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
  /**
   * Waiting for the browser to come back to the loopback receiver. Sent again, with
   * `rejected`, when a pasted address was refused and the sign-in goes on waiting.
   */
  | {
      /** Discriminates the events. */
      type: "waiting";
      /**
       * The flow also takes the browser's final address pasted back, for a browser on another
       * machine: after sign-in it shows an error page at `http://localhost:PORT/?state=…&code=…`,
       * and that whole address is what to copy. A face that can read offers it beside the
       * spinner (the flow calls `readCode`); one that cannot says to pass it to
       * `completeSignIn(address)`.
       */
      paste?: boolean;
      /** The paste just refused (wrong, used or expired code, another sign-in's address), in words. */
      rejected?: Error;
    }
  /** Copy-paste flow: the code is needed now (again, with `rejected`, after a refused code). */
  | {
      /** Discriminates the events. */
      type: "code-needed";
      /** The code just refused, in words; the face asks again. */
      rejected?: Error;
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
  /**
   * The sign-in failed or was cancelled (a `CredCancelledError`: Ctrl+C, an interrupt, or a
   * newer sign-in that replaced it).
   */
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
   * Reads a pasted authorization code or redirect address: called after `code-needed`, and
   * after `waiting` with `paste` (beside the wait, aborted through `signal` when the browser
   * comes back first). Called again after a refused paste. Absent when this presenter cannot
   * prompt (a tslab cell has no stdin): the sign-in then completes through a second call.
   */
  readCode?(signal: AbortSignal): Promise<string>;
  /**
   * Resolves once every update so far has reached the screen (a kernel whose display is
   * asynchronous): awaited before a cell ends with its sign-in left waiting, so the card it
   * leaves is the waiting one.
   */
  drawn?(): Promise<void>;
  /** Releases the screen (unmounts an ink app, for example). */
  close?(): void | Promise<void>;
}
