/**
 * Access-token cache keys of the federation types, from secret material only: the subject token
 * (read now: a rotated token gets a new key) with its source and audience, or the refresh token
 * and client secret. Public values alone (audience, client id) would let anyone who can write a
 * file with the same public fields read a cached token.
 */
import { sha256Hex } from "../access-token-cache/sha256.js";
import { type ExternalAccountFile, type ExternalAuthorizedUserFile, readSubjectToken } from "./external-account.js";

export async function externalCacheKey(
  file: ExternalAccountFile | ExternalAuthorizedUserFile,
  scopes: readonly string[],
  tokenUrl: string,
): Promise<string> {
  const sorted = [...new Set(scopes)].sort();
  const identity =
    file.type === "external_account"
      ? [
          file.audience,
          JSON.stringify(file.source),
          sha256Hex(await readSubjectToken(file.source)),
          file.serviceAccountImpersonationUrl ?? "",
        ]
      : [file.audience, file.clientId, sha256Hex(file.clientSecret), sha256Hex(file.refreshToken)];
  return sha256Hex(JSON.stringify(["cred-auth-token-v2", file.type, ...identity, tokenUrl, sorted]));
}
