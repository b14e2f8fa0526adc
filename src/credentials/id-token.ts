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
   * A google-auth-library client cred-auth gave you or you built (`UserRefreshClient`, `JWT`, `Impersonated`,
   * `Compute`, any with `fetchIdToken(audience)`). Default: what `default()` finds with the same options.
   */
  credentials?: AuthClient;
  /**
   * Put `email` and `email_verified` in an impersonated or federated service account's token (default `false`, as
   * `print-identity-token`, whose cached token is shared). Keys' and the metadata server's tokens always carry them.
   */
  includeEmail?: boolean;
}

/**
 * An ID token for `audience` (a JWT, valid for an hour) from the credentials `default()` would find, or
 * `options.credentials`: users, keys, impersonated service accounts, the metadata server and federation with
 * impersonation (docs: "Calling Cloud Run and IAP"). One with more than 5 minutes left is reused: from the token
 * cache shared with `cred-auth print-identity-token` for files, in memory for other clients.
 *
 * ```ts
 * import { fetchIdToken } from "cred-auth";
 * const token = await fetchIdToken("https://hello-abc123-uc.a.run.app");
 * const reply = await fetch("https://hello-abc123-uc.a.run.app", { headers: { Authorization: `Bearer ${token}` } });
 * ```
 *
 * @param audience who the token is for: the service's URL (Cloud Run), an IAP client id, or a custom audience.
 * @throws CredCredentialsError `ERR_ID_TOKEN_UNSUPPORTED`, `ERR_NO_ID_TOKEN` (signed in without `openid`),
 * `ERR_INVALID_AUDIENCE`, `ERR_ID_TOKEN_WRONG_AUDIENCE`, `ERR_INVALID_OPTION`, IAM's refusals; as `default()` throws.
 * @throws CredConnectionError when a server cannot be reached.
 */
export async function fetchIdToken(audience: string, options: IdTokenOptions = {}): Promise<string> {
  return (await idTokenProvider(audience, options)).fetchIdToken(requiredAudience(audience));
}

/**
 * google-auth-library's `IdTokenClient` for `audience` around {@link fetchIdToken}'s credentials: its
 * `client.request({ url })` calls a private Cloud Run service or an IAP app, renewing the token before it expires.
 *
 * ```ts
 * import { getIdTokenClient } from "cred-auth";
 * const url = "https://hello-abc123-uc.a.run.app";
 * const client = await getIdTokenClient(url);
 * const reply = await client.request({ url });
 * ```
 *
 * @throws as {@link fetchIdToken} when the credentials are looked for; a token's own from `client.request()`.
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
