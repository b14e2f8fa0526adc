// One POST to a Google token service (STS, IAM Credentials) at a judged URL, bounded, no redirect
// followed, its JSON body read whatever the status; each caller judges the reply.
import { boundedFetch } from "../trust/http.js";

/** How long a token service, or a subject-token URL, may take to answer. */
export const SERVICE_TIMEOUT_MS = 30_000;

/** A token service's answer is a small JSON object; anything this big is not one. */
export const MAX_SERVICE_REPLY_BYTES = 256 * 1024;

/** A service's answer: its status, and its body parsed as JSON (undefined when it is not JSON). */
export interface ServiceReply {
  ok: boolean;
  status: number;
  body: unknown;
}

/** POSTs `body` to `url`; no answer at all (network, timeout) throws `unreachable(cause)`. */
export async function postToService(
  url: string,
  headers: Record<string, string>,
  body: string,
  unreachable: (cause: unknown) => Error,
): Promise<ServiceReply> {
  const reply = await boundedFetch(
    url,
    { method: "POST", headers, body, timeoutMs: SERVICE_TIMEOUT_MS, maxBytes: MAX_SERVICE_REPLY_BYTES },
    unreachable,
  );
  return { ok: reply.ok, status: reply.status, body: parsed(reply.text) };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export interface FetchedToken {
  accessToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}
