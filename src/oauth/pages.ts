// The small pages the loopback receiver answers the browser with. No external resources:
// the page is shown by a URL that carried an authorization code.
import { escapeHtml } from "../util/html.js";

const STYLE =
  "body{font:16px/1.5 system-ui,sans-serif;max-width:36em;margin:4em auto;padding:0 1em;color:#202124}h1{font-size:1.4em}";

/** An HTML page with a title and one paragraph; both are escaped. */
export function page(title: string, text: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>` +
    `<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>`
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
