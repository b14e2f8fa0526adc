/**
 * Every token-cache key is a sha256 hex digest of what identifies the credentials behind a token and
 * everything that changes the token (where it is asked for, the scopes, an impersonated account, ...):
 * two configurations that would get different tokens never share an entry. Every key derives from
 * secret material (a refresh token, a private key, a subject token read now), never from public
 * values alone: a forged file carrying a victim's public fields must not find the victim's tokens.
 * Only the hash reaches the disk (token-cache/). Each kind says its parts (credentials/kinds/).
 */
import { sha256Hex } from "../util/sha256.js";
import { refreshTokenKeyMaterial } from "./stand-in.js";

/** The version of every key's layout: a change of layout must not read entries of the old one. */
const LAYOUT = "cred-auth-token-v2";

/** The key of an access token: `parts` (what identifies the credentials and where) and the scopes. */
export function accessTokenKey(parts: readonly string[], scopes: readonly string[]): string {
  // The scopes deduplicated and sorted: their order changes no token.
  return sha256Hex(JSON.stringify([LAYOUT, ...parts, [...new Set(scopes)].sort()]));
}

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
  return accessTokenKey([...identity, tokenUrl ?? file.tokenUrl ?? ""], scopes);
}

/** The version of every ID-token key's layout (apart from access tokens': an ID token never serves as one). */
const ID_TOKEN_LAYOUT = "cred-auth-id-token-v1";

/**
 * The first half of every ID-token key of some credentials (64 hex digits), made of their access-token
 * key without scopes (`accessKey`): the same for every audience, so `revoke` finds every ID token of a
 * file without knowing the audiences asked.
 */
export function idTokenKeyOwner(accessKey: string): string {
  return sha256Hex(JSON.stringify([ID_TOKEN_LAYOUT, accessKey]));
}

/** What changes an ID token besides its credentials: the audience (none: the token server's own) and the e-mail claim. */
export interface IdTokenRequestKey {
  audience?: string;
  includeEmail: boolean;
}

/** The key of one ID token: `OWNER-REQUEST` (97 characters), `OWNER` the {@link idTokenKeyOwner} of `accessKey`. */
export function idTokenCacheKey(accessKey: string, request: IdTokenRequestKey): string {
  const asked = sha256Hex(JSON.stringify([ID_TOKEN_LAYOUT, request.audience ?? null, request.includeEmail]));
  return `${idTokenKeyOwner(accessKey)}-${asked.slice(0, 32)}`;
}
