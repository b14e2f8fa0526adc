// print-token for external_account and external_account_authorized_user files: the same 0600
// token cache, keyed by secret material (see google/external-account-key.ts); no google-auth-library.
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { type CachedAccessToken, getTokenWithCache } from "../access-token-cache/index.js";
import {
  type ExternalAccountFile,
  type ExternalAuthorizedUserFile,
  exchangeSubjectToken,
  refreshExternalAuthorizedUser,
  safeStsUrl,
} from "../google/external-account.js";
import { externalCacheKey } from "../google/external-account-key.js";
import { CLOUD_PLATFORM_SCOPE } from "../shared/constants.js";

/** A cached or new access token for a federation file. */
export async function externalToken(
  file: ExternalAccountFile | ExternalAuthorizedUserFile,
  requested: string[] | undefined,
  fresh: boolean,
): Promise<CachedAccessToken> {
  if (file.type === "external_account" && file.serviceAccountImpersonationUrl)
    throw new CredCredentialsError(
      "print-token does not yet follow service_account_impersonation_url; use default() for this file.",
      { code: ERROR_CODES.INVALID_OPTION },
    );
  const scopes = file.type === "external_account" ? (requested ?? [CLOUD_PLATFORM_SCOPE]) : [CLOUD_PLATFORM_SCOPE];
  const tokenUrl = safeStsUrl(file.tokenUrl, file.universeDomain);
  const key = await externalCacheKey(file, scopes, tokenUrl);
  const refresh = async (): Promise<CachedAccessToken> => {
    const got =
      file.type === "external_account"
        ? await exchangeSubjectToken(file, scopes)
        : await refreshExternalAuthorizedUser(file);
    return { access_token: got.accessToken, expiry_date: got.expiresAt, token_type: "Bearer", scopes };
  };
  return getTokenWithCache(key, refresh, { fresh });
}
