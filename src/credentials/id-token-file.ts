// An ID token for a credentials file of any ADC type, through the 0600 token cache shared by
// processes (access-token-cache/): `cred-auth print-identity-token` is called in loops as
// print-token is, and an ID token lives an hour as an access token does. With a cached token it
// reads the file, judges its URLs (formats/destinations.ts) and reads one cache entry, loading no
// package; getting a new one (google-auth-library, IAM Credentials, STS) lives in
// ./id-token-mint.ts, loaded on a miss. Keys: formats/cache-keys.ts `idTokenCacheKey`.
import { type CachedAccessToken, getTokenWithCache, tokenCacheDir } from "../access-token-cache/index.js";
import { type AdcFile, readAdcFileSync } from "../formats/adc-file.js";
import { type IdTokenOwner, idTokenCacheKey } from "../formats/cache-keys.js";
import type { CredentialsFile } from "../formats/credentials-file.js";
import { externalAccountDestinations, idTokenUrlOf, impersonatedDestinations } from "../formats/destinations.js";
import type { ExternalAccountFile } from "../formats/external-account.js";
import type { ImpersonatedFile } from "../formats/impersonated-file.js";
import { ID_TOKEN_ENTRY_TYPE } from "../formats/token-cache-entry.js";
import type { FetchedIdToken } from "../token-services/id-token-reply.js";
import { chooseTokenUrl } from "../token-services/token-requests.js";
import { type Universe, trustedUniverse } from "../trust/urls.js";
import { quoted } from "../trust/text.js";
import { checkedAudience, federationMintsNoIdTokens } from "./id-token-words.js";
import { impersonationSourceToken } from "./file-token.js";
import { fileRefresh, idTokenMint } from "./lazy.js";

/** Options of {@link idTokenForFile}. */
export interface FileIdTokenOptions {
  /**
   * Who the token is for: the receiving service's URL (Cloud Run), an IAP resource's OAuth client
   * id, or a custom audience. Required, except for user credentials: without one they give the
   * signed-in client's own ID token (`aud` = its client id), as gcloud does.
   */
  audience?: string;
  /** Put the service account's e-mail in an impersonated or federated token (IAM's `includeEmail`). Default false. */
  includeEmail?: boolean;
  /** Ignore the token cache and get a new token. */
  fresh?: boolean;
  /** Where `CRED_AUTH_EMULATOR_HOST`, `GOOGLE_CLOUD_UNIVERSE_DOMAIN` and the cache's place are read. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** The universe whose services may receive the file's secrets (default: `GOOGLE_CLOUD_UNIVERSE_DOMAIN`, else googleapis.com). */
  universeDomain?: string;
}

/** An ID token for a credentials file. */
export interface FileIdToken {
  idToken: string;
  /** When it expires (its `exp`), in milliseconds since the epoch. */
  expiryDate: number;
  /** The file's `type`. */
  credentialsType: AdcFile["type"];
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

/**
 * A cached or new ID token for the credentials file at `path`: `authorized_user` (the refresh
 * grant, with `audience` for another client), `service_account` (the JWT-bearer grant with
 * `target_audience`), `impersonated_service_account` (IAM Credentials `generateIdToken`), or
 * `external_account` with service-account impersonation (STS, then `generateIdToken`). A token
 * with more than 5 minutes left is reused from the token cache.
 *
 * @throws CredCredentialsError `ERR_ID_TOKEN_UNSUPPORTED` for federation without impersonation.
 */
export async function idTokenForFile(path: string, options: FileIdTokenOptions = {}): Promise<FileIdToken> {
  const env = options.env ?? process.env;
  const universe = trustedUniverse(env, options.universeDomain);
  const file = readAdcFileSync(path);
  const request: IdTokenFileRequest = {
    path,
    env,
    universe,
    audience: checkedAudience(options.audience, file.type),
    includeEmail: options.includeEmail === true,
    cache: { fresh: options.fresh === true, dir: tokenCacheDir(env) },
  };
  const token = await idTokenFor(file, request);
  return { idToken: token.access_token, expiryDate: token.expiry_date, credentialsType: file.type };
}

function idTokenFor(file: AdcFile, request: IdTokenFileRequest): Promise<CachedAccessToken> {
  if (file.type === "external_account") return externalIdToken(file, request);
  if (file.type === "external_account_authorized_user")
    throw federationMintsNoIdTokens(quoted(request.path), file.type);
  if (file.type === "impersonated_service_account") return impersonatedIdToken(file, request);
  return credentialsIdToken(file, request);
}

/** A user's refresh grant (the signed-in client's own token when the audience is that client), or a key's JWT-bearer grant. */
function credentialsIdToken(file: CredentialsFile, request: IdTokenFileRequest): Promise<CachedAccessToken> {
  const tokenUrl = chooseTokenUrl(file, request.universe, request.path);
  const audience = file.type === "authorized_user" && request.audience === file.clientId ? undefined : request.audience;
  const owner: IdTokenOwner = { type: file.type, file, tokenUrl };
  return cachedIdToken(owner, { ...request, audience }, () =>
    idTokenMint().credentialsIdToken(file, { ...request, audience, tokenUrl }),
  );
}

/** The source's access token (itself cached, as print-token caches it), then generateIdToken. */
function impersonatedIdToken(file: ImpersonatedFile, request: IdTokenFileRequest): Promise<CachedAccessToken> {
  const { iamUrl } = impersonatedDestinations(file, request.universe, request.path);
  // The source's own access token, cached under print-token's key for it.
  const source = (): Promise<CachedAccessToken> =>
    impersonationSourceToken(file.source, {
      ...request,
      requested: undefined,
      cache: { fresh: false, dir: request.cache.dir },
      warnings: [],
    });
  const audience = request.audience as string; // checkedAudience: required for every type but authorized_user
  return cachedIdToken({ type: file.type, file, url: iamUrl }, request, () =>
    idTokenMint().impersonatedIdToken(file, idTokenUrlOf(iamUrl), source, audience, request.includeEmail),
  );
}

/** STS's federated token, then generateIdToken on the account the file impersonates; none without one. */
async function externalIdToken(file: ExternalAccountFile, request: IdTokenFileRequest): Promise<CachedAccessToken> {
  const urls = externalAccountDestinations(file, request.universe, request.path);
  const { impersonationUrl } = urls;
  const target = file.impersonationTarget;
  if (impersonationUrl === undefined || target === undefined)
    throw federationMintsNoIdTokens(quoted(request.path), file.type);
  // A file or URL's token, or (AWS) a request signed now with the region and keys it keys the cache by.
  const subject = await fileRefresh().subjectOf(file, urls, request.env);
  const asked = {
    tokenUrl: urls.tokenUrl,
    idTokenUrl: idTokenUrlOf(impersonationUrl),
    target,
    subjectToken: subject.token(),
    secrets: subject.secrets,
    audience: request.audience as string,
    includeEmail: request.includeEmail,
  };
  return cachedIdToken({ type: file.type, file, urls, subjectToken: subject.keyMaterial }, request, () =>
    idTokenMint().externalIdToken(file, asked),
  );
}

/** `mint()` through the token cache under the ID-token key of `owner` and the request. */
function cachedIdToken(
  owner: IdTokenOwner,
  request: IdTokenFileRequest,
  mint: () => Promise<FetchedIdToken>,
): Promise<CachedAccessToken> {
  const asked = request.audience === undefined ? {} : { audience: request.audience };
  const key = idTokenCacheKey(owner, { ...asked, includeEmail: request.includeEmail });
  return getTokenWithCache(key, async () => entryOf(await mint()), request.cache);
}

function entryOf(token: FetchedIdToken): CachedAccessToken {
  return { access_token: token.idToken, expiry_date: token.expiresAt, token_type: ID_TOKEN_ENTRY_TYPE };
}
