// What every kind of Application Default Credentials file does, one folder per `type` (./table.ts registers
// them): its parse, tokens, what status and revoke say and do, default()'s client. A capability is a member here.
import type { AuthClient } from "google-auth-library";
import { type CachedAccessToken, getTokenWithCache, tokenCacheDir } from "../../token-cache/index.js";
import { idTokenCacheKey } from "../../formats/cache-keys.js";
import type { ImpersonationSource } from "./impersonated/file.js";
import type { AuthorizedUserFile } from "./user/file.js";
import { ID_TOKEN_ENTRY_TYPE } from "../../formats/token-cache-entry.js";
import type { FetchedIdToken } from "../../protocols/id-token-reply.js";
import type { Universe } from "../../trust/urls.js";

/** Whose a federation file's credentials are: its file names no account. */
export const FEDERATED_IDENTITY = "a federated identity (the file names none)";

/** Where a refresh token that may rotate sits in a file, and how the whole file is checked once it changed. */
export interface RefreshTokenSpot {
  /** The file itself, or an impersonated file's `source_credentials`. */
  place: "file" | "source_credentials";
  check(json: Record<string, unknown>, path: string): void;
}

/** What one access-token request for a file decides once and passes down. */
export interface TokenRequest {
  path: string;
  env: NodeJS.ProcessEnv;
  universe: Universe;
  /** The scopes asked for; undefined: the kind's default. */
  requested: string[] | undefined;
  /** The token cache: `--fresh`, and its directory (`false`: off). */
  cache: { fresh: boolean; dir: string | false };
  /** What went wrong without costing the token, one line each, never a secret. */
  warnings: string[];
  /** Where a rotated refresh token is written back (default: the file itself). */
  spot?: RefreshTokenSpot;
}

/** What one ID-token request for a file decides once and passes down. */
export interface IdTokenFileRequest {
  path: string;
  env: NodeJS.ProcessEnv;
  universe: Universe;
  audience: string | undefined;
  includeEmail: boolean;
  cache: { fresh: boolean; dir: string | false };
}

/** The access token the cache holds for these credentials (under print-token's key for their default scopes). */
export type CachedTokenState =
  | { state: "cached"; expiryDate: number }
  | { state: "none" }
  /** Not known without asking: a federated token's key needs the subject token, a metadata server keeps its own. */
  | { state: "unknown"; why: string };

/** What `status` says of a file, beyond where it was found. */
export interface KindStatus {
  /** Whose credentials: the signed-in user's, the key's account; undefined: the file names none. */
  account?: string;
  /** The service account whose tokens the credentials get (impersonation). */
  actsAs?: string;
  /** The delegation chain of an impersonated file. */
  delegates?: readonly string[];
  /** The scopes the tokens carry: granted at sign-in (user), or asked by default; undefined: not recorded. */
  scopes?: readonly string[];
  /** The universe the file is for. */
  universe?: string;
  quotaProject?: string;
  /** A key's project. */
  projectId?: string;
  /** A federation file's pool or provider. */
  audience?: string;
  accessToken: CachedTokenState;
  /** A person's sign-in: its scopes were granted then, and signing in again renews it. */
  signedIn?: true;
  /** Whose the credentials are when the file names no account. */
  noAccount?: string;
}

/** Where a file was read and is judged, and how to look a key up in the token cache. */
export interface DescribeContext {
  path: string;
  universe: Universe;
  cached: (key: string) => CachedTokenState;
}

/** The user grant revoking ends, or why there is none cred-auth can revoke (and what to do instead). */
export type Revocation = { grant: AuthorizedUserFile; url: string } | { notRevocable: string };

/** Every token-cache entry print-token may have written for a file: access-token keys and ID-token owners. */
export interface CachedTokenKeys {
  keys: string[];
  owners: string[];
}

/** What default() gets from a file: a client, and the project it names. */
export interface KindClient {
  credentials: AuthClient;
  projectId: string | null;
}

/** Where default() reads a file and what it asks for. */
export interface ClientContext {
  scopes: readonly string[];
  env: NodeJS.ProcessEnv;
  universe: Universe;
}

/** One kind of ADC file: every capability is required, so a kind cannot miss one. */
export interface Kind<F extends { type: string }> {
  /** The file's JSON object, its fields checked (`path` names it in errors). */
  parse(json: Record<string, unknown>, path: string): F;
  /** True when the tokens keep the scopes granted at sign-in, whatever is asked (user credentials). */
  readonly keepsGrantedScopes: boolean;
  /** True when an ID token needs no audience (a user's own ID token is for its client). */
  readonly ownIdToken: boolean;
  /** A cached or new access token; `request.requested` undefined means the kind's default scopes. */
  accessToken(file: F, request: TokenRequest): Promise<CachedAccessToken>;
  /** A cached or new ID token. */
  idToken(file: F, request: IdTokenFileRequest): Promise<CachedAccessToken>;
  /** The signed-in user's e-mail when the file records it (print-token's and login's words). */
  signedInAccount(file: F): string | undefined;
  /** Whose credentials: the signed-in user's e-mail, a key's account; undefined when the file names none. */
  account(file: F): string | undefined;
  /** The service account whose tokens the credentials get, when they impersonate one. */
  actsAs(file: F): string | undefined;
  /** What `status` says, with the cached token under print-token's key for the default scopes. */
  describe(file: F, context: DescribeContext): KindStatus;
  /** What `revoke` can end. */
  revocation(file: F, where: { universe: Universe; path: string }): Revocation;
  /** What `revoke` forgets from the token cache. */
  cachedTokens(file: F, where: { universe: Universe; path: string }): CachedTokenKeys;
  /** What such a file holds, in words, when `login` must not replace it (undefined: it may); from its unparsed JSON. */
  notReplaceable(json: Record<string, unknown>): string | undefined;
  /** The client default() returns for `file` (read from `path`), proven later by default(). */
  client(file: F, path: string, context: ClientContext): Promise<KindClient>;
  /** An ID token of `client`, a google-auth-library client of this kind (cred-auth's, or the caller's own). */
  clientIdToken(client: AuthClient, request: ClientIdTokenRequest): Promise<FetchedIdToken>;
}

/** What one ID token of a google-auth-library client is asked with (credentials/id-token.ts decides it). */
export interface ClientIdTokenRequest {
  audience: string;
  includeEmail: boolean;
  /** Where the token cache, the metadata server and the emulator are read. */
  env: NodeJS.ProcessEnv;
  /** The ID token of the file at `path` as print-identity-token gets it: the same claims, the same cache entry. */
  fromFile(path: string): Promise<FetchedIdToken>;
  /** `mint()`'s token, kept in memory for this client while it has more than 5 minutes left. */
  remembered(mint: () => Promise<FetchedIdToken>): Promise<FetchedIdToken>;
}

/** A kind an impersonated file's `source_credentials` may be: it also builds the client `Impersonated` asks with. */
export interface SourceKind<F extends ImpersonationSource> extends Kind<F> {
  /** The source's client inside the file at `path` (a rotated refresh token kept at `spot`), and its project. */
  sourceClient(file: F, path: string, context: SourceContext): Promise<KindClient>;
}

/** Where an impersonation's source client is built. */
export interface SourceContext {
  env: NodeJS.ProcessEnv;
  universe: Universe;
  spot: RefreshTokenSpot;
}

/** `mint()` through the token cache under the ID-token key of the request and the credentials' `accessKey` without scopes. */
export function cachedIdToken(
  accessKey: string,
  request: Pick<IdTokenFileRequest, "audience" | "includeEmail" | "cache">,
  mint: () => Promise<FetchedIdToken>,
): Promise<CachedAccessToken> {
  const asked = request.audience === undefined ? {} : { audience: request.audience };
  const key = idTokenCacheKey(accessKey, { ...asked, includeEmail: request.includeEmail });
  return getTokenWithCache(
    key,
    async () => {
      const token = await mint();
      return { access_token: token.idToken, expiry_date: token.expiresAt, token_type: ID_TOKEN_ENTRY_TYPE };
    },
    request.cache,
  );
}

/** `mint()` through the token cache for a client's ID token: print-identity-token's entry for the same secrets. */
export async function cachedClientIdToken(
  accessKey: string,
  audience: string | undefined,
  request: ClientIdTokenRequest,
  mint: () => Promise<FetchedIdToken>,
): Promise<FetchedIdToken> {
  const cache = { fresh: false, dir: tokenCacheDir(request.env) };
  const entry = await cachedIdToken(accessKey, { audience, includeEmail: request.includeEmail, cache }, mint);
  return { idToken: entry.access_token, expiresAt: entry.expiry_date };
}

/** The access-token request an ID token's source makes: its own default scopes, its cached token reused. */
export function sourceRequestOf(request: IdTokenFileRequest): TokenRequest {
  return { ...request, requested: undefined, cache: { fresh: false, dir: request.cache.dir }, warnings: [] };
}
