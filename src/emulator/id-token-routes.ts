/**
 * The ID-token side's hooks into the server: its routes (the published keys) and its controls on
 * the Emulator object.
 */
import type { RequestContext } from "./context.js";
import type { IdTokenControls } from "./id-token-types.js";
import { handleCerts, idTokenKeysOf } from "./id-tokens.js";
import type { EmulatorState } from "./state.js";

/** Answers the request when it is one of this side's paths; false otherwise. */
export async function handleIdTokenRoutes(ctx: RequestContext): Promise<boolean> {
  return handleCerts(ctx);
}

export function idTokenControls(state: EmulatorState): IdTokenControls {
  return {
    idTokenKeyIds: () => idTokenKeysOf(state).ids(),
    rotateIdTokenKeys: () => idTokenKeysOf(state).rotate(),
  };
}
