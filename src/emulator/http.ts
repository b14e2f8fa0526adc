/** Small HTTP helpers for the emulator: bounded body reading, replies in Google's shapes, escaping. */
import type { IncomingMessage, ServerResponse } from "node:http";

/** Largest request body the emulator reads (forms, JSON, JWT assertions are all far smaller). */
export const MAX_BODY_BYTES = 64 * 1024;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Reads the whole body, or rejects with a 413 HttpError once it passes `limit` bytes. */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on("data", (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(new HttpError(413, "Request body too large"));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!failed) resolve(Buffer.concat(chunks).toString("utf8"));
    });
    req.on("error", (error) => {
      if (!failed) reject(error);
    });
  });
}

/**
 * Parameters of a form or JSON body (Google's token endpoint takes both). Non-string JSON values
 * are ignored; a body that is neither is an empty set.
 */
export function parseParams(body: string, contentType: string | undefined): Map<string, string> {
  const params = new Map<string, string>();
  if (/^\s*application\/json/i.test(contentType ?? "")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new HttpError(400, "Body is not valid JSON");
    }
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
      for (const [key, value] of Object.entries(parsed)) {
        if (typeof value === "string") params.set(key, value);
      }
    }
    return params;
  }
  for (const [key, value] of new URLSearchParams(body)) {
    if (!params.has(key)) params.set(key, value);
  }
  return params;
}

/** Parses a JSON body for the admin API (any JSON value; empty body = undefined). */
export function parseJson(body: string): unknown {
  if (body.trim() === "") return undefined;
  try {
    return JSON.parse(body);
  } catch {
    throw new HttpError(400, "Body is not valid JSON");
  }
}

const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(value, null, 2);
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    ...NO_STORE,
    ...headers,
  });
  res.end(body);
}

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    "Content-Type": "text/plain; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
    ...NO_STORE,
    ...headers,
  });
  res.end(text);
}

/** Pages carry codes and tokens in their URL: never cache them or leak them as a referrer. */
export function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Length": Buffer.byteLength(html),
    "Content-Security-Policy":
      "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    ...NO_STORE,
  });
  res.end(html);
}

export function redirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { Location: location, "Content-Length": 0, ...NO_STORE, "Referrer-Policy": "no-referrer" });
  res.end();
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** `Authorization: Bearer X` -> X. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
  return match?.[1];
}

/** `Authorization: Basic base64(id:secret)`, each part form-encoded as RFC 6749 2.3.1 asks. */
export function basicCredentials(req: IncomingMessage): { id: string; secret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.headers.authorization ?? "");
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  try {
    return {
      id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " ")),
      secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " ")),
    };
  } catch {
    return undefined;
  }
}

/** The request path and query, parsed without trusting the Host header. */
export function requestUrl(req: IncomingMessage): URL {
  const raw = req.url ?? "/";
  return new URL(`http://emulator.invalid${raw.startsWith("/") ? raw : `/${raw}`}`);
}
