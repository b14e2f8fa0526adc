// `external_account_authorized_user`: a workforce identity federation sign-in (gcloud's). STS
// refreshes it, always with cloud-platform, and may rotate its refresh token, which is written back
// where it was read (the file, or an impersonated file's `source_credentials`). It mints no ID
// token and cred-auth cannot revoke it.
import { getTokenWithCache, writeCachedToken } from "../../token-cache/index.js";
import { externalCacheKey } from "../../formats/cache-keys.js";
import { externalAuthorizedUserTokenUrl } from "../../formats/destinations.js";
import type { ExternalAuthorizedUserFile } from "../../formats/external-account.js";
import { CLOUD_PLATFORM_SCOPE } from "../../shared/constants.js";
import { quoted } from "../../trust/text.js";
import type { Universe } from "../../trust/urls.js";
import { federationMintsNoIdTokens } from "../../protocols/id-token-words.js";
import { workforceUserAdcClient } from "../clients/external-adc.js";
import { externalUserFileToken } from "./refresh.js";
import { FEDERATED_IDENTITY } from "./federated.js";
import { optional } from "./google-credentials.js";
import type { Kind } from "./kind.js";

const SCOPES = [CLOUD_PLATFORM_SCOPE];

/** The key of the file's token as print-token caches it (the refresh token's own scope). */
function keyOf(file: ExternalAuthorizedUserFile, tokenUrl: string, refreshToken = file.refreshToken): string {
  return externalCacheKey({ ...file, refreshToken }, SCOPES, { tokenUrl });
}

function tokenUrlOf(
  file: ExternalAuthorizedUserFile,
  { universe, path }: { universe: Universe; path: string },
): string {
  return externalAuthorizedUserTokenUrl(file, universe, path);
}

export const workforceUserKind: Kind<ExternalAuthorizedUserFile> = {
  keepsGrantedScopes: false,
  ownIdToken: false,

  /** A rotated refresh token is kept at `request.place`, and the token cached under the key the next run makes from it too. */
  accessToken(file, request) {
    const tokenUrl = tokenUrlOf(file, request);
    const place = request.place ?? "file";
    return getTokenWithCache(
      keyOf(file, tokenUrl),
      async () => {
        const got = await externalUserFileToken(file, tokenUrl, SCOPES, { path: request.path, place });
        if (got.warning !== undefined) request.warnings.push(got.warning);
        if (got.rotated !== undefined) writeCachedToken(keyOf(file, tokenUrl, got.rotated), got.token, request.cache);
        return got.token;
      },
      request.cache,
    );
  },

  idToken(file, request) {
    throw federationMintsNoIdTokens(quoted(request.path), file.type);
  },

  signedInAccount: () => undefined,
  account: () => undefined, // a workforce user's file names no account
  actsAs: () => undefined,

  describe(file, { path, universe, cached }) {
    return {
      audience: file.audience,
      scopes: SCOPES,
      ...optional({ quotaProject: file.quotaProjectId }),
      universe: file.universeDomain,
      accessToken: cached(keyOf(file, tokenUrlOf(file, { universe, path }))),
      noAccount: FEDERATED_IDENTITY,
    };
  },

  revocation: () => ({
    notRevocable:
      "holds a workforce identity federation sign-in, which cred-auth cannot revoke: sign out with gcloud auth revoke, or ask your administrator",
  }),

  notReplaceable: () => "a workforce identity federation sign-in (external_account_authorized_user)",

  cachedTokens: (file, where) => ({ keys: [keyOf(file, tokenUrlOf(file, where))], owners: [] }),

  client: (path, { universe }) => workforceUserAdcClient(path, universe),
};
