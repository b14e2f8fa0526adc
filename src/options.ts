import type { CredentialsCache } from "./credentials-cache/base.js";
import type { HostedEnvironment } from "./hosted/types.js";
import type { OAuthSignInOptions } from "./oauth/options.js";
import type { PresenterChoice } from "./ui/select.js";

export type { OAuthSignInOptions } from "./oauth/options.js";
export type { PresenterChoice } from "./ui/select.js";

/** Options of {@link getUserCredentials} (the original's keyword arguments, in camelCase). */
export interface UserCredentialsOptions extends OAuthSignInOptions {
  /** Where user credentials are cached. Default: {@link cache.READ_WRITE}. */
  credentialsCache?: CredentialsCache;
  /** How the sign-in is shown. Default `auto`. */
  presenter?: PresenterChoice;
  /** Completes a pending sign-in with this code or redirect address (the notebook's second cell). */
  code?: string;
  /** Also ask for `openid` and the e-mail scope (default `true`, as gcloud) to name the account. */
  includeAccountScopes?: boolean;
  /**
   * When the sign-in waits for a code its face cannot read (a notebook's two-cell sign-in): `"return"` (default in
   * notebooks: tslab drops the cells queued behind a failed one) gives credentials that work once `completeSignIn()`
   * brought the code in a later cell (`ERR_SIGN_IN_PENDING` before); `"throw"` throws {@link SignInPendingError}.
   */
  whenPending?: "return" | "throw";
  /** In a notebook, a "using account X (cached)" note for cached credentials (default: `account-note`). */
  accountNote?: boolean;
  /**
   * Act as a service account, as gcloud's `--impersonate-service-account`: `"SA"` or `"DELEGATE,...,SA"` (or an array).
   * The user needs the Token Creator role on it (each delegate on the next); `scopes` are the service account's.
   */
  impersonateServiceAccount?: string | readonly string[];
}

/** Options of {@link default}. */
export interface DefaultOptions extends UserCredentialsOptions {
  /** Hosted notebooks: `true` (default) the built-in ones, `false` none, an array these first. */
  hosted?: boolean | readonly HostedEnvironment[];
  /**
   * The universe whose services may receive an ADC file's secrets: a file for another, or naming a URL outside it, is
   * refused. Default: `GOOGLE_CLOUD_UNIVERSE_DOMAIN`, else `googleapis.com` (docs/security.md).
   */
  universeDomain?: string;
}

/** Options of {@link saveUserCredentials}. */
export interface SaveUserCredentialsOptions extends Omit<UserCredentialsOptions, "credentialsCache"> {
  /** Replace the file whatever it holds; else only user credentials are (`ERR_DESTINATION_TAKEN`). */
  overwrite?: boolean;
}
