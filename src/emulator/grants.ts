/**
 * Revocation as Google documents it: the revoke endpoint takes an access token or a refresh token
 * and removes "the permissions granted to the application", so every refresh token and access
 * token of that client and account stops working, and the next consent hands out a refresh token
 * again. Tokens that belong to no OAuth client (service accounts, the metadata server, STS, IAM)
 * are revoked one by one. Sources: docs/emulator.md, section "Revocation".
 */
import type { EmulatorState } from "./state.js";

/** Who a token was granted to, when it is a live one; expired ones count as unknown. */
function grantOf(state: EmulatorState, token: string): { clientId: string; account: string } | undefined {
  return state.refreshRecord(token) ?? state.accessRecord(token);
}

/** Revokes what `token` stands for; false when it is unknown, expired or already revoked. */
export function revokeGrant(state: EmulatorState, token: string): boolean {
  const grant = grantOf(state, token);
  if (!grant) return false;
  if (!state.clients.has(grant.clientId)) {
    state.accessTokens.delete(token);
    return true;
  }
  const sameGrant = (record: { clientId: string; account: string }) =>
    record.clientId === grant.clientId && record.account === grant.account;
  for (const [refreshToken, record] of state.refreshTokens)
    if (sameGrant(record)) state.revokeRefreshToken(refreshToken);
  for (const [accessToken, record] of state.accessTokens) if (sameGrant(record)) state.accessTokens.delete(accessToken);
  state.forgetOfflineGrant(grant.clientId, grant.account);
  return true;
}
