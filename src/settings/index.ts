// User settings (`cred-auth config`): the table of keys, where the file is, the synchronous reader
// the library uses, and the conf store the command writes through (loaded only by that command).
export {
  CLIENT_PAIR,
  SETTINGS,
  isPortRange,
  settingSpec,
  type SettingKey,
  type SettingSpec,
  type Settings,
} from "./keys.js";
export { settingsDirectory, settingsFile, type SettingsEnv } from "./paths.js";
export { readSetting, readSettings } from "./read.js";
