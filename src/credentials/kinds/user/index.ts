// `authorized_user`: a person's sign-in (gcloud's, pydata-google-auth's, cred-auth's). Its tokens
// carry the scopes granted at sign-in; its ID token needs no audience (the signed-in client's own);
// revoking it ends the grant at Google.
import type { UserRefreshClient } from "google-auth-library";
import { tokenCacheKey } from "../../../formats/cache-keys.js";
import { chooseTokenUrl } from "../../../protocols/token-requests.js";
import { tokenCacheDir } from "../../../token-cache/index.js";
import {
  cachedCredentialsToken,
  credentialsCachedTokens,
  credentialsTokenKey,
  optional,
} from "../google-credentials.js";
import { type SourceKind, cachedIdToken } from "../kind.js";
import { userRefreshClientFrom } from "./client.js";
import { type AuthorizedUserFile, credentialsRevokeUrl, parseAuthorizedUser } from "./file.js";
import { attachTokenCache } from "./shared-tokens.js";
import { userClientIdToken, userFileIdToken, userFileToken } from "./tokens.js";

export const userKind: SourceKind<AuthorizedUserFile> = {
  parse: parseAuthorizedUser,
  keepsGrantedScopes: true,
  ownIdToken: true,

  accessToken(file, request) {
    const scopes = file.scopes ?? [];
    return cachedCredentialsToken(file, scopes, request, () => userFileToken(file, scopes, request));
  },

  idToken(file, request) {
    const tokenUrl = chooseTokenUrl(file, request.universe, request.path);
    // The signed-in client's own ID token is asked without an audience (and cached so).
    const audience = request.audience === file.clientId ? undefined : request.audience;
    return cachedIdToken(tokenCacheKey(file, [], tokenUrl), { ...request, audience }, () =>
      userFileIdToken(file, { ...request, audience, tokenUrl }),
    );
  },

  signedInAccount: (file) => file.account,
  account: (file) => file.account,
  actsAs: () => undefined,

  describe(file, { path, universe, cached }) {
    return {
      ...optional({ account: file.account, scopes: file.scopes, quotaProject: file.quotaProjectId }),
      universe: file.universeDomain ?? universe.domain,
      accessToken: cached(credentialsTokenKey(file, file.scopes ?? [], { universe, path })),
      signedIn: true,
    };
  },

  revocation: (file, { universe, path }) => ({ grant: file, url: credentialsRevokeUrl(file, universe, path) }),

  notReplaceable: () => undefined,

  cachedTokens: (file, where) => credentialsCachedTokens(file, file.scopes ?? [], where),

  async client(file, path, { env, universe }) {
    const credentials = await userRefreshClientFrom(file, { path, env, universe });
    attachTokenCache(credentials, { dir: tokenCacheDir(env) }); // reuse an earlier process's access token
    return { credentials, projectId: null };
  },

  async sourceClient(file, path, { env, universe }) {
    return { credentials: await userRefreshClientFrom(file, { path, env, universe }), projectId: null };
  },

  clientIdToken: (client, request) => userClientIdToken(client as UserRefreshClient, request),
};
