// Reading the settings where the library needs one (the OAuth client, loopback ports, remote, ui).
// A plain synchronous read of the file `cred-auth config` writes through conf: a sign-in asks for
// a setting from synchronous code, and loading conf (with its schema validator) for a few bytes of
// JSON would cost every sign-in. The file is read as formats/settings-file.ts says (the file-trust
// rule for files cred-auth keeps: yours, private, a regular file, bounded); each value is checked
// against the same table conf's schema comes from; a corrupt, foreign or unreadable file or a bad
// value is a warning on stderr, never a crash.
import { readSettingsFile } from "../formats/settings-file.js";
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

/** One setting, or undefined. */
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
