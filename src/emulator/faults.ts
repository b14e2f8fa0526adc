/** Fault injection on the token endpoint and metadata server: how a broken or overloaded server looks from the client. */
import type { Socket } from "node:net";
import type { RequestContext } from "./context.js";
import { wait } from "./context.js";
import { sendJson } from "./http.js";
import type { Fault, FaultKind } from "./types.js";

export const FAULT_KINDS: readonly FaultKind[] = ["status", "garbage", "truncated", "html", "hang", "reset", "slow"];
/** Upper bound for failNext counts, so a typo cannot queue millions of faults. */
export const MAX_FAULTS = 10_000;

function errorCodeFor(status: number): string {
  if (status === 429) return "rate_limit_exceeded";
  if (status === 503) return "temporarily_unavailable";
  if (status >= 500) return "internal_failure";
  return "invalid_request";
}

const GOOGLE_502 = `<!DOCTYPE html>
<html lang=en>
  <meta charset=utf-8>
  <title>Error 502 (Server Error)!!1</title>
  <p><b>502.</b> <ins>That's an error.</ins>
  <p>The server encountered a temporary error and could not complete your request.<p>Please try again in 30 seconds.  <ins>That's all we know.</ins>
`;

/** Validates a fault from an untrusted source (the admin API); throws RangeError with the reason. */
export function normalizeFault(input: Fault = {}): Fault {
  const kind = input.kind ?? "status";
  if (!FAULT_KINDS.includes(kind))
    throw new RangeError(`Unknown fault kind "${String(kind)}"; use one of ${FAULT_KINDS.join(", ")}.`);
  const status = input.status ?? 503;
  if (!Number.isInteger(status) || status < 100 || status > 599)
    throw new RangeError("Fault status must be an HTTP status code.");
  const delayMs = input.delayMs ?? 1000;
  if (!Number.isFinite(delayMs) || delayMs < 0) throw new RangeError("Fault delayMs must be a non-negative number.");
  const error = input.error ?? errorCodeFor(status);
  if (typeof error !== "string" || !/^[a-z_]{1,64}$/.test(error))
    throw new RangeError("Fault error must be an OAuth error code such as internal_failure.");
  const target = input.target ?? "token";
  if (target !== "token" && target !== "metadata") throw new RangeError('Fault target must be "token" or "metadata".');
  return { kind, status, delayMs, error, target };
}

/**
 * Answers the request according to `fault`. Returns true when the request should then be
 * handled normally (a "slow" fault), false when the fault was the answer.
 */
export async function applyFault(
  ctx: RequestContext,
  fault: Fault,
  headers: Record<string, string> = {},
): Promise<boolean> {
  const { res } = ctx;
  const { kind, status = 503, delayMs = 1000, error } = normalizeFault(fault);
  switch (kind) {
    case "slow":
      return wait(delayMs, ctx.closing);
    case "status":
      // google-auth-python's tests send internal_failure, server_error, temporarily_unavailable in a 400 too.
      sendJson(res, status, { error, error_description: "Injected by the cred-auth emulator" }, headers);
      return false;
    case "garbage": {
      const bytes = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0x9c]), Buffer.from("\u0000not json at all <<>>")]);
      res.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Content-Length": bytes.length });
      res.end(bytes);
      return false;
    }
    case "truncated": {
      const cut = `{\n  "access_token": "ya29.emu.trunc`;
      res.writeHead(200, {
        "Content-Type": "application/json; charset=utf-8",
        "Content-Length": Buffer.byteLength(cut),
      });
      res.end(cut);
      return false;
    }
    case "html":
      res.writeHead(502, {
        "Content-Type": "text/html; charset=UTF-8",
        "Content-Length": Buffer.byteLength(GOOGLE_502),
      });
      res.end(GOOGLE_502);
      return false;
    case "reset": {
      const socket = ctx.req.socket as Socket & { resetAndDestroy?: () => void };
      if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy();
      else socket.destroy();
      return false;
    }
    default:
      // Never answer: the connection stays open until the client gives up or the emulator closes.
      return false;
  }
}
