// print-token for external_account and external_account_authorized_user files: the same 0600
// token cache, keyed by secret material (see google/external-account-key.ts); no google-auth-library.
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { type CachedAccessToken, getTokenWithCache } from "../access-token-cache/index.js";
import {
  type ExternalAccountFile,
  type ExternalAuthorizedUserFile,
  type FetchedToken,
  exchangeSubjectToken,
  refreshExternalAuthorizedUser,
  safeStsUrl,
} from "../google/external-account.js";
import { externalCacheKey } from "../google/external-account-key.js";
import { generateAccessToken, targetOfImpersonationUrl } from "../google/impersonation.js";
import { safeServiceUrl } from "../google/service-url.js";
import { CLOUD_PLATFORM_SCOPE } from "../shared/constants.js";

/** A cached or new access token for a federation file. */
export async function externalToken(
  file: ExternalAccountFile | ExternalAuthorizedUserFile,
  requested: string[] | undefined,
  fresh: boolean,
): Promise<CachedAccessToken> {
  const scopes = file.type === "external_account" ? (requested ?? [CLOUD_PLATFORM_SCOPE]) : [CLOUD_PLATFORM_SCOPE];
  const tokenUrl = safeStsUrl(file.tokenUrl, file.universeDomain);
  const key = await externalCacheKey(file, scopes, tokenUrl);
  const refresh = async (): Promise<CachedAccessToken> => {
    const got =
      file.type === "external_account" ? await federatedToken(file, scopes) : await refreshExternalAuthorizedUser(file);
    return { access_token: got.accessToken, expiry_date: got.expiresAt, token_type: "Bearer", scopes };
  };
  return getTokenWithCache(key, refresh, { fresh });
}

/**
 * STS's federated token; with `service_account_impersonation_url`, that token (cloud-platform,
 * as google-auth-library asks) then gets the service account's token with `scopes`.
 */
async function federatedToken(file: ExternalAccountFile, scopes: string[]): Promise<FetchedToken> {
  const url = file.serviceAccountImpersonationUrl;
  if (url === undefined) return exchangeSubjectToken(file, scopes);
  const target = targetOfImpersonationUrl(url);
  if (target === undefined)
    throw new CredCredentialsError(
      "The credentials file's service_account_impersonation_url does not end in ACCOUNT:generateAccessToken; write the file again.",
      { code: ERROR_CODES.FILE_INVALID },
    );
  const checked = safeServiceUrl(url, "iamcredentials", file.universeDomain);
  const federated = await exchangeSubjectToken(file, [CLOUD_PLATFORM_SCOPE]);
  return generateAccessToken({
    url: checked,
    target,
    sourceToken: federated.accessToken,
    delegates: [],
    scopes,
    ...(file.impersonationLifetimeSec ? { lifetimeSec: file.impersonationLifetimeSec } : {}),
  });
}
