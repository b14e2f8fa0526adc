// Where the settings file lives. Read when asked, never at import.
import { homedir } from "node:os";
import { join } from "node:path";

/** The environment the settings location is read from (`process.env`, or a test's). */
export type SettingsEnv = Readonly<Record<string, string | undefined>>;

/** The settings directory: `$XDG_CONFIG_HOME/cred-auth`, else `~/.config/cred-auth` (`%APPDATA%\cred-auth` on Windows). */
export function settingsDirectory(env: SettingsEnv = process.env, platform = process.platform): string {
  const xdg = env.XDG_CONFIG_HOME?.trim();
  if (xdg) return join(xdg, "cred-auth");
  if (platform === "win32") return join(env.APPDATA || join(homedir(), "AppData", "Roaming"), "cred-auth");
  return join(env.HOME || homedir(), ".config", "cred-auth");
}

/** The file's name in {@link settingsDirectory} (conf's `configName` plus `.json`). */
export const SETTINGS_FILE_NAME = "config";

export function settingsFile(env: SettingsEnv = process.env, platform = process.platform): string {
  return join(settingsDirectory(env, platform), `${SETTINGS_FILE_NAME}.json`);
}
