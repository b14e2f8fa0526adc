// New tokens of a service account key, on a token-cache miss: the JWT-bearer grant through google-auth-library's
// client. From the parsed key, not a path: the key may sit inside an impersonated file.
import type { JWT } from "google-auth-library";
import { tokenCacheKey } from "../../../formats/cache-keys.js";
import { type FetchedIdToken, fetchedIdToken } from "../../../protocols/id-token-reply.js";
import { getCredentialInfo } from "../../../protocols/info.js";
import { toCredError } from "../../../protocols/token-errors.js";
import { proveCredentials } from "../../../protocols/token-requests.js";
import { CLOUD_PLATFORM_SCOPE, GOOGLE_ENDPOINTS } from "../../../shared/constants.js";
import type { CachedAccessToken } from "../../../formats/token-cache-entry.js";
import { printable, quoted } from "../../../trust/text.js";
import { type CredentialsRefresh, entryFromCredentials } from "../google-credentials.js";
import { type ClientIdTokenRequest, cachedClientIdToken } from "../kind.js";
import { serviceAccountClientFrom } from "./client.js";
import type { ServiceAccountKeyFile } from "./file.js";

/** A new access token for `file` (read from `path`) with `scopes`, as the token cache stores it. */
export async function keyFileToken(
  file: ServiceAccountKeyFile,
  scopes: readonly string[],
  { path, env, universe }: CredentialsRefresh,
): Promise<CachedAccessToken> {
  const jwt = await serviceAccountClientFrom(file, scopes, { path, env, universe });
  await proveCredentials(jwt, `Getting an access token for ${whose(file, path)}`);
  return entryFromCredentials(jwt.credentials, scopes, path);
}

/** The JWT-bearer grant with `target_audience`. */
export async function keyFileIdToken(
  file: ServiceAccountKeyFile,
  { path, env, universe, audience }: CredentialsRefresh & { audience: string },
): Promise<FetchedIdToken> {
  const jwt = await serviceAccountClientFrom(file, [CLOUD_PLATFORM_SCOPE], { path, env, universe });
  let token: string;
  try {
    token = await jwt.fetchIdToken(audience);
  } catch (error) {
    throw toCredError(error, `Getting an ID token for ${whose(file, path)}`);
  }
  return fetchedIdToken(token, "The token server", audience);
}

function whose(file: ServiceAccountKeyFile, path: string): string {
  return `service account ${printable(file.clientEmail)} with the key in ${quoted(path)}`;
}

/** A key client's ID token (the JWT-bearer grant), cached under the key's own key when the client holds it. */
export function keyClientIdToken(client: JWT, request: ClientIdTokenRequest): Promise<FetchedIdToken> {
  const mint = async (): Promise<FetchedIdToken> => {
    try {
      const sender = await ownSender(client, request.env);
      return fetchedIdToken(await sender.fetchIdToken(request.audience), "The token server", request.audience);
    } catch (error) {
      throw toCredError(error, `Getting an ID token for service account ${printable(String(client.email))}`);
    }
  };
  if (!client.key || !client.email) return mint(); // a key file's path only: nothing to key the cache by
  const identity = {
    clientEmail: client.email,
    privateKey: client.key,
    ...(client.keyId ? { privateKeyId: client.keyId } : {}),
  };
  const tokenUrl = getCredentialInfo(client)?.tokenUrl ?? GOOGLE_ENDPOINTS.tokenUrl;
  return cachedClientIdToken(
    tokenCacheKey({ type: "service_account", ...identity }, [], tokenUrl),
    request.audience,
    request,
    mint,
  );
}

/**
 * The client that sends a key's assertion: `client` when cred-auth built it, else one built from its
 * key (a caller's JWT would send it with its own gaxios: its proxies, its redirects). A JWT with a
 * `subject` (domain-wide delegation) or a key file's path only is sent as it is.
 */
async function ownSender(client: JWT, env: NodeJS.ProcessEnv): Promise<JWT> {
  const { key: privateKey, email: clientEmail, keyId } = client;
  if (getCredentialInfo(client) || !privateKey || !clientEmail || client.subject) return client;
  const key = { type: "service_account" as const, projectId: "", clientEmail, privateKey };
  return serviceAccountClientFrom({ ...key, ...(keyId ? { privateKeyId: keyId } : {}) }, undefined, { env });
}
