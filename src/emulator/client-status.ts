/**
 * OAuth clients an admin deleted or disabled, and Google's answers about them: the token endpoint
 * answers 401 `deleted_client` / `disabled_client`, the sign-in page shows the same words with
 * "Error 401". Access tokens already issued keep working; refresh tokens work again after a restore
 * (docs/emulator.md names the sources).
 */
import { HttpError } from "./http.js";
import { perState } from "./per-state.js";
import type { EmulatorState } from "./state.js";
import type { ClientControls, Emulator } from "./types.js";

type ClientStatus = "deleted" | "disabled";

/** Google's words per status. */
const REFUSALS: Readonly<Record<ClientStatus, { error: string; description: string }>> = {
  deleted: { error: "deleted_client", description: "The OAuth client was deleted." },
  disabled: { error: "disabled_client", description: "The OAuth client was disabled." },
};

const statusesOf = perState(() => new Map<string, ClientStatus>());

/** Google's `{error, description}` for a deleted or disabled client; undefined for a usable one. */
export function clientRefusal(
  state: EmulatorState,
  clientId: string,
): { error: string; description: string } | undefined {
  const status = statusesOf(state).get(clientId);
  return status && REFUSALS[status];
}

export function clientControls(state: EmulatorState): ClientControls {
  const set = (clientId: string, status: ClientStatus | undefined): void => {
    if (!state.clients.has(clientId)) throw new RangeError(`No OAuth client "${String(clientId).slice(0, 100)}".`);
    if (status) statusesOf(state).set(clientId, status);
    else statusesOf(state).delete(clientId);
  };
  return {
    deleteClient: (clientId) => set(clientId, "deleted"),
    disableClient: (clientId) => set(clientId, "disabled"),
    restoreClient: (clientId) => set(clientId, undefined),
  };
}

type ClientAction = (emulator: Emulator, body: unknown) => unknown;

function clientIdOf(body: unknown): string {
  const clientId = typeof body === "object" && body !== null ? (body as { clientId?: unknown }).clientId : undefined;
  if (typeof clientId !== "string" || clientId === "") throw new HttpError(400, 'Send {"clientId": "..."}.');
  return clientId;
}

const ACTIONS = {
  delete: ["deleteClient", "deleted"],
  disable: ["disableClient", "disabled"],
  restore: ["restoreClient", "active"],
} as const;

/** `POST /__emulator/oauth-client/{delete,disable,restore}` with `{clientId}` → `{clientId, status}`. */
export const CLIENT_ADMIN_ACTIONS: Record<string, ClientAction> = Object.fromEntries(
  Object.entries(ACTIONS).map(([verb, [method, status]]): [string, ClientAction] => [
    `/oauth-client/${verb}`,
    (emulator, body) => {
      const clientId = clientIdOf(body);
      emulator[method](clientId);
      return { clientId, status };
    },
  ]),
);
