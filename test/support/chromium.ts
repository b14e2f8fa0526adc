// Real headless Chromium (Debian's) driven by playwright-core, shared by the browser tests.
// Missing Chromium: a loud skip locally, a failure under CI (CI must run the browser tests).
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Flags for a closed network: without the background-networking ones Chromium keeps dialling out. */
const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Whether Chromium is here; says loudly what is skipped when not, and throws under CI. */
export function chromiumAvailable(what: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI) throw new Error(`Chromium not found at ${CHROMIUM}; CI must run ${what}.`);
  console.error(`\n!!! SKIPPING ${what}: no Chromium at ${CHROMIUM} (set CHROMIUM_PATH) !!!\n`);
  return false;
}

/** Runs `run` with a fresh headless browser, closed afterwards whatever happens. */
export async function withBrowser<T>(run: (browser: Browser) => Promise<T>): Promise<T> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    return await run(browser);
  } finally {
    await browser.close();
  }
}
