import type { CredentialsCache } from "./cache/base.js";
import type { HostedEnvironment } from "./hosted/types.js";
import type { OAuthSignInOptions } from "./oauth/options.js";
import type { PresenterChoice } from "./ui/select.js";

export type { OAuthSignInOptions } from "./oauth/options.js";
export type { PresenterChoice } from "./ui/select.js";

/** Options of {@link getUserCredentials} (SPEC 4.1, in camelCase). */
export interface UserCredentialsOptions extends OAuthSignInOptions {
  /** Where user credentials are cached. Default: {@link cache.READ_WRITE}. */
  credentialsCache?: CredentialsCache;
  /** How the sign-in is shown. Default `auto`. */
  presenter?: PresenterChoice;
  /** Completes a pending copy-paste sign-in with this code (the notebook's second cell). */
  code?: string;
}

/** Options of {@link default}. */
export interface DefaultOptions extends UserCredentialsOptions {
  /**
   * Hosted-notebook detection: `true` (default) tries the built-in environments, `false`
   * skips the layer, an array puts these environments ahead of the built-ins.
   */
  hosted?: boolean | readonly HostedEnvironment[];
}

/** Options of {@link saveUserCredentials}. */
export type SaveUserCredentialsOptions = Omit<UserCredentialsOptions, "credentialsCache">;
