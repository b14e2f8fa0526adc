/**
 * Public types of the emulator's ID-token side (kept apart so types.ts imports no handler): its
 * controls, its options, its counters, and the protected services it serves.
 */
import type { IdTokenKeyIds } from "./id-token-keys.js";

export type { IdTokenKeyIds } from "./id-token-keys.js";

/**
 * A private Cloud Run service of the emulator: every path under `/run/NAME` answers only callers
 * with a valid ID token (see docs/emulator.md, "Protected services").
 */
export interface RunService {
  /** `/run/NAME` on the emulator: lowercase letters, digits and hyphens, a letter first (Cloud Run's rule). */
  name: string;
  /**
   * Audiences accepted besides the service's URL (Cloud Run's custom audiences), e.g. a custom
   * domain or an IAP-style OAuth client id.
   */
  customAudiences?: string[];
  /**
   * IAM members holding roles/run.invoker: `user:EMAIL`, `serviceAccount:EMAIL`, or
   * `allAuthenticatedUsers` (every caller with a valid Google ID token). Default:
   * `["allAuthenticatedUsers"]`.
   */
  invokers?: string[];
}

/** Options of `startEmulator` for this side (EmulatorOptions extends it). */
export interface IdTokenOptions {
  /** Protected services registered at start, with their custom audiences and invokers. */
  runServices?: RunService[];
}

/** The ID-token controls of the Emulator object (its `extends IdTokenControls`). */
export interface IdTokenControls {
  /** Which key signs ID tokens now, and which keys `/oauth2/v1/certs` and `/oauth2/v3/certs` publish. */
  idTokenKeyIds(): IdTokenKeyIds;
  /**
   * Rotates the signing keys: the published next key starts signing, a new next key is published,
   * and the key that signed before the current one is withdrawn (its tokens stop verifying).
   */
  rotateIdTokenKeys(): IdTokenKeyIds;
  /** Registers (or replaces) a protected service; returns its URL, `http://127.0.0.1:PORT/run/NAME`. */
  addRunService(service: RunService): string;
}

/** The counters of this side (EmulatorStats extends it). */
export interface IdTokenStats {
  /** ID tokens minted, from every source. */
  idTokens: number;
  /** ID tokens minted, by source: `authorization_code`, `refresh_token`, `jwt-bearer`, `generateIdToken`, `metadata`. */
  idTokensBySource: Record<string, number>;
  /** Requests for the published keys (`/oauth2/v1/certs`, `/oauth2/v3/certs`). */
  certRequests: number;
  /** Requests to protected services (`/run/...`), refused ones included. */
  runRequests: number;
  /** Requests to protected services refused with 401 or 403. */
  runRefusals: number;
}

export function emptyIdTokenStats(): IdTokenStats {
  return { idTokens: 0, idTokensBySource: {}, certRequests: 0, runRequests: 0, runRefusals: 0 };
}
