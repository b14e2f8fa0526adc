// An ID token for a credentials file of any ADC type, through the 0600 token cache shared by
// processes (token-cache/): `cred-auth print-identity-token` is called in loops as
// print-token is, and an ID token lives an hour as an access token does. With a cached token it
// reads the file, judges its URLs (formats/destinations.ts) and reads one cache entry, loading no
// package; the file's kind (../kinds/) keys and gets it, a new one (google-auth-library, IAM
// Credentials, STS) through its kind's tokens.ts, loaded on a miss. Keys: formats/cache-keys.ts `idTokenCacheKey`.
import { tokenCacheDir } from "../../token-cache/index.js";
import { trustedUniverse } from "../../trust/urls.js";
import { checkedAudience } from "../../protocols/id-token-words.js";
import type { IdTokenFileRequest } from "../kinds/kind.js";
import { type AdcFile, kindOf, readAdcFile } from "../kinds/table.js";

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
  /** Read the file only when it is the user's own and private (one found without a path). */
  privateOnly?: boolean;
}

/** An ID token for a credentials file. */
export interface FileIdToken {
  idToken: string;
  /** When it expires (its `exp`), in milliseconds since the epoch. */
  expiryDate: number;
  /** The file's `type`. */
  credentialsType: AdcFile["type"];
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
  const file = readAdcFile(path, { privateOnly: options.privateOnly === true });
  const kind = kindOf(file);
  const request: IdTokenFileRequest = {
    path,
    env,
    universe,
    audience: checkedAudience(options.audience, file.type, kind.ownIdToken),
    includeEmail: options.includeEmail === true,
    cache: { fresh: options.fresh === true, dir: tokenCacheDir(env) },
  };
  const token = await kind.idToken(file, request);
  return { idToken: token.access_token, expiryDate: token.expiry_date, credentialsType: file.type };
}
