// Modules of cache/ loaded when a cache is first used (load, save), as typed getters (one lazy.ts
// per layer). Importing cred-auth makes the three caches (`cache.READ_WRITE`, ...) but reads and
// writes nothing: the credentials-file reader and writer and the token services it needs wait for
// the first load() or save() (bench/README.md, targets 1 and 9).

/** The credentials-file reader and writer (`authorized_user`). */
export const credentialsFiles = (): typeof import("../formats/credentials-file.js") =>
  require("../formats/credentials-file.js");

/** User credentials from a file's fields, and the fields of user credentials. */
export const userCredentials = (): typeof import("../protocols/load-user.js") => require("../protocols/load-user.js");

/** What cred-auth records beside a client: its scopes, account, file. */
export const credentialInfo = (): typeof import("../protocols/info.js") => require("../protocols/info.js");

/** The display of a loaded credentials object: a summary, never a secret. */
export const displayed = (): typeof import("../protocols/display-safe.js") => require("../protocols/display-safe.js");

/** The file-trust rule's ownership check. */
export const fileTrust = (): typeof import("../trust/files.js") => require("../trust/files.js");

/** The cache's secrets in the keychain (loaded when a refresh token is read or written, never on a warm start). */
export const keychainCache = (): typeof import("./keychain.js") => require("./keychain.js");

/** Where the secrets go: the option, CRED_AUTH_SECRET_STORE, the setting (read on a save). */
export const secretStores = (): typeof import("./secret-store.js") => require("./secret-store.js");

/** The keychain form of the cache file: parsed on a warm start, its secrets not read. */
export const keychainCacheFile = (): typeof import("../formats/keychain-cache-file.js") =>
  require("../formats/keychain-cache-file.js");

/** The keychain form's secrets, read when a refresh needs them. */
export const keychainSecrets = (): typeof import("../formats/keychain-secrets.js") =>
  require("../formats/keychain-secrets.js");
