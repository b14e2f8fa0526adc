// Constants shared by the library and the emulator: the emulator imports nothing else from the
// library, so it stays an independent party in tests.

/** The broad scope used when none is given (the CLI's default). */
export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";

/** Loopback ports tried in order for the local redirect receiver. */
export const LOOPBACK_PORTS = { first: 8080, last: 8089 } as const;

export const GOOGLE_ENDPOINTS = {
  authUrl: "https://accounts.google.com/o/oauth2/v2/auth",
  tokenUrl: "https://oauth2.googleapis.com/token",
  revokeUrl: "https://oauth2.googleapis.com/revoke",
  tokenInfoUrl: "https://oauth2.googleapis.com/tokeninfo",
} as const;

/** Paths the emulator serves, relative to its base URL. */
export const EMULATOR_PATHS = {
  auth: "/o/oauth2/v2/auth",
  token: "/token",
  revoke: "/revoke",
  tokenInfo: "/tokeninfo",
  /** Shows a received `?code=` for the copy-paste flow. */
  codePage: "/oauth/code",
  metadata: "/computeMetadata/v1",
  /** The keys that sign ID tokens: `{kid: PEM certificate}` (Google's https://www.googleapis.com/oauth2/v1/certs). */
  pemCerts: "/oauth2/v1/certs",
  /** The same keys as a JWK set (Google's https://www.googleapis.com/oauth2/v3/certs). */
  jwkCerts: "/oauth2/v3/certs",
  /** Protected services that need an ID token: `/run/NAME/...` (the service's URL is `/run/NAME`). */
  run: "/run",
  /** Test controls: stats, fault injection, revocation. */
  admin: "/__emulator",
  /** AWS's EC2 instance metadata service (IMDS, http://169.254.169.254/...) as the emulator plays it. */
  awsImds: "/aws-imds",
} as const;

/** A demo OAuth client that only the emulator accepts: the quick start and tests run with no Google project. */
export const DEMO_CLIENT = {
  clientId: "cred-auth-demo.apps.emulator.invalid",
  clientSecret: "cred-auth-demo-secret-emulator-only",
} as const;

/** A demo "web" client (copy-paste flow) that only the emulator accepts. */
export const DEMO_WEB_CLIENT = {
  clientId: "cred-auth-demo-web.apps.emulator.invalid",
  clientSecret: "cred-auth-demo-web-secret-emulator-only",
} as const;

export const ENV = {
  /** `host:port` of a running emulator; points every OAuth endpoint at it. */
  emulatorHost: "CRED_AUTH_EMULATOR_HOST",
  clientId: "CRED_AUTH_CLIENT_ID",
  clientSecret: "CRED_AUTH_CLIENT_SECRET",
  clientSecretFile: "CRED_AUTH_CLIENT_SECRET_FILE",
  /** `off` (`0`, `false`, `no`): the emulator offers no code page, as Google for a Desktop client (`--no-code-page`). */
  emulatorCodePage: "CRED_AUTH_EMULATOR_CODE_PAGE",
  /** `off` disables the hosted-notebook layer of `default()`. */
  hosted: "CRED_AUTH_HOSTED",
  /** `1` prints debug lines (and stack traces in the CLI). */
  debug: "CRED_AUTH_DEBUG",
  /** Directory of the access-token cache (default: the user cache dir). `off` disables it. */
  tokenCache: "CRED_AUTH_TOKEN_CACHE",
  /** The page that shows the code in the copy-paste flow, when no `redirectUri` is given. */
  redirectUri: "CRED_AUTH_REDIRECT_URI",
  /** Overrides the loopback port range, e.g. `20000-20009` (tests, or a user whose 8080s are taken). */
  loopbackPorts: "CRED_AUTH_LOOPBACK_PORTS",
  /** `1`: the browser is on another machine; `0`: on this one (forwarded ports). Overrides the detection. */
  remote: "CRED_AUTH_REMOTE",
  /** Milliseconds one token request attempt may take (default 20000); `timeoutMs` options win. */
  tokenTimeout: "CRED_AUTH_TOKEN_TIMEOUT_MS",
  /** `off` (`0`, `false`, `no`): no check of scopes against Google's known ones (a scope newer than the list). */
  scopeCheck: "CRED_AUTH_SCOPE_CHECK",
  /** Where the credentials cache keeps its refresh token and client secret (stores/index.ts, docs/caching.md). */
  secretStore: "CRED_AUTH_SECRET_STORE",
  /** Google's own ADC variable: the credentials file `default()` uses first. */
  googleApplicationCredentials: "GOOGLE_APPLICATION_CREDENTIALS",
} as const;

/** True when `CRED_AUTH_DEBUG` (1, true or yes) asks for details: stacks, causes, debug lines. */
export function debugEnabled(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return /^(1|true|yes)$/i.test(env[ENV.debug]?.trim() ?? "");
}
