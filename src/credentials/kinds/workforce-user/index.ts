// `external_account_authorized_user`: a workforce identity federation sign-in (gcloud's). STS
// refreshes it, always with cloud-platform, and may rotate its refresh token, which is written back
// where it was read. It mints no ID token and cred-auth cannot revoke it.
import { getTokenWithCache, writeCachedToken } from "../../../token-cache/index.js";
import { federationMintsNoIdTokens } from "../../../protocols/id-token-words.js";
import { getCredentialInfo } from "../../../protocols/info.js";
import { quoted } from "../../../trust/text.js";
import { optional } from "../google-credentials.js";
import { FEDERATED_IDENTITY, type SourceKind } from "../kind.js";
import { workforceUserAdcClient, workforceUserClient } from "./client.js";
import {
  WORKFORCE_USER_SCOPES,
  type WorkforceUserFile,
  parseWorkforceUserFile,
  workforceUserTokenKey,
  workforceUserTokenUrl,
} from "./file.js";
import { IN_THE_FILE, refreshTokenHome, workforceUserToken } from "./tokens.js";

export const workforceUserKind: SourceKind<WorkforceUserFile> = {
  parse: parseWorkforceUserFile,
  keepsGrantedScopes: false,
  ownIdToken: false,

  /** A rotated refresh token is kept at `request.place`, and the token cached under the key the next run makes from it too. */
  accessToken(file, request) {
    const tokenUrl = workforceUserTokenUrl(file, request.universe, request.path);
    const home = refreshTokenHome(request.path, request.spot ?? IN_THE_FILE);
    return getTokenWithCache(
      workforceUserTokenKey(file, tokenUrl),
      async () => {
        const got = await workforceUserToken(file, tokenUrl, home);
        if (got.warning !== undefined) request.warnings.push(got.warning);
        if (got.rotated !== undefined)
          writeCachedToken(
            workforceUserTokenKey({ ...file, refreshToken: got.rotated }, tokenUrl),
            got.token,
            request.cache,
          );
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
      scopes: WORKFORCE_USER_SCOPES,
      ...optional({ quotaProject: file.quotaProjectId }),
      universe: file.universeDomain,
      accessToken: cached(workforceUserTokenKey(file, workforceUserTokenUrl(file, universe, path))),
      noAccount: FEDERATED_IDENTITY,
    };
  },

  revocation: () => ({
    notRevocable:
      "holds a workforce identity federation sign-in, which cred-auth cannot revoke: sign out with gcloud auth revoke, or ask your administrator",
  }),

  notReplaceable: () => "a workforce identity federation sign-in (external_account_authorized_user)",

  cachedTokens: (file, where) => ({
    keys: [workforceUserTokenKey(file, workforceUserTokenUrl(file, where.universe, where.path))],
    owners: [],
  }),

  client: (file, path, { universe }) => workforceUserAdcClient(file, path, universe),

  async sourceClient(file, path, { universe, spot }) {
    return { credentials: await workforceUserClient(file, universe, refreshTokenHome(path, spot)), projectId: null };
  },

  /** A federation client default() built from a file: the file's own way (none without its path). */
  clientIdToken: (client, request) =>
    request.remembered(async () => {
      const path = getCredentialInfo(client)?.path;
      if (path === undefined) throw federationMintsNoIdTokens("This federation client", "external_account");
      return request.fromFile(path);
    }),
};
