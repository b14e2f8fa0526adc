/**
 * Fault injection on the token endpoint, the metadata server and IAM Credentials: how a broken or
 * overloaded server looks from the client. Each server fails in its own words: the token endpoint
 * in OAuth JSON, the metadata server in plain text, IAM Credentials in Google's API error JSON.
 */
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { RequestContext } from "./context.js";
import { wait } from "./context.js";
import { sendJson, sendText } from "./http.js";
import { apiError, serviceDisabled, userProjectDenied } from "./iam-errors.js";
import type { Fault, FaultKind, FaultTarget } from "./types.js";

export const FAULT_KINDS: readonly FaultKind[] = [
  "status",
  "garbage",
  "truncated",
  "html",
  "hang",
  "reset",
  "slow",
  "service-disabled",
  "user-project-denied",
];
export const FAULT_TARGETS: readonly FaultTarget[] = ["token", "metadata", "iam"];
/** Kinds only IAM Credentials answers: its 403s for causes other than a missing role. */
const IAM_ONLY_KINDS: readonly FaultKind[] = ["service-disabled", "user-project-denied"];
/** A project id or number, as Google names a consumer project. */
const PROJECT = /^[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$/;
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
  if (!FAULT_TARGETS.includes(target))
    throw new RangeError(`Fault target must be one of ${FAULT_TARGETS.map((t) => `"${t}"`).join(", ")}.`);
  if (IAM_ONLY_KINDS.includes(kind) && target !== "iam")
    throw new RangeError(`Fault kind "${kind}" is an IAM Credentials refusal: give target "iam".`);
  const project = input.project;
  if (project !== undefined && (typeof project !== "string" || !PROJECT.test(project)))
    throw new RangeError("Fault project must be a project id or number.");
  return { kind, status, delayMs, error, target, ...(project !== undefined ? { project } : {}) };
}

/**
 * The answer of a "status" fault in the words of the server that fails: OAuth JSON from the token
 * endpoint, plain text from the metadata server (its errors are never JSON), Google's API error
 * JSON from IAM Credentials.
 */
function sendStatus(ctx: RequestContext, fault: Fault, headers: Record<string, string>): void {
  const status = fault.status ?? 503;
  if (fault.target === "metadata") {
    sendText(ctx.res, status, `${STATUS_CODES[status] ?? "Error"}\n`, headers);
  } else if (fault.target === "iam") {
    const reply = apiError(status);
    sendJson(ctx.res, reply.status, reply.body, headers);
  } else {
    // google-auth-python's tests send internal_failure, server_error, temporarily_unavailable in a 400 too.
    sendJson(ctx.res, status, { error: fault.error, error_description: "Injected by the cred-auth emulator" }, headers);
  }
}

/**
 * The consumer project an IAM refusal names: the fault's, else the caller's quota project
 * (`x-goog-user-project`, as Python and gcloud send it), else the emulator's default project number.
 */
function consumerProject(ctx: RequestContext, fault: Fault): string {
  const header = ctx.req.headers["x-goog-user-project"];
  const quotaProject = typeof header === "string" && PROJECT.test(header) ? header : undefined;
  return fault.project ?? quotaProject ?? DEFAULT_CONSUMER_PROJECT;
}

/** The project number IAM refusals name when neither the fault nor the request names one. */
export const DEFAULT_CONSUMER_PROJECT = "123456789012";

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
  const normalized = normalizeFault(fault);
  const { kind, delayMs = 1000 } = normalized;
  switch (kind) {
    case "slow":
      return wait(delayMs, ctx.closing);
    case "status":
      sendStatus(ctx, normalized, headers);
      return false;
    case "service-disabled":
    case "user-project-denied": {
      const project = consumerProject(ctx, normalized);
      const reply = kind === "service-disabled" ? serviceDisabled(project) : userProjectDenied(project);
      sendJson(res, reply.status, reply.body, headers);
      return false;
    }
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
