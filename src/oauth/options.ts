/** The sign-in options the OAuth flow reads; the public options ({@link UserCredentialsOptions}) extend them. */
export interface OAuthSignInOptions {
  /** OAuth client id. Tool authors must pass their own (see docs/oauth-client.md). */
  clientId?: string;
  /** OAuth client secret, together with `clientId`. */
  clientSecret?: string;
  /**
   * `true`: a loopback server on localhost:8080-8089 receives the browser's redirect; `false`: the user
   * pastes the code shown after sign-in. Unset: chosen for the machine (docs/notebooks.md).
   */
  useLocalWebserver?: boolean;
  /** Where the provider sends the browser back (an organization's endpoint, a remote device). */
  redirectUri?: string;
  /** Pre-selects the account on the sign-in page. */
  loginHint?: string;
  /** Gives up on a sign-in after this many milliseconds (default 300000). */
  timeoutMs?: number;
  /** Cancels a sign-in in progress. */
  signal?: AbortSignal;
  /** Whether to launch a browser. Default: when one can be expected on this machine. */
  openBrowser?: boolean;
}
