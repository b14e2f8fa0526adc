/**
 * Messages said in more than one place, written once. A message said in one place stays there,
 * beside the code that decides to say it.
 */
export const MESSAGES = {
  /** A sign-in ended by its `AbortSignal`, a presenter's cancel or the caller. */
  signInCancelled: "The sign-in was cancelled.",
} as const;
