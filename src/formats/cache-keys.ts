/**
 * Every access-token cache key, built here and nowhere else: a sha256 hex digest of what
 * identifies the credentials behind a token and everything that changes the token (where it is
 * asked for, the scopes, an impersonated account, its lifetime, ...), so that two configurations
 * that would get different tokens never share an entry. Every key derives from secret material
 * (a refresh token, a private key, a subject token read now), never from public values alone: a
 * forged file carrying a victim's public fields must not find the victim's tokens. Only the hash
 * reaches the disk (token-cache/).
 */
import { sha256Hex } from "../util/sha256.js";
import { refreshTokenKeyMaterial } from "./keychain-stand-in.js";
import type { ExternalAccountFile, ExternalAuthorizedUserFile } from "./external-account.js";
import type { ImpersonatedFile } from "./impersonated-file.js";

/** The version of every key's layout: a change of layout must not read entries of the old one. */
const LAYOUT = "cred-auth-token-v2";

/**
 * What identifies the credentials behind a token. Structurally matches the parsed
 * `authorized_user` and `service_account` files; only hashes of these fields reach the disk.
 */
export type TokenCacheIdentity =
  | { type: "authorized_user"; clientId: string; refreshToken: string; tokenUrl?: string }
  | {
      type: "service_account";
      clientEmail: string;
      privateKeyId?: string;
      privateKey: string;
      tokenUrl?: string;
    };

/**
 * The key of a credentials file and the scopes its tokens are requested with. `tokenUrl` is the
 * token endpoint actually used (default: the file's `tokenUrl`), so tokens of an emulator never
 * serve Google. For `authorized_user` files pass the granted scopes (a refresh cannot change
 * them); for service accounts the requested ones.
 */
export function tokenCacheKey(file: TokenCacheIdentity, scopes: readonly string[], tokenUrl?: string): string {
  const identity =
    file.type === "authorized_user"
      ? [file.type, file.clientId, refreshTokenKeyMaterial(file)]
      : [file.type, file.clientEmail, file.privateKeyId ?? "", sha256Hex(file.privateKey)];
  return keyOf([...identity, tokenUrl ?? file.tokenUrl ?? ""], scopes);
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
      ? [source.clientId, sha256Hex(source.clientSecret), sha256Hex(source.refreshToken)]
      : source.type === "external_account_authorized_user"
        ? [source.audience, source.clientId, sha256Hex(source.clientSecret), sha256Hex(source.refreshToken)]
        : [source.clientEmail, sha256Hex(source.privateKey)];
  return keyOf([file.type, source.type, ...secret, file.target, JSON.stringify(file.delegates), url], scopes);
}

/** The digest of `parts` and the scopes (deduplicated and sorted: their order changes no token). */
function keyOf(parts: readonly string[], scopes: readonly string[]): string {
  return sha256Hex(JSON.stringify([LAYOUT, ...parts, [...new Set(scopes)].sort()]));
}

/** The version of every ID-token key's layout (apart from access tokens': an ID token never serves as one). */
const ID_TOKEN_LAYOUT = "cred-auth-id-token-v1";

/**
 * The first half of every ID-token key: a digest of the credentials' secret material and where
 * the ID token is asked for, the same for every audience. An ID-token key is `OWNER-REQUEST`, so
 * every ID token of one credentials file can be found (and removed, `cred-auth revoke`) without
 * knowing the audiences it was asked for.
 */
export type IdTokenOwner =
  | { type: "authorized_user" | "service_account"; file: TokenCacheIdentity; tokenUrl: string }
  | { type: "impersonated_service_account"; file: ImpersonatedFile; url: string }
  | {
      type: "external_account";
      file: ExternalAccountFile;
      urls: ExternalKeyUrls;
      /** The subject token read now: a rotated one gets a new key. */
      subjectToken: string;
    };

/** The owner half of the ID-token keys of `owner` (64 hex digits). */
export function idTokenKeyOwner(owner: IdTokenOwner): string {
  return sha256Hex(JSON.stringify([ID_TOKEN_LAYOUT, ...ownerParts(owner)]));
}

function ownerParts(owner: IdTokenOwner): string[] {
  if (owner.type === "impersonated_service_account") {
    // The impersonated access-token key's parts without its scopes: an ID token has none.
    const { file, url } = owner;
    return [impersonatedCacheKey(file, [], url)];
  }
  if (owner.type === "external_account") return [externalCacheKey(owner.file, [], owner.urls, owner.subjectToken)];
  return [tokenCacheKey(owner.file, [], owner.tokenUrl)];
}

/** What changes an ID token besides its credentials: the audience (none: the token server's own) and the e-mail claim. */
export interface IdTokenRequestKey {
  audience?: string;
  includeEmail: boolean;
}

/** The key of one ID token: `OWNER-REQUEST` (97 characters), see {@link idTokenKeyOwner}. */
export function idTokenCacheKey(owner: IdTokenOwner, request: IdTokenRequestKey): string {
  const asked = sha256Hex(JSON.stringify([ID_TOKEN_LAYOUT, request.audience ?? null, request.includeEmail]));
  return `${idTokenKeyOwner(owner)}-${asked.slice(0, 32)}`;
}
