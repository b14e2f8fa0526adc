import { spawn } from "node:child_process";
import { delimiter } from "node:path";
import { detectRuntime } from "../runtime/detect.js";

/**
 * Whether launching a browser can be expected to show the user a page here: the runtime's
 * verdict (`BROWSER=none` no, any other `BROWSER` yes, no in CI, over SSH, in a container or
 * on a Linux/BSD without a display).
 */
export function browserExpected(env: NodeJS.ProcessEnv = process.env): boolean {
  return detectRuntime(env).canOpenBrowser;
}

/**
 * Opens `url` in the user's browser: the `BROWSER` command when set, else the system's
 * default browser (`open`). Resolves `false` when nothing could be launched; never throws.
 * A `true` is no proof a window appeared, which is why the URL is always shown as well.
 */
export async function openBrowser(url: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const browser = env.BROWSER?.trim();
  if (browser?.toLowerCase() === "none") return false;
  try {
    if (browser) return await spawnBrowser(browser, url);
    const { default: open } = await import("open");
    const child = await open(url, { wait: false });
    child.once("error", () => {});
    return true;
  } catch {
    return false;
  }
}

/** `BROWSER` as Python's webbrowser reads it: the first of the commands (separated like PATH), `%s` = the URL. */
function spawnBrowser(browser: string, url: string): Promise<boolean> {
  const [command, ...args] = (browser.split(delimiter)[0] ?? "").trim().split(/\s+/);
  if (!command) return Promise.resolve(false);
  const withUrl = args.some((a) => a.includes("%s")) ? args.map((a) => a.replaceAll("%s", url)) : [...args, url];
  return new Promise((resolve) => {
    const child = spawn(command, withUrl, { detached: true, stdio: "ignore" });
    child.once("error", () => resolve(false));
    child.once("spawn", () => {
      child.unref();
      resolve(true);
    });
  });
}
