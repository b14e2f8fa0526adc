// ID tokens, the public face: fetchIdToken() and getIdTokenClient(), for services that are not Google
// APIs (private Cloud Run, IAP). The work loads on the first call (./tokens/id-token-clients.ts).
import type { AuthClient, IdTokenClient } from "google-auth-library";
import type { DefaultOptions } from "../options.js";
import { CLOUD_PLATFORM_SCOPE } from "../shared/constants.js";
import { loadGoogleAuth } from "../util/lazy.js";
import { clientTransport } from "../protocols/client-transport.js";
import { recordType } from "../protocols/info.js";
import { defaultCredentials } from "./search/default.js";
import { idTokenOfClient } from "./tokens/id-token-clients.js";
import { requiredAudience } from "../protocols/id-token-words.js";

/** Options of {@link fetchIdToken} and {@link getIdTokenClient}: default()'s, and two of their own. */
export interface IdTokenOptions extends DefaultOptions {
  /**
   * The credentials to get ID tokens with: a google-auth-library client cred-auth gave you
   * (`default()`, `getUserCredentials()`, `loadUserCredentials()`, `loadServiceAccountCredentials()`)
   * or one you built (`UserRefreshClient`, `JWT`, `Impersonated`, `Compute`, or any client with a
   * `fetchIdToken(audience)` method). Default: the credentials `default()` finds with the same
   * options (the cloud-platform scope; a sign-in, when one is needed, asks for it with `openid` and
   * the e-mail, as `default()` does).
   */
  credentials?: AuthClient;
  /**
   * Put the service account's `email` and `email_verified` claims in a token of an impersonated
   * service account or of identity federation (IAM Credentials' `includeEmail`). Default `false`,
   * as gcloud's `print-identity-token` (`--include-email`) and `cred-auth print-identity-token`:
   * the same file gives the same token on both paths, and they share it through the token cache.
   * Give `true` when the receiver reads the e-mail (an IAP app, a service of your own that checks
   * it). Tokens of keys and of the metadata server always carry it; a user's does when the e-mail
   * scope was granted.
   */
  includeEmail?: boolean;
}

/**
 * An ID token for `audience` (a JWT, valid for an hour), from the credentials `default()` would
 * find, or from `options.credentials`:
 * - user credentials (`authorized_user`): the refresh grant, with `audience` when it is not the
 *   signed-in client's own id. Google gives a user's ID token an audience only for the OAuth client
 *   of an IAP resource in the same project (IAP's desktop flow); see the "Calling Cloud Run and
 *   IAP" page for which services accept which token;
 * - a service-account key: the JWT-bearer grant with `target_audience`;
 * - an impersonated service account: IAM Credentials `generateIdToken`;
 * - the metadata server: `identity?audience=...&format=full`;
 * - identity federation files with service-account impersonation: STS, then `generateIdToken`.
 *
 * A token with more than 5 minutes left is reused: from the token cache shared with
 * `cred-auth print-identity-token` for credentials read from a file (user credentials, keys,
 * impersonated and federation files; the same `includeEmail` gives the same entry), in memory for
 * the others (the metadata server, clients you built without a file).
 *
 * ```ts
 * import { fetchIdToken } from "cred-auth";
 * const token = await fetchIdToken("https://hello-abc123-uc.a.run.app");
 * const reply = await fetch("https://hello-abc123-uc.a.run.app", { headers: { Authorization: `Bearer ${token}` } });
 * ```
 *
 * @param audience who the token is for: the service's URL (Cloud Run), an IAP client id, or a custom audience.
 * @throws CredCredentialsError `ERR_ID_TOKEN_UNSUPPORTED` for credentials that cannot mint ID tokens
 * (identity federation without service-account impersonation, a platform that hands out access
 * tokens only); `ERR_NO_ID_TOKEN` for user credentials signed in without `openid`;
 * `ERR_INVALID_AUDIENCE` when the token server refused the audience; `ERR_ID_TOKEN_WRONG_AUDIENCE`
 * when a server sent a token whose `aud` is not `audience` (it is never handed out);
 * `ERR_INVALID_OPTION` for an empty audience; and as `default()` throws.
 * @throws CredCredentialsError when IAM Credentials refused (`code` says why: `ERR_IMPERSONATION_DENIED`, ...).
 * @throws CredConnectionError when a server cannot be reached.
 */
export async function fetchIdToken(audience: string, options: IdTokenOptions = {}): Promise<string> {
  return (await idTokenProvider(audience, options)).fetchIdToken(requiredAudience(audience));
}

/**
 * google-auth-library's own `IdTokenClient` for `audience`, around the credentials
 * {@link fetchIdToken} uses: it sends `Authorization: Bearer ID_TOKEN` with every request and asks
 * for a new token before the old one expires, so `client.request({ url })` calls a private Cloud
 * Run service or an IAP-protected app.
 *
 * ```ts
 * import { getIdTokenClient } from "cred-auth";
 * const url = "https://hello-abc123-uc.a.run.app";
 * const client = await getIdTokenClient(url);
 * const reply = await client.request({ url });
 * ```
 *
 * @throws as {@link fetchIdToken} when the credentials are looked for; a token's own failures come
 * from `client.request()`.
 */
export async function getIdTokenClient(audience: string, options: IdTokenOptions = {}): Promise<IdTokenClient> {
  const targetAudience = requiredAudience(audience);
  const provider = await idTokenProvider(targetAudience, options);
  const { IdTokenClient } = await loadGoogleAuth();
  const client = new IdTokenClient({
    targetAudience,
    idTokenProvider: provider,
    transporterOptions: clientTransport(),
  });
  return recordType(client, "ID token");
}

/** The credentials, found once, as google-auth-library's `IdTokenProvider`. */
async function idTokenProvider(
  audience: string,
  options: IdTokenOptions,
): Promise<{ fetchIdToken(audience: string): Promise<string> }> {
  requiredAudience(audience); // before any credentials are looked for
  const { credentials: given, includeEmail, ...rest } = options;
  const credentials = given ?? (await defaultCredentials([CLOUD_PLATFORM_SCOPE], rest))[0];
  const env = process.env;
  return {
    fetchIdToken: async (asked) => {
      const request = { audience: requiredAudience(asked), includeEmail: includeEmail === true, env };
      return (await idTokenOfClient(credentials, request)).idToken;
    },
  };
}
