// What the hot paths need of the keychain form of the credentials cache file (formats/keychain-cache-file.ts),
// without loading it: the field that marks the form, and the access-token cache's stand-in for a refresh
// token that is in the keychain. print-token's cached path and default()'s warm path use these and never
// ask the keychain (test/cli/hot-path.test.ts, test/credentials/warm-path.test.ts).

/** The field that marks the keychain form and names its entry. */
export const KEYCHAIN_FIELD = "cred_auth_keychain";

const standIns = new WeakMap<object, string>();

/** Records that `file` (parsed user credentials whose secrets are in the keychain) is keyed by `standIn`. */
export function recordStandIn(file: object, standIn: string): void {
  standIns.set(file, standIn);
}

/** The stand-in recorded for `holder` (a file or a client), if any. */
export function standInOf(holder: object): string | undefined {
  return standIns.get(holder);
}

/**
 * The secret material the access-token cache keys user credentials by: for a keychain-form file the
 * random id of its save (reading the keychain would cost the hot path), else the refresh token.
 */
export function refreshTokenKeyMaterial(file: { refreshToken: string }): string {
  return standIns.get(file) ?? file.refreshToken;
}
