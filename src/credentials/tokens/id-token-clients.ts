// An ID token from a google-auth-library client (what default() found, or what the caller built),
// by what the client is: a user's refresh grant, a key's JWT-bearer grant, IAM Credentials for an
// impersonated account, the metadata server's identity endpoint, or, for an impersonated or
// federation file default() read, that file (./id-token-file.ts). User and key clients and files
// share the token cache with print-identity-token (the same key for the same secrets and
// includeEmail); the others are kept in memory per client.
import type { AuthClient, Impersonated, JWT, UserRefreshClient } from "google-auth-library";
import {
  type CachedAccessToken,
  MIN_VALIDITY_MS,
  getTokenWithCache,
  hasValidity,
  tokenCacheDir,
} from "../../token-cache/index.js";
import { idTokenCacheKey, tokenCacheKey } from "../../formats/cache-keys.js";
import { ID_TOKEN_ENTRY_TYPE } from "../../formats/token-cache-entry.js";
import { metadataIdToken } from "../../hosted/metadata.js";
import { idTokenImpersonationErrorOf } from "../../protocols/iam-credentials.js";
import { type FetchedIdToken, fetchedIdToken } from "../../protocols/id-token-reply.js";
import { clientSecretsOf, getCredentialInfo } from "../../protocols/info.js";
import { authorizedUserFileFrom, userRefreshClientFrom } from "../kinds/user/client.js";
import { toCredError } from "../../protocols/token-errors.js";
import { userIdToken } from "../../protocols/user-id-token.js";
import { CredCredentialsError, ERROR_CODES } from "../../errors.js";
import { GOOGLE_ENDPOINTS } from "../../shared/constants.js";
import { printable, quoted } from "../../trust/text.js";
import { loadGoogleAuth } from "../../util/lazy.js";
import { kindOf, readAdcFile } from "../kinds/table.js";
import { idTokenForFile } from "./id-token-file.js";
import { federationMintsNoIdTokens } from "../../protocols/id-token-words.js";

/** What one ID token of a client is asked with, decided by ../id-token.ts. */
export interface ClientIdTokenRequest {
  audience: string;
  includeEmail: boolean;
  /** Where the token cache, the metadata server and the emulator are read. */
  env: NodeJS.ProcessEnv;
}

/** A client's ID token for `request.audience`: a cached one with more than 5 minutes left, else a new one. */
export async function idTokenOfClient(client: AuthClient, request: ClientIdTokenRequest): Promise<FetchedIdToken> {
  const gal = await loadGoogleAuth();
  if (client instanceof gal.UserRefreshClient) return fromEntry(await userClientIdToken(client, request));
  if (client instanceof gal.JWT) return fromEntry(await keyClientIdToken(client, request));
  return remembered(client, request, () => otherIdToken(gal, client, request));
}

type GoogleAuthLibrary = Awaited<ReturnType<typeof loadGoogleAuth>>;

/** Impersonated, metadata-server, federation and custom clients. */
async function otherIdToken(
  gal: GoogleAuthLibrary,
  client: AuthClient,
  request: ClientIdTokenRequest,
): Promise<FetchedIdToken> {
  if (client instanceof gal.Compute) return metadataIdToken(request.audience, request.env);
  const path = getCredentialInfo(client)?.path;
  if (client instanceof gal.Impersonated) {
    // An impersonated file default() read: the file's own way, as print-identity-token's (the same
    // claims, the same cache entry). Not a client the impersonateServiceAccount option built on a
    // user's file: that path is the source's.
    if (path !== undefined && actsOnItsOwn(path)) return fileIdToken(path, request);
    return impersonatedClientIdToken(client, request);
  }
  if (client instanceof gal.BaseExternalAccountClient || client instanceof gal.ExternalAccountAuthorizedUserClient) {
    if (path === undefined) throw federationMintsNoIdTokens("This federation client", "external_account");
    return fileIdToken(path, request);
  }
  const provider = client as AuthClient & { fetchIdToken?: unknown };
  if (typeof provider.fetchIdToken === "function") {
    // A client of the caller's own that is an IdTokenProvider: its own way of getting one.
    const token: unknown = await provider.fetchIdToken(request.audience);
    return fetchedIdToken(token, "The client's fetchIdToken()", request.audience);
  }
  throw new CredCredentialsError(
    `These credentials (${printable(client.constructor.name.slice(0, 60))}) cannot mint ID tokens: cred-auth gets ID tokens for user credentials, service-account keys, impersonated service accounts, the metadata server and identity federation with service-account impersonation.`,
    { code: ERROR_CODES.ID_TOKEN_UNSUPPORTED },
  );
}

async function fileIdToken(path: string, request: ClientIdTokenRequest): Promise<FetchedIdToken> {
  const token = await idTokenForFile(path, request);
  return { idToken: token.idToken, expiresAt: token.expiryDate };
}

/** The refresh grant with this client's own secrets (recorded when cred-auth built it), cached under the secrets' key. */
async function userClientIdToken(client: UserRefreshClient, request: ClientIdTokenRequest): Promise<CachedAccessToken> {
  const info = getCredentialInfo(client);
  const secrets = clientSecretsOf(client) ?? {
    // A client the caller built: the fields google-auth-library declares public.
    clientId: client._clientId ?? "",
    clientSecret: client._clientSecret ?? "",
    refreshToken: client.credentials.refresh_token ?? "",
  };
  if (!secrets.clientId || !secrets.clientSecret || !secrets.refreshToken)
    throw new CredCredentialsError(
      "These user credentials hold no refresh token or OAuth client secret, so they cannot ask for an ID token; load them from a file (loadUserCredentials) or sign in with cred-auth.",
      { code: ERROR_CODES.ID_TOKEN_UNSUPPORTED },
    );
  // A client the caller built would send the secrets with its own gaxios (redirects, proxies): one of
  // ours, built from its fields with its token URL judged, sends them through the transport.
  const sender = info?.tokenUrl
    ? client
    : await userRefreshClientFrom(authorizedUserFileFrom(client), { env: request.env });
  const tokenUrl = getCredentialInfo(sender)?.tokenUrl ?? "";
  const audience = request.audience === secrets.clientId ? undefined : request.audience;
  const owner = tokenCacheKey(
    { type: "authorized_user", clientId: secrets.clientId, refreshToken: secrets.refreshToken },
    [],
    tokenUrl,
  );
  const what = `Getting an ID token with the user credentials${info?.path ? ` in ${quoted(info.path)}` : ""}`;
  return cached(owner, audience, request, () =>
    userIdToken(sender, { tokenUrl, ...secrets, ...(audience === undefined ? {} : { audience }) }, what),
  );
}

/** The JWT-bearer grant with `target_audience`, cached under the key's own key when the client holds it. */
function keyClientIdToken(client: JWT, request: ClientIdTokenRequest): Promise<CachedAccessToken> {
  const info = getCredentialInfo(client);
  const mint = async (): Promise<FetchedIdToken> => {
    try {
      return fetchedIdToken(await client.fetchIdToken(request.audience), "The token server", request.audience);
    } catch (error) {
      throw toCredError(error, `Getting an ID token for service account ${printable(String(client.email))}`);
    }
  };
  if (!client.key || !client.email) return mint().then(entryOf); // a key file's path only: nothing to key the cache by
  const owner = tokenCacheKey(
    {
      type: "service_account",
      clientEmail: client.email,
      privateKey: client.key,
      ...(client.keyId ? { privateKeyId: client.keyId } : {}),
    },
    [],
    info?.tokenUrl ?? GOOGLE_ENDPOINTS.tokenUrl,
  );
  return cached(owner, request.audience, request, mint);
}

/**
 * IAM Credentials' generateIdToken through google-auth-library's own client, for an `Impersonated`
 * the caller built (its endpoint is theirs). Its `fetchIdToken` sends `useEmailAzp` with
 * `includeEmail`, so its `azp` is the e-mail when `includeEmail` is true (the unique id otherwise,
 * as for a file's token).
 */
async function impersonatedClientIdToken(client: Impersonated, request: ClientIdTokenRequest): Promise<FetchedIdToken> {
  const target = client.getTargetPrincipal();
  try {
    const token = await client.fetchIdToken(request.audience, { includeEmail: request.includeEmail });
    return fetchedIdToken(token, "Google's IAM Credentials API", request.audience);
  } catch (error) {
    throw (
      idTokenImpersonationErrorOf(error, target) ??
      toCredError(error, `Getting an ID token that acts as ${quoted(target)}`)
    );
  }
}

function cached(
  owner: string,
  audience: string | undefined,
  request: ClientIdTokenRequest,
  mint: () => Promise<FetchedIdToken>,
): Promise<CachedAccessToken> {
  const key = idTokenCacheKey(owner, {
    ...(audience === undefined ? {} : { audience }),
    includeEmail: request.includeEmail,
  });
  return getTokenWithCache(key, async () => entryOf(await mint()), { dir: tokenCacheDir(request.env) });
}

function entryOf(token: FetchedIdToken): CachedAccessToken {
  return { access_token: token.idToken, expiry_date: token.expiresAt, token_type: ID_TOKEN_ENTRY_TYPE };
}

function fromEntry(entry: CachedAccessToken): FetchedIdToken {
  return { idToken: entry.access_token, expiresAt: entry.expiry_date };
}

/** ID tokens of clients whose secrets cred-auth cannot key a file by, per client, kept for this process. */
const inMemory = new WeakMap<object, Map<string, Promise<FetchedIdToken>>>();

/** `mint()`'s token, reused while it has more than 5 minutes left; concurrent callers share one request. */
async function remembered(
  client: AuthClient,
  request: ClientIdTokenRequest,
  mint: () => Promise<FetchedIdToken>,
): Promise<FetchedIdToken> {
  const tokens = inMemory.get(client) ?? new Map<string, Promise<FetchedIdToken>>();
  inMemory.set(client, tokens);
  const key = JSON.stringify([request.audience, request.includeEmail]);
  const known = tokens.get(key);
  if (known) {
    const token = await known.catch(() => undefined);
    if (token && hasValidity({ expiry_date: token.expiresAt }, MIN_VALIDITY_MS)) return token;
    if (tokens.get(key) !== known) return remembered(client, request, mint); // another caller is refreshing
  }
  const flight = mint();
  tokens.set(key, flight);
  flight.catch(() => {
    if (tokens.get(key) === flight) tokens.delete(key);
  });
  return flight;
}

/** Whether the file at `path` itself impersonates (an impersonated file), rather than being a source the option impersonates with. */
function actsOnItsOwn(path: string): boolean {
  const file = readAdcFile(path);
  return kindOf(file).actsAs(file) !== undefined;
}
