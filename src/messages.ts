/**
 * Messages said in more than one place, written once. A message said in one place stays there,
 * beside the code that decides to say it.
 */
export const MESSAGES = {
  /** A sign-in ended by its `AbortSignal`, a presenter's cancel or the caller. */
  signInCancelled: "The sign-in was cancelled. Nothing was saved.",
  /**
   * Every face while it waits for the browser: Google answers a bad scope, client or redirect
   * with an error page and never comes back, so the wait would last the whole timeout.
   */
  googleErrorPage:
    "If the browser shows an error from Google instead of coming back (such as Error 400: invalid_scope or redirect_uri_mismatch), this sign-in cannot finish: stop it, fix what Google's page names, and sign in again.",
} as const;
