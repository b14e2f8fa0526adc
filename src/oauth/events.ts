// How a sign-in is shown: the flow reports these events to a presenter, which knows them and not OAuth.

/** One step of a sign-in, as reported by the flow. */
export type SignInEvent =
  /** The authorization URL is ready; the presenter shows it (and may offer a button). */
  | {
      /** Tells the events apart. */
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
  /** Waiting for the browser to come back (again, with `rejected`, after a refused paste). */
  | {
      /** Tells the events apart. */
      type: "waiting";
      /** The browser's final address (`http://localhost:PORT/?state=…`) may be pasted back (readCode, completeSignIn). */
      paste?: boolean;
      /** The paste just refused (wrong, used or expired code, another sign-in's address), in words. */
      rejected?: Error;
    }
  /** Copy-paste flow: the code is needed now (again, with `rejected`, after a refused code). */
  | {
      /** Tells the events apart. */
      type: "code-needed";
      /** The code just refused, in words; the face asks again. */
      rejected?: Error;
    }
  /** Signed in. `account` is the e-mail when the provider told it. */
  | {
      /** Tells the events apart. */
      type: "signed-in";
      /** The account's e-mail, when the provider told it. */
      account?: string;
      /** Where the credentials were written, when they were. */
      savedTo?: string;
    }
  /** The sign-in failed, or was cancelled (a `CredCancelledError`: Ctrl+C, an interrupt, a newer sign-in). */
  | {
      /** Tells the events apart. */
      type: "failed";
      /** Why: a cred-auth error. */
      error: Error;
      /** The call that shows this face throws `error` too (a notebook cell prints it under the card): say it once. */
      thrown?: boolean;
    };

/** Shows a sign-in to the user. */
export interface Presenter {
  /** Called for every event, in order. Must not throw. */
  update(event: SignInEvent): void;
  /**
   * Reads a pasted code or address, after `code-needed` or beside a `waiting` with `paste` (aborted when the
   * browser comes first). Absent when the face cannot prompt: a second call (`completeSignIn`) completes it.
   */
  readCode?(signal: AbortSignal): Promise<string>;
  /** Resolves once every update so far was sent (Deno's display is asynchronous), before a prompt or a cell's end. */
  drawn?(): Promise<void>;
  /** Releases the screen (unmounts an ink app, for example). */
  close?(): void | Promise<void>;
}
