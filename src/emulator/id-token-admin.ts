/** Admin routes of the ID-token side (spread into admin.ts's POST actions): the keys. */
import type { Emulator } from "./types.js";

type IdTokenAction = (emulator: Emulator, body: unknown) => unknown;

export const ID_TOKEN_ADMIN_ACTIONS: Record<string, IdTokenAction> = {
  /** → `{signing, published}`: the key ids after the rotation. */
  "/rotate-id-token-keys": (emulator) => emulator.rotateIdTokenKeys(),
};
