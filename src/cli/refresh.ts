// Getting a new access token for print-token: the only CLI module that loads google-auth-library.
import type { Credentials } from "google-auth-library";
import type { CredentialsFile } from "../google/files.js";
import { proveCredentials, userRefreshClientFrom } from "../google/load-user.js";
import { serviceAccountClientFrom } from "../credentials/service-account.js";
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import type { CachedAccessToken } from "../access-token-cache/index.js";

/** A new access token for `file` (read from `path`), as the token cache stores it. */
export async function obtainToken(
  file: CredentialsFile,
  path: string,
  scopes: readonly string[],
): Promise<CachedAccessToken> {
  if (file.type === "authorized_user") {
    const client = await userRefreshClientFrom(file, { path });
    await proveCredentials(client, `Getting an access token with the user credentials in ${JSON.stringify(path)}`);
    return cachedFrom(client.credentials, scopes, path);
  }
  // From the parsed key, not the path: the key may sit inside an impersonated_service_account file.
  const jwt = await serviceAccountClientFrom(file, scopes, { path });
  await proveCredentials(
    jwt,
    `Getting an access token for service account ${file.client_email} with the key in ${JSON.stringify(path)}`,
  );
  return cachedFrom(jwt.credentials, scopes, path);
}

function cachedFrom(credentials: Credentials, scopes: readonly string[], path: string): CachedAccessToken {
  const { access_token, expiry_date } = credentials;
  if (!access_token)
    throw new CredCredentialsError(`The token server returned no access token for ${JSON.stringify(path)}.`, {
      code: ERROR_CODES.SERVER_ERROR,
    });
  // Without a known expiry the token is printed but never served from the cache.
  return {
    access_token,
    expiry_date: typeof expiry_date === "number" ? expiry_date : Date.now(),
    token_type: "Bearer",
    scopes: [...scopes],
  };
}
