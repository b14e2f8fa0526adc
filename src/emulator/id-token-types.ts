/**
 * Public types of the emulator's ID-token side (kept apart so types.ts imports no handler): its
 * controls and its counters.
 */
import type { IdTokenKeyIds } from "./id-token-keys.js";

export type { IdTokenKeyIds } from "./id-token-keys.js";

/** The ID-token controls of the Emulator object (its `extends IdTokenControls`). */
export interface IdTokenControls {
  /** Which key signs ID tokens now, and which keys `/oauth2/v1/certs` and `/oauth2/v3/certs` publish. */
  idTokenKeyIds(): IdTokenKeyIds;
  /**
   * Rotates the signing keys: the published next key starts signing, a new next key is published,
   * and the key that signed before the current one is withdrawn (its tokens stop verifying).
   */
  rotateIdTokenKeys(): IdTokenKeyIds;
}

/** The counters of this side (EmulatorStats extends it). */
export interface IdTokenStats {
  /** ID tokens minted, from every source. */
  idTokens: number;
  /** ID tokens minted, by source: `authorization_code`, `refresh_token`, `jwt-bearer`, `generateIdToken`, `metadata`. */
  idTokensBySource: Record<string, number>;
  /** Requests for the published keys (`/oauth2/v1/certs`, `/oauth2/v3/certs`). */
  certRequests: number;
}

export function emptyIdTokenStats(): IdTokenStats {
  return { idTokens: 0, idTokensBySource: {}, certRequests: 0 };
}
