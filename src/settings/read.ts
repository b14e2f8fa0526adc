// Reading the settings where the library needs one (the OAuth client, loopback ports, remote, ui).
// A plain synchronous read of the file `cred-auth config` writes through conf: a sign-in asks for
// a setting from synchronous code, and loading conf (with its schema validator) for a few bytes of
// JSON would cost every sign-in. Each value is checked against the same table conf's schema comes
// from; a corrupt file or a bad value is a warning on stderr, never a crash.
import { readFileSync } from "node:fs";
import { SETTINGS, type SettingKey, type Settings } from "./keys.js";
import { settingsFile, type SettingsEnv } from "./paths.js";

/** Settings files are a few hundred bytes; anything much larger is not one. */
const MAX_BYTES = 64 * 1024;
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
        `the setting "${spec.key}" in ${path} is not valid and is ignored; fix it with cred-auth config set ${spec.key} ${spec.metavar}`,
      );
  }
  return settings as Settings;
}

/** One setting, or undefined. */
export function readSetting<K extends SettingKey>(key: K, env: SettingsEnv = process.env): Settings[K] {
  return readSettings(env)[key];
}

function readJson(path: string): Record<string, unknown> | undefined {
  let text: string;
  try {
    const buffer = readFileSync(path);
    if (buffer.length > MAX_BYTES) throw Object.assign(new Error("too large"), { code: "EFBIG" });
    text = buffer.toString("utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR")
      warnOnce(path, `cannot read the settings file ${path} (${code ?? "error"}); settings are ignored`);
    return undefined;
  }
  try {
    const json: unknown = JSON.parse(text);
    if (typeof json === "object" && json !== null && !Array.isArray(json)) return json as Record<string, unknown>;
  } catch {
    // reported below
  }
  warnOnce(
    path,
    `the settings file ${path} is not a JSON object and is ignored; fix or remove it (cred-auth config set rewrites it)`,
  );
  return undefined;
}

function warnOnce(path: string, message: string): void {
  const key = `${path}\n${message}`;
  if (warned.has(key)) return;
  warned.add(key);
  process.stderr.write(`cred-auth: warning: ${message}\n`);
}
