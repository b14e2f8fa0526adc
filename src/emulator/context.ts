import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import type { EmulatorState } from "./state.js";

/** One request as every handler sees it. */
export interface RequestContext {
  state: EmulatorState;
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** Aborted when the emulator closes: waits end early. */
  closing: AbortSignal;
}

/** Waits `ms`; false when the emulator closed meanwhile (then the handler must stop). */
export async function wait(ms: number, closing: AbortSignal): Promise<boolean> {
  if (ms <= 0) return !closing.aborted;
  try {
    await delay(ms, undefined, { signal: closing, ref: false });
    return true;
  } catch {
    return false;
  }
}
