import type { CredentialsCache } from "./cache/base.js";
import type { HostedEnvironment } from "./hosted/types.js";
import type { Presenter } from "./ui/presenter.js";

/** How a sign-in is shown: chosen from where the code runs (`auto`), or forced. */
export type PresenterChoice = "auto" | "plain" | "terminal" | "notebook" | Presenter;

/** Options of {@link getUserCredentials} (SPEC 4.1, in camelCase). */
export interface UserCredentialsOptions {
  /** OAuth client id. Tool authors must pass their own (see docs/oauth-client.md). */
  clientId?: string;
  /** OAuth client secret, together with `clientId`. */
  clientSecret?: string;
  /** Where user credentials are cached. Default: {@link cache.READ_WRITE}. */
  credentialsCache?: CredentialsCache;
  /**
   * `true` (default): a loopback server on localhost:8080-8089 receives the browser's redirect.
   * `false`: the user pastes the code shown after sign-in.
   */
  useLocalWebserver?: boolean;
  /** @deprecated Use `useLocalWebserver`; same meaning, warns once. */
  authLocalWebserver?: boolean;
  /** Where the provider sends the browser back (an organization's endpoint, a remote device). */
  redirectUri?: string;
  /** Pre-selects the account on the sign-in page. */
  loginHint?: string;
  /** Gives up on a sign-in after this many milliseconds (default 300000). */
  timeoutMs?: number;
  /** Cancels a sign-in in progress. */
  signal?: AbortSignal;
  /** How the sign-in is shown. Default `auto`. */
  presenter?: PresenterChoice;
  /** Whether to launch a browser. Default: when one can be expected on this machine. */
  openBrowser?: boolean;
  /** Completes a pending sign-in with this code or redirect address (the notebook's second cell). */
  code?: string;
  /**
   * Also ask for `openid` and `https://www.googleapis.com/auth/userinfo.email` (default `true`,
   * as gcloud does), so the account is named on screen and recorded in the saved file.
   * `false` asks for the given scopes only.
   */
  includeAccountScopes?: boolean;
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
