/** Admin routes of the IAM side (spread into admin.ts's POST actions): register service accounts. */
import { HttpError } from "./http.js";
import type { Emulator } from "./types.js";

type IamAction = (emulator: Emulator, body: unknown) => unknown;

export const IAM_ADMIN_ACTIONS: Record<string, IamAction> = {
  /** `{"email": "...", "tokenCreators"?: ["user:...", ...]}` → the same, as registered. */
  "/service-account": (emulator, body) => {
    const input = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
    const { email, tokenCreators } = input;
    if (typeof email !== "string" || email === "") throw new HttpError(400, '"email" must be a non-empty string.');
    if (
      tokenCreators !== undefined &&
      (!Array.isArray(tokenCreators) || tokenCreators.some((m) => typeof m !== "string"))
    )
      throw new HttpError(400, '"tokenCreators" must be an array of strings.');
    const members = (tokenCreators ?? []) as string[];
    emulator.addServiceAccount({ email, tokenCreators: members });
    return { email, tokenCreators: members };
  },
};
