/**
 * Every access-token cache key, built here and nowhere else: a sha256 hex digest of what
 * identifies the credentials behind a token and everything that changes the token (where it is
 * asked for, the scopes, an impersonated account, its lifetime, ...), so that two configurations
 * that would get different tokens never share an entry. Every key derives from secret material
 * (a refresh token, a private key, a subject token read now), never from public values alone: a
 * forged file carrying a victim's public fields must not find the victim's tokens. Only the hash
 * reaches the disk (access-token-cache/).
 */
import { sha256Hex } from "../util/sha256.js";
import type { ExternalAccountFile, ExternalAuthorizedUserFile } from "./external-account.js";
import type { ImpersonatedFile } from "./impersonated-file.js";

/** The version of every key's layout: a change of layout must not read entries of the old one. */
const LAYOUT = "cred-auth-token-v2";

/**
 * What identifies the credentials behind a token. Structurally matches the parsed
 * `authorized_user` and `service_account` files; only hashes of these fields reach the disk.
 */
export type TokenCacheIdentity =
  | { type: "authorized_user"; client_id: string; refresh_token: string; token_uri?: string }
  | {
      type: "service_account";
      client_email: string;
      private_key_id?: string;
      private_key: string;
      token_uri?: string;
    };

/**
 * The key of a credentials file and the scopes its tokens are requested with. `tokenUrl` is the
 * token endpoint actually used (default: the file's `token_uri`), so tokens of an emulator never
 * serve Google. For `authorized_user` files pass the granted scopes (a refresh cannot change
 * them); for service accounts the requested ones.
 */
export function tokenCacheKey(file: TokenCacheIdentity, scopes: readonly string[], tokenUrl?: string): string {
  const identity =
    file.type === "authorized_user"
      ? [file.type, file.client_id, file.refresh_token]
      : [file.type, file.client_email, file.private_key_id ?? "", sha256Hex(file.private_key)];
  return keyOf([...identity, tokenUrl ?? file.token_uri ?? ""], scopes);
}

/** The judged URLs a federation key depends on (formats/destinations.ts). */
export interface ExternalKeyUrls {
  tokenUrl: string;
  impersonationUrl?: string;
}

/**
 * The key of a federation file's token. For `external_account`: the subject token (read now: a
 * rotated token gets a new key) with its type and source, the audience, the workforce user
 * project, the STS client, the impersonated account and its token lifetime. For
 * `external_account_authorized_user`: the refresh token and the client.
 */
export function externalCacheKey(
  file: ExternalAccountFile | ExternalAuthorizedUserFile,
  scopes: readonly string[],
  urls: ExternalKeyUrls,
  subjectToken?: string,
): string {
  const identity =
    file.type === "external_account"
      ? [
          file.audience,
          file.subjectTokenType,
          JSON.stringify(file.source),
          sha256Hex(subjectToken ?? ""),
          file.workforcePoolUserProject ?? "",
          file.clientId ?? "",
          sha256Hex(file.clientSecret ?? ""),
          urls.impersonationUrl ?? "",
          String(file.impersonationLifetimeSec ?? ""),
        ]
      : [file.audience, file.clientId, sha256Hex(file.clientSecret), sha256Hex(file.refreshToken)];
  return keyOf([file.type, ...identity, urls.tokenUrl], scopes);
}

/**
 * The key of an impersonated token: the source's secret (refresh token and client secret, a
 * workforce user's too, or private key), never the public account names alone, with the chain, the URL asked and the scopes.
 */
export function impersonatedCacheKey(file: ImpersonatedFile, scopes: readonly string[], url: string): string {
  const { source } = file;
  const secret =
    source.type === "authorized_user"
      ? [source.client_id, sha256Hex(source.client_secret), sha256Hex(source.refresh_token)]
      : source.type === "external_account_authorized_user"
        ? [source.audience, source.clientId, sha256Hex(source.clientSecret), sha256Hex(source.refreshToken)]
        : [source.client_email, sha256Hex(source.private_key)];
  return keyOf([file.type, source.type, ...secret, file.target, JSON.stringify(file.delegates), url], scopes);
}

/** The digest of `parts` and the scopes (deduplicated and sorted: their order changes no token). */
function keyOf(parts: readonly string[], scopes: readonly string[]): string {
  return sha256Hex(JSON.stringify([LAYOUT, ...parts, [...new Set(scopes)].sort()]));
}
