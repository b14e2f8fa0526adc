/**
 * One bounded HTTP exchange with a URL a file named or the URL policy judged: no redirect is
 * followed (a redirect would carry the request, headers and body, to a host nobody judged), and
 * the whole exchange, reading the answer included, is bounded in time and in size. A failure is
 * handed on with every secret of the request (header values, the body's values, a URL's user info)
 * taken out of it, so no later printing (CRED_AUTH_DEBUG=1) can show one.
 */
import { scrubbedError } from "./redact.js";

/** What to send, and the bounds. */
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

/**
 * Sends `request` to `url` and reads the answer within the bounds. A failure to get any answer
 * (network, time-out, a body cut short) throws `unreachable(cause)`, the cause scrubbed of the
 * request's secrets.
 */
export async function boundedFetch(
  url: string,
  request: BoundedRequest,
  unreachable: (cause: unknown) => Error,
): Promise<BoundedReply> {
  const signal = AbortSignal.timeout(request.timeoutMs);
  try {
    const response = await fetch(url, {
      method: request.method ?? "GET",
      ...(request.headers ? { headers: request.headers } : {}),
      ...(request.body !== undefined ? { body: request.body } : {}),
      redirect: "manual",
      signal,
    });
    const redirect = response.status >= 300 && response.status < 400;
    const body = redirect ? { text: "", tooLarge: false } : await readBounded(response, request.maxBytes);
    if (redirect) await response.body?.cancel();
    return { status: response.status, ok: response.ok, redirect, ...body };
  } catch (cause) {
    throw unreachable(scrubbedError(cause, requestSecrets(url, request)));
  }
}

/** What a request carries that its failure must not repeat: header values, the body and its form values, the URL's user info. */
function requestSecrets(url: string, request: BoundedRequest): string[] {
  const body = request.body === undefined ? [] : [request.body, ...new URLSearchParams(request.body).values()];
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  const userInfo = parsed === undefined ? [] : [parsed.username, parsed.password, decodeURIComponent(parsed.password)];
  return [...Object.values(request.headers ?? {}), ...body, ...userInfo];
}

/** The body as UTF-8 text, or `tooLarge` as soon as it passes `maxBytes` (the rest is never read). */
async function readBounded(response: Response, maxBytes: number): Promise<{ text: string; tooLarge: boolean }> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await response.body?.cancel();
    return { text: "", tooLarge: true };
  }
  const chunks: Uint8Array[] = [];
  let length = 0;
  const reader = response.body?.getReader();
  if (reader === undefined) return { text: "", tooLarge: false };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      await reader.cancel();
      return { text: "", tooLarge: true };
    }
    chunks.push(value);
  }
  return { text: Buffer.concat(chunks).toString("utf8"), tooLarge: false };
}
