/**
 * The access-token cache key of an impersonated token: from the source's secret (refresh token
 * and client secret, or private key), never from the public account names alone, with the chain,
 * the URL asked and the scopes.
 */
import { sha256Hex } from "../access-token-cache/sha256.js";
import type { ImpersonatedFile } from "./impersonated-file.js";

export function impersonatedCacheKey(file: ImpersonatedFile, scopes: readonly string[], url: string): string {
  const { source } = file;
  const secret =
    source.type === "authorized_user"
      ? [source.client_id, sha256Hex(source.client_secret), sha256Hex(source.refresh_token)]
      : [source.client_email, sha256Hex(source.private_key)];
  const sorted = [...new Set(scopes)].sort();
  return sha256Hex(
    JSON.stringify(["cred-auth-token-v2", file.type, source.type, ...secret, file.target, file.delegates, url, sorted]),
  );
}
