import { EMULATOR_PATHS, ENV, GOOGLE_ENDPOINTS } from "../shared/constants.js";
import { emulatorBaseUrl } from "../trust/urls.js";

/** The OAuth 2.0 endpoints a flow talks to. Every network endpoint is chosen here. */
export interface Endpoints {
  authUrl: string;
  tokenUrl: string;
  revokeUrl: string;
  tokenInfoUrl: string;
  /** Where the copy-paste flow redirects to have the code shown; undefined for Google. */
  codePageUrl?: string;
  /** True when these are a local emulator's endpoints. */
  emulator: boolean;
}

/**
 * Google's endpoints, or the loopback emulator's when `CRED_AUTH_EMULATOR_HOST` is set. `announce: false`
 * leaves the notice to the caller: a file's own `token_uri` may be used instead.
 */
export function resolveEndpoints(
  env: NodeJS.ProcessEnv = process.env,
  { announce = true }: { announce?: boolean } = {},
): Endpoints {
  const host = env[ENV.emulatorHost]?.trim();
  if (!host) return { ...GOOGLE_ENDPOINTS, emulator: false };
  const base = emulatorBaseUrl(host);
  if (announce) announceEmulator(base);
  return {
    authUrl: base + EMULATOR_PATHS.auth,
    tokenUrl: base + EMULATOR_PATHS.token,
    revokeUrl: base + EMULATOR_PATHS.revoke,
    tokenInfoUrl: base + EMULATOR_PATHS.tokenInfo,
    // An emulator run as Google serves a Desktop client has no code page to offer.
    ...(isOff(env[ENV.emulatorCodePage]) ? {} : { codePageUrl: base + EMULATOR_PATHS.codePage }),
    emulator: true,
  };
}

function isOff(value: string | undefined): boolean {
  return ["off", "0", "false", "no"].includes(value?.trim().toLowerCase() ?? "");
}

let announced: string | undefined;

/** One stderr line per process and emulator: credentials now go to a local port, which a stray variable must not hide. */
export function announceEmulator(base: string): void {
  if (announced === base) return;
  announced = base;
  process.stderr.write(`cred-auth: ${notice(base)}\n`);
}

/** The same notice for a sign-in's face to show, every time, instead of announceEmulator's stderr line. */
export function emulatorNotice(endpoints: Endpoints): string | undefined {
  if (!endpoints.emulator) return undefined;
  const base = new URL(endpoints.tokenUrl).origin;
  announced = base;
  return notice(base);
}

function notice(base: string): string {
  return `${ENV.emulatorHost}: using the local emulator at ${base}, not Google.`;
}

/** The page that shows a copy-paste sign-in's code: the emulator's, else `CRED_AUTH_REDIRECT_URI`; Google has none. */
export function codePageUrl(endpoints: Endpoints, env: NodeJS.ProcessEnv): string | undefined {
  return endpoints.codePageUrl || env[ENV.redirectUri]?.trim() || undefined;
}

/** The same endpoints in the shape google-auth-library's OAuth2 clients take (`endpoints` option). */
export function galEndpoints(endpoints: Endpoints) {
  return {
    oauth2AuthBaseUrl: endpoints.authUrl,
    oauth2TokenUrl: endpoints.tokenUrl,
    oauth2RevokeUrl: endpoints.revokeUrl,
    tokenInfoUrl: endpoints.tokenInfoUrl,
  };
}
