import { type ChildProcess, spawn } from "node:child_process";
import { delimiter } from "node:path";

/** How to open the user's browser: not at all, the system's default, or the `BROWSER` command. */
export type BrowserLaunch = "none" | "system" | { readonly command: string };

/** How long an opener may take to fail: xdg-open without a display, or with a stale one, fails within it. */
const FAILS_WITHIN_MS = 2000;

/**
 * Opens `url`: the `BROWSER` commands in turn (split like PATH, `%s` the URL, as Python reads it), or the
 * system's opener. True only when one started and did not fail at once: only then does a screen say "opened".
 */
export async function openBrowser(url: string, launch: BrowserLaunch): Promise<boolean> {
  if (launch === "none") return false;
  if (launch === "system") return systemOpener(url);
  for (const command of launch.command.split(delimiter)) {
    const [program, ...args] = command.trim().split(/\s+/);
    if (!program) continue;
    const withUrl = args.some((a) => a.includes("%s")) ? args.map((a) => a.replaceAll("%s", url)) : [...args, url];
    if (await started(spawn(program, withUrl, { detached: true, stdio: "ignore" }))) return true;
  }
  return false;
}

async function systemOpener(url: string): Promise<boolean> {
  try {
    const { default: open } = await import("open");
    return await started(await open(url, { wait: false }));
  } catch {
    return false;
  }
}

/** Whether `child` started and neither failed nor exited non-zero within {@link FAILS_WITHIN_MS}. */
function started(child: ChildProcess): Promise<boolean> {
  return new Promise((resolve) => {
    const settle = (ok: boolean): void => {
      clearTimeout(timer);
      child.unref();
      resolve(ok);
    };
    const timer = setTimeout(() => settle(true), FAILS_WITHIN_MS);
    child.once("error", () => settle(false));
    child.once("exit", (code) => settle(code === 0));
  });
}
