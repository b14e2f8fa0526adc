/**
 * Revocation as Google documents it: the revoke endpoint takes an access token or a refresh token
 * and removes "the permissions granted to the application", so every refresh token and access
 * token of that client and account stops working, and the next consent hands out a refresh token
 * again. A service account's token (a key's, the metadata server's, IAM Credentials') is not
 * revocable: Google answers 400 `invalid_request`, which gcloud's `store.py` passes over as
 * "Service account token". Other tokens of no OAuth client (STS's) are revoked one by one.
 * Sources: docs/emulator.md, section "Revocation".
 */
import type { EmulatorState } from "./state.js";

/** What revoking a token did. */
export type RevokeOutcome = "revoked" | "unknown" | "service-account";

/** A service account's e-mail, as Google spells them (`NAME@PROJECT.iam.gserviceaccount.com`, and the older forms). */
const SERVICE_ACCOUNT = /@[^@\s]+\.gserviceaccount\.com$/;

/** Who a token was granted to, when it is a live one; expired ones count as unknown. */
function grantOf(state: EmulatorState, token: string): { clientId: string; account: string } | undefined {
  return state.refreshRecord(token) ?? state.accessRecord(token);
}

/**
 * Revokes what `token` stands for: "unknown" when it is unknown, expired or already revoked;
 * "service-account" (left working) when a service account holds it.
 */
export function revokeGrant(state: EmulatorState, token: string): RevokeOutcome {
  const grant = grantOf(state, token);
  if (!grant) return "unknown";
  if (SERVICE_ACCOUNT.test(grant.account)) return "service-account";
  if (!state.clients.has(grant.clientId)) {
    state.accessTokens.delete(token);
    return "revoked";
  }
  const sameGrant = (record: { clientId: string; account: string }) =>
    record.clientId === grant.clientId && record.account === grant.account;
  for (const [refreshToken, record] of state.refreshTokens)
    if (sameGrant(record)) state.revokeRefreshToken(refreshToken);
  for (const [accessToken, record] of state.accessTokens) if (sameGrant(record)) state.accessTokens.delete(accessToken);
  state.forgetOfflineGrant(grant.clientId, grant.account);
  return "revoked";
}
