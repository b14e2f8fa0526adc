// The small pages the loopback receiver answers the browser with. No external resources:
// the page is shown by a URL that carried an authorization code.
import { escapeHtml } from "../util/html.js";

// The browser's own colours, light or dark as the user set it (no fixed text colour).
const STYLE =
  ":root{color-scheme:light dark}body{font:16px/1.5 system-ui,sans-serif;max-width:36em;margin:4em auto;padding:0 1em}h1,.lead{font-size:1.4em;font-weight:600}";

/** An HTML page of a title and a paragraph, escaped; a text starting with the title is shown alone (said once). */
export function page(title: string, text: string): string {
  const body = text.startsWith(title)
    ? `<p class="lead">${escapeHtml(text)}</p>`
    : `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`;
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`
  );
}

/** Response headers for every page: no caching, no referrer, nothing loaded from elsewhere. */
export const PAGE_HEADERS = {
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "no-store",
  "Referrer-Policy": "no-referrer",
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
  "X-Content-Type-Options": "nosniff",
  Connection: "close",
} as const;
