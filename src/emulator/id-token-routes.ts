/**
 * The ID-token side's hooks into the server: its routes (the published keys, IAM's
 * `generateIdToken`, the protected services) and its controls on the Emulator object.
 */
import type { RequestContext } from "./context.js";
import { handleIamIdToken } from "./iam-id-token.js";
import type { IdTokenControls } from "./id-token-types.js";
import { handleCerts, idTokenKeysOf } from "./id-tokens.js";
import { addRunService, handleRunService } from "./run-service.js";
import type { EmulatorState } from "./state.js";
import type { Emulator, EmulatorClient } from "./types.js";

/** Answers the request when it is one of this side's paths; false otherwise. */
export async function handleIdTokenRoutes(ctx: RequestContext): Promise<boolean> {
  return handleCerts(ctx) || handleRunService(ctx) || (await handleIamIdToken(ctx));
}

/** The client, checked; a RangeError says what is wrong. */
function checkClient(client: EmulatorClient): EmulatorClient {
  const { clientId, clientSecret, type, redirectUris, project } = client ?? {};
  if (typeof clientId !== "string" || clientId === "" || typeof clientSecret !== "string" || clientSecret === "")
    throw new RangeError("An OAuth client needs a non-empty clientId and clientSecret.");
  if (type !== "installed" && type !== "web") throw new RangeError('An OAuth client\'s type is "installed" or "web".');
  if (redirectUris !== undefined && (!Array.isArray(redirectUris) || redirectUris.some((u) => typeof u !== "string")))
    throw new RangeError("redirectUris must be an array of strings.");
  if (project !== undefined && (typeof project !== "string" || project === ""))
    throw new RangeError("project must be a non-empty string.");
  return { ...client };
}

export function idTokenControls(state: EmulatorState): IdTokenControls & Pick<Emulator, "addClient"> {
  return {
    idTokenKeyIds: () => idTokenKeysOf(state).ids(),
    rotateIdTokenKeys: () => idTokenKeysOf(state).rotate(),
    addRunService: (service) => addRunService(state, service),
    addClient(client) {
      const checked = checkClient(client);
      state.clients.set(checked.clientId, checked);
    },
  };
}
