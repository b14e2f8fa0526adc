/** Messages said in more than one place, written once: one wording each for cancel, deny and replaced. */
export const MESSAGES = {
  signInCancelled: "The sign-in was cancelled. Nothing was saved.",
  signInDenied: "The sign-in was denied in the browser (access_denied): sign in again and choose Allow.",
  signInReplaced: "A newer sign-in replaced this one: use the newest link.",
  /** A notebook's next step after a cancel, on the card and from its credentials used later. */
  signInCellAgain: "Run the sign-in cell again.",
  /** Google answers a bad scope, client or redirect with an error page and never comes back. */
  googleErrorPage:
    "If Google shows an error page (such as Error 400: invalid_scope) instead of coming back, this sign-in cannot finish: cancel it, fix what the page names, and sign in again.",
} as const;

/** The cancel's words with why, such as "(kernel interrupt)". */
export function cancelledBecause(why: string): string {
  return `The sign-in was cancelled (${why}). Nothing was saved.`;
}
