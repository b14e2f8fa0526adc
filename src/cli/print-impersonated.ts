// print-token for impersonated_service_account files: the source's token (itself through the token
// cache), then generateAccessToken at Google's IAM Credentials API (or the emulator); the result is
// cached under a key derived from the source's secret (google/impersonated-key.ts).
import { type CachedAccessToken, getTokenWithCache } from "../access-token-cache/index.js";
import type { ImpersonatedFile } from "../google/impersonated-file.js";
import { impersonatedCacheKey } from "../google/impersonated-key.js";
import { generateAccessToken } from "../google/impersonation.js";
import { safeServiceUrl } from "../google/service-url.js";
import { CLOUD_PLATFORM_SCOPE } from "../shared/constants.js";
import { fileToken } from "./file-token.js";

/** A cached or new token acting as the file's service account, with `requested` scopes (else the file's, else cloud-platform). */
export async function impersonatedToken(
  file: ImpersonatedFile,
  path: string,
  requested: string[] | undefined,
  fresh: boolean,
): Promise<CachedAccessToken> {
  const scopes = requested ?? file.scopes ?? [CLOUD_PLATFORM_SCOPE];
  const url = safeServiceUrl(file.impersonationUrl, "iamcredentials", file.universeDomain);
  const refresh = async (): Promise<CachedAccessToken> => {
    // The source asks with cloud-platform (a key) or the scopes granted at login (a user).
    const source = await fileToken(file.source, path, undefined, fresh);
    const got = await generateAccessToken({
      url,
      target: file.target,
      sourceToken: source.access_token,
      delegates: file.delegates,
      scopes,
    });
    return { access_token: got.accessToken, expiry_date: got.expiresAt, token_type: "Bearer", scopes };
  };
  return getTokenWithCache(impersonatedCacheKey(file, scopes, url), refresh, { fresh });
}
