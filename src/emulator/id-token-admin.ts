/** Admin routes of the ID-token side (spread into admin.ts's POST actions): keys, protected services, OAuth clients. */
import { HttpError } from "./http.js";
import type { Emulator, EmulatorClient } from "./types.js";
import type { RunService } from "./id-token-types.js";

type IdTokenAction = (emulator: Emulator, body: unknown) => unknown;

function object(body: unknown, shape: string): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new HttpError(400, `Send ${shape}.`);
  return body as Record<string, unknown>;
}

export const ID_TOKEN_ADMIN_ACTIONS: Record<string, IdTokenAction> = {
  /** → `{signing, published}`: the key ids after the rotation. */
  "/rotate-id-token-keys": (emulator) => emulator.rotateIdTokenKeys(),
  /** `{"name", "customAudiences"?: [...], "invokers"?: [...]}` → `{url}`. */
  "/run-service": (emulator, body) => {
    const input = object(body, '{"name": "...", "customAudiences"?: [...], "invokers"?: [...]}');
    // addRunService checks every field (a RangeError becomes a 400).
    return { url: emulator.addRunService(input as unknown as RunService) };
  },
  /** `{"clientId", "clientSecret", "type"?: "installed" | "web", "redirectUris"?, "project"?}` → `{clientId}`. */
  "/oauth-client": (emulator, body) => {
    const input = object(
      body,
      '{"clientId": "...", "clientSecret": "...", "type"?: "installed" | "web", "project"?: "..."}',
    );
    // addClient checks every field (a RangeError becomes a 400).
    emulator.addClient({ type: "installed", ...input } as unknown as EmulatorClient);
    return { clientId: input.clientId };
  },
};
