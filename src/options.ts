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
  /**
   * Also ask for `openid` and `https://www.googleapis.com/auth/userinfo.email` (default `true`,
   * as gcloud does), so the account is named on screen and recorded in the saved file.
   * `false` asks for the given scopes only.
   */
  includeAccountScopes?: boolean;
  /**
   * What the call does when its sign-in waits for a code or an address that its face cannot read
   * (a notebook's two-cell sign-in: a remote kernel, or a code page):
   * - `"return"` (the default in tslab and Deno notebooks): returns at once with credentials
   *   that work once `completeSignIn(codeOrAddress)` brought the code in a later cell (before
   *   that they fail with `ERR_SIGN_IN_PENDING`); `saveUserCredentials` writes its file then. The
   *   cell ends normally, so a cell run right after it is not dropped (tslab drops the cells
   *   queued behind a failed one).
   * - `"throw"` (the default with your own `presenter`): throws {@link SignInPendingError}.
   */
  whenPending?: "return" | "throw";
  /**
   * In a notebook, a small "using account X (cached)" note under the cell when cached user
   * credentials are returned (default `true`; the `account-note` setting, `cred-auth config set
   * account-note false`, turns it off for every call that does not say).
   */
  accountNote?: boolean;
  /**
   * Act as a service account, as gcloud's `--impersonate-service-account` does: `"SA"`, or
   * `"DELEGATE,...,SA"` (or the same as an array): the last account is impersonated, through the
   * others in order. The user signs in with the cloud-platform scope and needs the Service
   * Account Token Creator role on the account (each delegate on the next); `scopes` are the
   * service account token's. Failures are `CredCredentialsError`s whose `code` says why.
   */
  impersonateServiceAccount?: string | readonly string[];
}

/** Options of {@link default}. */
export interface DefaultOptions extends UserCredentialsOptions {
  /**
   * Hosted-notebook detection: `true` (default) tries the built-in environments, `false`
   * skips the layer, an array puts these environments ahead of the built-ins.
   */
  hosted?: boolean | readonly HostedEnvironment[];
  /**
   * The universe whose Google services may receive the secrets of an Application Default
   * Credentials file: a file for another universe, or naming a URL outside it, is refused.
   * Default: `GOOGLE_CLOUD_UNIVERSE_DOMAIN`, else `googleapis.com` (docs/security.md).
   */
  universeDomain?: string;
}

/** Options of {@link saveUserCredentials}. */
export interface SaveUserCredentialsOptions extends Omit<UserCredentialsOptions, "credentialsCache"> {
  /**
   * Replace the file at the path whatever it holds. Without it, a file that is neither empty nor
   * user credentials (a service account key, a federation or client-secret file) is refused
   * before any sign-in (`ERR_DESTINATION_TAKEN`); earlier user credentials are replaced as before.
   */
  overwrite?: boolean;
}
