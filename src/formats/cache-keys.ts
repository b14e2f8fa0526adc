// Every token-cache key is a sha256 of what identifies the credentials and changes the token, derived from
// secret material (never public fields alone: a forged file must not find a victim's tokens). Each kind says its parts.
import { sha256Hex } from "../util/sha256.js";
import { refreshTokenKeyMaterial } from "./stand-in.js";

/** The version of every key's layout: a change of layout must not read entries of the old one. */
const LAYOUT = "cred-auth-token-v2";

/** The key of an access token: `parts` (what identifies the credentials and where) and the scopes. */
export function accessTokenKey(parts: readonly string[], scopes: readonly string[]): string {
  // The scopes deduplicated and sorted: their order changes no token.
  return sha256Hex(JSON.stringify([LAYOUT, ...parts, [...new Set(scopes)].sort()]));
}

/** What identifies a user's or a key's credentials (structurally their files); only hashes reach the disk. */
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
 * The key of a user's or key's tokens with `scopes` (granted for a user, asked for a key), at `tokenUrl`
 * (default the file's): an emulator's tokens never serve Google.
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

/** The first half of every ID-token key of some credentials: their access key without scopes, so revoke finds all. */
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
