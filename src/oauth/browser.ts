import { spawn } from "node:child_process";
import { delimiter } from "node:path";
import type { BrowserLaunch } from "./plan.js";

/**
 * Opens `url` in the user's browser as planned: the `BROWSER` command, or the system's default
 * browser (`open`). Resolves `false` when nothing could be launched; never throws. A `true` is
 * no proof a window appeared, which is why the URL is always shown as well.
 */
export async function openBrowser(url: string, launch: BrowserLaunch): Promise<boolean> {
  if (launch === "none") return false;
  try {
    if (launch !== "system") return await spawnBrowser(launch.command, url);
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
