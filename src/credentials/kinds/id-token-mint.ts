// New ID tokens for the kinds of ADC file (./kinds/), loaded only when the token cache has none: a user's refresh
// grant and a key's JWT-bearer grant through google-auth-library's clients (the token URL judged
// and guarded, as for access tokens), an impersonated account's through IAM Credentials.
import type { CachedAccessToken } from "../../token-cache/index.js";
import type { AuthorizedUserFile, ServiceAccountKeyFile } from "../../formats/credentials-file.js";
import type { ImpersonatedFile } from "../../formats/impersonated-file.js";
import { generateIdToken } from "../../protocols/iam-credentials.js";
import { type FetchedIdToken, fetchedIdToken } from "../../protocols/id-token-reply.js";
import { userRefreshClientFrom } from "../../protocols/load-user.js";
import { toCredError } from "../../protocols/token-errors.js";
import { userIdToken } from "../../protocols/user-id-token.js";
import { CLOUD_PLATFORM_SCOPE } from "../../shared/constants.js";
import { printable, quoted } from "../../trust/text.js";
import type { Universe } from "../../trust/urls.js";
import { serviceAccountClientFrom } from "../clients/service-account.js";

/** Where a user file's or key's ID token is asked for, decided by its kind. */
export interface CredentialsIdTokenRequest {
  path: string;
  env: NodeJS.ProcessEnv;
  universe: Universe;
  /** The judged token URL. */
  tokenUrl: string;
  /** Undefined: a user's own ID token (its `aud` is the signed-in client). */
  audience: string | undefined;
}

/** A user's refresh grant (with `audience` for another client; none: the signed-in client's own). */
export async function userFileIdToken(
  file: AuthorizedUserFile,
  request: CredentialsIdTokenRequest,
): Promise<FetchedIdToken> {
  const { path, env, universe, tokenUrl, audience } = request;
  const client = await userRefreshClientFrom(file, { path, env, universe });
  return userIdToken(
    client,
    {
      tokenUrl,
      clientId: file.clientId,
      clientSecret: file.clientSecret,
      refreshToken: file.refreshToken,
      ...(audience === undefined ? {} : { audience }),
    },
    `Getting an ID token with the user credentials in ${quoted(path)}`,
  );
}

/** A key's JWT-bearer grant with `target_audience`. */
export async function keyFileIdToken(
  file: ServiceAccountKeyFile,
  request: CredentialsIdTokenRequest,
): Promise<FetchedIdToken> {
  const { path, env, universe, audience } = request;
  // From the parsed key, not the path: the key may sit inside an impersonated_service_account file.
  const jwt = await serviceAccountClientFrom(file, [CLOUD_PLATFORM_SCOPE], { path, env, universe });
  const what = `Getting an ID token for service account ${printable(file.clientEmail)} with the key in ${quoted(path)}`;
  let token: string;
  try {
    token = await jwt.fetchIdToken(audience as string);
  } catch (error) {
    throw toCredError(error, what);
  }
  return fetchedIdToken(token, "The token server", audience as string);
}

/** The source's access token (`source()`, itself cached), then generateIdToken at the judged `url`. */
export async function impersonatedIdToken(
  file: ImpersonatedFile,
  url: string,
  source: () => Promise<CachedAccessToken>,
  audience: string,
  includeEmail: boolean,
): Promise<FetchedIdToken> {
  const sourceToken = (await source()).access_token;
  return generateIdToken({ url, target: file.target, sourceToken, delegates: file.delegates, audience, includeEmail });
}
