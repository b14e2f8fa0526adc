// One bounded HTTP exchange with a URL a file named or the URL policy judged: no redirect followed (it
// would carry the request to a host nobody judged), bounded in time and size, failures scrubbed of its secrets.
import { scrubbedError } from "./redact.js";
import { discard, requestSecrets, transportFetch } from "./transport.js";

export interface BoundedRequest {
  method?: "GET" | "POST" | "PUT";
  headers?: Record<string, string>;
  body?: string;
  /** For the whole exchange, the body read included. */
  timeoutMs: number;
  /** Answers longer than this are cut off ({@link BoundedReply.tooLarge}). */
  maxBytes: number;
}

/** The answer, read whole (up to the size bound). */
export interface BoundedReply {
  status: number;
  ok: boolean;
  /** A 3xx answer: never followed. */
  redirect: boolean;
  /** The answer was longer than `maxBytes`: `text` is empty. */
  tooLarge: boolean;
  text: string;
}

/** `request` sent to `url` and its answer read within the bounds; no answer throws `unreachable(cause)`, scrubbed. */
export async function boundedFetch(
  url: string,
  request: BoundedRequest,
  unreachable: (cause: unknown) => Error,
): Promise<BoundedReply> {
  const signal = AbortSignal.timeout(request.timeoutMs);
  try {
    const response = await transportFetch(url, {
      method: request.method ?? "GET",
      ...(request.headers ? { headers: request.headers } : {}),
      ...(request.body !== undefined ? { body: request.body } : {}),
      redirect: "manual",
      size: request.maxBytes,
      signal,
    });
    const redirect = response.status >= 300 && response.status < 400;
    const body = redirect ? { text: "", tooLarge: false } : await readBounded(response, request.maxBytes);
    if (redirect) discard(response);
    return { status: response.status, ok: response.ok, redirect, ...body };
  } catch (cause) {
    throw unreachable(scrubbedError(cause, requestSecrets(url, request)));
  }
}

/** The body as UTF-8 text, or `tooLarge` as soon as it passes `maxBytes` (node-fetch's `size`: the rest is never read). */
async function readBounded(response: Response, maxBytes: number): Promise<{ text: string; tooLarge: boolean }> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) return { text: "", tooLarge: true };
  try {
    return { text: await response.text(), tooLarge: false };
  } catch (error) {
    if ((error as { type?: unknown }).type === "max-size") return { text: "", tooLarge: true };
    throw error;
  }
}
