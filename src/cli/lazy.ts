// Modules below the command line that a command loads only when it needs them, as typed getters
// (one lazy.ts per layer): print-token's cached path must not pay for login's or config's imports,
// let alone google-auth-library's. (The commands themselves are loaded by the dispatcher, main.ts.)
export const fileToken = (): typeof import("../credentials/tokens/file-token.js") =>
  require("../credentials/tokens/file-token.js");
export const settingsReader = (): typeof import("../settings/read.js") => require("../settings/read.js");
export const settingsStore = (): typeof import("../settings/store.js") => require("../settings/store.js");
export const settingKeys = (): typeof import("../settings/keys.js") => require("../settings/keys.js");
/** An ID token for a file: print-identity-token's cached path. */
export const idTokenFile = (): typeof import("../credentials/tokens/id-token-file.js") =>
  require("../credentials/tokens/id-token-file.js");
/** A token from the credentials default() would use (print-token and print-identity-token without a file). */
export const tokenSearch = (): typeof import("../credentials/search/token-search.js") =>
  require("../credentials/search/token-search.js");
/** What credentials default() would use, and what they are (status). */
export const credentialsState = (): typeof import("../credentials/status/status.js") =>
  require("../credentials/status/status.js");
/** Revoking a file's sign-in and removing it (revoke). */
export const credentialsRevocation = (): typeof import("../credentials/status/revoke.js") =>
  require("../credentials/status/revoke.js");
