// Modules below the command line that a command loads only when it needs them, as typed getters
// (one lazy.ts per layer): print-token's cached path must not pay for login's or config's imports,
// let alone google-auth-library's. (The commands themselves are loaded by the dispatcher, main.ts.)
export const fileToken = (): typeof import("../credentials/file-token.js") => require("../credentials/file-token.js");
export const settingsReader = (): typeof import("../settings/read.js") => require("../settings/read.js");
export const settingsStore = (): typeof import("../settings/store.js") => require("../settings/store.js");
export const settingKeys = (): typeof import("../settings/keys.js") => require("../settings/keys.js");
