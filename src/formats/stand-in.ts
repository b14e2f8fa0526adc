// What stands in, in the token cache's keys, for a refresh token a secret store keeps outside the credentials file: a
// warm start finds its access token without reading the secret (test/cli/hot-path.test.ts, warm-path.test.ts).

const standIns = new WeakMap<object, string>();

/** Records that `holder` (parsed user credentials, or their client) is keyed by `standIn`. */
export function recordStandIn(holder: object, standIn: string): void {
  standIns.set(holder, standIn);
}

export function standInOf(holder: object): string | undefined {
  return standIns.get(holder);
}

/** The secret material the token cache keys user credentials by: their stand-in, else the refresh token. */
export function refreshTokenKeyMaterial(file: { refreshToken: string }): string {
  return standIns.get(file) ?? file.refreshToken;
}
