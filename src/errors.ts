/**
 * The errors this package throws. Every error carries a message that says what went wrong
 * and what to do, never a token, refresh token, client secret, private key or code.
 *
 * @packageDocumentation
 */

/** Options accepted by every cred-auth error. */
export interface CredErrorOptions {
  /** The underlying error, kept for debugging (its message is not repeated). */
  cause?: unknown;
}

/** Base class of every error thrown by cred-auth. */
export class CredAuthError extends Error {
  /** Always `"CredAuthError"`. */
  override name = "CredAuthError";
  constructor(message: string, options?: CredErrorOptions) {
    super(message, options);
  }
}

/**
 * Invalid, expired, revoked or unusable credentials, or a sign-in that did not complete
 * (SPEC: `CredCredentialsError`, a `ValueError` in the original).
 */
export class CredCredentialsError extends CredAuthError {
  /** Always `"CredCredentialsError"`. */
  override name = "CredCredentialsError";
}

/**
 * Credentials could not be fetched because a server could not be reached, answered with a
 * server error or timed out, or no local port was free (a `RuntimeError` in the original).
 */
export class CredConnectionError extends CredAuthError {
  /** Always `"CredConnectionError"`. */
  override name = "CredConnectionError";
}

/** The user or an `AbortSignal` cancelled a sign-in. Nothing was written. */
export class CredCancelledError extends CredAuthError {
  /** Always `"CredCancelledError"`. */
  override name = "CredCancelledError";
}
