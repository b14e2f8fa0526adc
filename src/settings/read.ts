// The settings file read synchronously, as settings/file.ts says (loading conf would cost every
// sign-in); each value checked against the table; a bad file or value is a warning, never a crash.
import { readSettingsFile } from "./file.js";
import { printable } from "../trust/text.js";
import { SETTINGS, type SettingKey, type Settings } from "./keys.js";
import { settingsFile, type SettingsEnv } from "./paths.js";

const warned = new Set<string>();

/** Every valid setting in the settings file; `{}` when there is none. Invalid values are left out with a warning. */
export function readSettings(env: SettingsEnv = process.env): Settings {
  const path = settingsFile(env);
  const json = readJson(path);
  if (json === undefined) return {};
  const settings: Record<string, unknown> = {};
  for (const spec of SETTINGS) {
    const value = json[spec.key];
    if (value === undefined) continue;
    if (spec.check(value)) settings[spec.key] = value;
    else
      warnOnce(
        path,
        `the setting "${spec.key}" in ${printable(path)} is not valid and is ignored; fix it with cred-auth config set ${spec.key} ${spec.metavar}`,
      );
  }
  return settings as Settings;
}

export function readSetting<K extends SettingKey>(key: K, env: SettingsEnv = process.env): Settings[K] {
  return readSettings(env)[key];
}

function readJson(path: string): Record<string, unknown> | undefined {
  const read = readSettingsFile(path);
  if (read.kind === "object") return read.json;
  if (read.kind === "ignored") warnOnce(path, `the settings file ${printable(path)} ${read.problem}`);
  return undefined;
}

function warnOnce(path: string, message: string): void {
  const key = `${path}\n${message}`;
  if (warned.has(key)) return;
  warned.add(key);
  process.stderr.write(`cred-auth: warning: ${message}\n`);
}
