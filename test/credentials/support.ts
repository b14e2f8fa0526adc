// Shared by the user-credentials and default() tests: an isolated HOME, the emulator, a
// presenter that plays the browser, and the ports for the loopback receiver.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import type { Presenter, SignInEvent } from "cred-auth";
import { approveSignIn } from "cred-auth/emulator";
import type { ApproveOptions, BrowserResult, Emulator } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { freePortRange, rangeEnv } from "../oauth/support.ts";

const ISOLATED = [
  "GOOGLE_APPLICATION_CREDENTIALS",
  "CLOUDSDK_CONFIG",
  "GCE_METADATA_HOST",
  "GCE_METADATA_IP",
  "METADATA_SERVER_DETECTION",
  "CRED_AUTH_CLIENT_ID",
  "CRED_AUTH_CLIENT_SECRET",
  "CRED_AUTH_CLIENT_SECRET_FILE",
  "CRED_AUTH_REDIRECT_URI",
  "CRED_AUTH_DEBUG",
  "HTTPS_PROXY",
  "https_proxy",
  "HTTP_PROXY",
  "http_proxy",
] as const;

/** A second desktop client the emulator knows, besides the demo one. */
export const OTHER_CLIENT = { clientId: "other-tool.apps.emulator.invalid", clientSecret: "TOPSECRET-other-tool" };

/**
 * Points this test process at a fresh HOME, an emulator and a free loopback port range, with
 * no ADC and no client from the real environment. Everything is removed after the file.
 */
export async function isolatedWorld(): Promise<{ emulator: Emulator; home: string }> {
  const clients = [{ ...OTHER_CLIENT, type: "installed" as const }];
  const home = mkdtempSync(join(tmpdir(), "cred-auth-home-"));
  after(() => rmSync(home, { recursive: true, force: true }));
  for (const name of ISOLATED) delete process.env[name];
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = join(home, ".config");
  process.env.XDG_CACHE_HOME = join(home, ".cache");
  process.env.LOCALAPPDATA = join(home, "AppData", "Local");
  delete process.env.CRED_AUTH_TOKEN_CACHE;
  process.env.APPDATA = join(home, "AppData");
  process.env.BROWSER = "none";
  process.env.CRED_AUTH_HOSTED = "off";
  const emulator = await withEmulator({ clients });
  process.env.CRED_AUTH_EMULATOR_HOST = emulator.host;
  process.env.CRED_AUTH_LOOPBACK_PORTS = rangeEnv(await freePortRange(10));
  return { emulator, home };
}

/** Sets environment variables for the duration of `fn`. */
export async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  try {
    return await fn();
  } finally {
    apply(saved);
  }
}

/** A presenter that records events and plays the person in the browser when the URL shows up. */
export function browserPresenter(approve: ApproveOptions = {}, options: { paste?: boolean } = {}) {
  const events: SignInEvent[] = [];
  let browser: Promise<BrowserResult> | undefined;
  const presenter: Presenter = {
    update(event) {
      events.push(event);
      if (event.type === "url") {
        browser = approveSignIn(event.url, approve);
        browser.catch(() => {});
      }
    },
  };
  if (options.paste) presenter.readCode = async () => (await browser!).code ?? "";
  return { presenter, events, types: () => events.map((e) => e.type), browser: () => browser };
}
