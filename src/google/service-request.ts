// One POST to a Google token service (STS, IAM Credentials) with plain fetch: bounded in time,
// its JSON body read whatever the status. Each caller judges the reply and names its own errors.

/** How long a token service, or a subject-token URL, may take to answer. */
export const SERVICE_TIMEOUT_MS = 30_000;

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
  let response: Response;
  try {
    response = await fetch(url, { method: "POST", headers, body, signal: AbortSignal.timeout(SERVICE_TIMEOUT_MS) });
  } catch (cause) {
    throw unreachable(cause);
  }
  return { ok: response.ok, status: response.status, body: await response.json().catch(() => undefined) };
}
