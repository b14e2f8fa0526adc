// `external_account_authorized_user`: a workforce identity federation sign-in, as gcloud writes it
// (`--login-config`). Its fields checked, the URLs it names judged, its token-cache key.
// Pure: it reads and writes no file.
import { accessTokenKey } from "../../../formats/cache-keys.js";
import { destination } from "../../../formats/destinations.js";
import { fieldsOf, present } from "../../../formats/fields.js";
import { CLOUD_PLATFORM_SCOPE } from "../../../shared/constants.js";
import { type Universe, checkFileUniverse, trustedUrl } from "../../../trust/urls.js";
import { sha256Hex } from "../../../util/sha256.js";

export interface WorkforceUserFile {
  type: "external_account_authorized_user";
  audience: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  tokenUrl: string;
  tokenInfoUrl?: string;
  revokeUrl?: string;
  quotaProjectId?: string;
  universeDomain: string;
}

/** Its tokens' scope: STS refreshes a workforce user with cloud-platform, whatever is asked. */
export const WORKFORCE_USER_SCOPES = [CLOUD_PLATFORM_SCOPE];

/** The file's JSON, checked; `path` names the file in errors. */
export function parseWorkforceUserFile(json: Record<string, unknown>, path?: string): WorkforceUserFile {
  const { str } = fieldsOf(path);
  const universeDomain = str(json, "universe_domain", false) ?? "googleapis.com";
  return {
    type: "external_account_authorized_user",
    audience: str(json, "audience", true),
    clientId: str(json, "client_id", true),
    clientSecret: str(json, "client_secret", true),
    refreshToken: str(json, "refresh_token", true),
    tokenUrl: str(json, "token_url", false) ?? `https://sts.${universeDomain}/v1/oauthtoken`,
    universeDomain,
    ...present({
      tokenInfoUrl: str(json, "token_info_url", false),
      revokeUrl: str(json, "revoke_url", false),
      quotaProjectId: str(json, "quota_project_id", false),
    }),
  };
}

/** Where the refresh token goes (STS), judged; a foreign `token_info_url` or `revoke_url` is refused too. */
export function workforceUserTokenUrl(file: WorkforceUserFile, universe: Universe, path?: string): string {
  checkFileUniverse(file.universeDomain, universe, path);
  for (const [field, url] of [
    ["token_info_url", file.tokenInfoUrl],
    ["revoke_url", file.revokeUrl],
  ] as const)
    if (url !== undefined) trustedUrl(url, destination("sts", field, path), universe);
  return trustedUrl(file.tokenUrl, destination("sts", "token_url", path), universe);
}

/** The secrets and client that tell this sign-in from any other, hashed: part of every key of its tokens. */
export function workforceUserKeyParts(file: WorkforceUserFile): string[] {
  return [file.audience, file.clientId, sha256Hex(file.clientSecret), sha256Hex(file.refreshToken)];
}

/** The token-cache key of its access token from the judged `tokenUrl` (a rotated refresh token makes another). */
export function workforceUserTokenKey(file: WorkforceUserFile, tokenUrl: string): string {
  return accessTokenKey([file.type, ...workforceUserKeyParts(file), tokenUrl], WORKFORCE_USER_SCOPES);
}
