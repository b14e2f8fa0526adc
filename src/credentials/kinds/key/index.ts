// `service_account`: a JSON key. Its tokens carry the scopes asked (cloud-platform by default); its
// ID token is the JWT-bearer grant's; it cannot be revoked with a request (the key is deleted in IAM).
import type { JWT } from "google-auth-library";
import { tokenCacheKey } from "../../../formats/cache-keys.js";
import { chooseTokenUrl } from "../../../protocols/token-requests.js";
import { CLOUD_PLATFORM_SCOPE } from "../../../shared/constants.js";
import {
  cachedCredentialsToken,
  credentialsCachedTokens,
  credentialsTokenKey,
  optional,
} from "../google-credentials.js";
import { type SourceKind, cachedIdToken } from "../kind.js";
import { serviceAccountClientFrom } from "./client.js";
import { type ServiceAccountKeyFile, parseServiceAccountKey } from "./file.js";
import { keyClientIdToken, keyFileIdToken, keyFileToken } from "./tokens.js";

export const keyKind: SourceKind<ServiceAccountKeyFile> = {
  parse: parseServiceAccountKey,
  keepsGrantedScopes: false,
  ownIdToken: false,

  accessToken(file, request) {
    const scopes = request.requested ?? [CLOUD_PLATFORM_SCOPE];
    return cachedCredentialsToken(file, scopes, request, () => keyFileToken(file, scopes, request));
  },

  idToken(file, request) {
    const tokenUrl = chooseTokenUrl(file, request.universe, request.path);
    return cachedIdToken(tokenCacheKey(file, [], tokenUrl), request, () =>
      keyFileIdToken(file, { ...request, audience: request.audience as string }),
    );
  },

  signedInAccount: () => undefined,
  account: (file) => file.clientEmail,
  actsAs: () => undefined,

  describe(file, { path, universe, cached }) {
    return {
      account: file.clientEmail,
      scopes: [CLOUD_PLATFORM_SCOPE],
      projectId: file.projectId,
      ...optional({ quotaProject: file.quotaProjectId }),
      universe: file.universeDomain ?? universe.domain,
      accessToken: cached(credentialsTokenKey(file, [CLOUD_PLATFORM_SCOPE], { universe, path })),
    };
  },

  revocation: () => ({
    notRevocable:
      "holds a service account key, which cannot be revoked with a request: delete the key in IAM (gcloud iam service-accounts keys delete KEY_ID --iam-account EMAIL)",
  }),

  notReplaceable: () => "a service account key (service_account)",

  cachedTokens: (file, where) => credentialsCachedTokens(file, [CLOUD_PLATFORM_SCOPE], where),

  async client(file, path, { scopes, env, universe }) {
    return {
      credentials: await serviceAccountClientFrom(file, scopes, { path, env, universe }),
      projectId: file.projectId,
    };
  },

  async sourceClient(file, path, { env, universe }) {
    const credentials = await serviceAccountClientFrom(file, [CLOUD_PLATFORM_SCOPE], { path, env, universe });
    return { credentials, projectId: file.projectId };
  },

  clientIdToken: (client, request) => keyClientIdToken(client as JWT, request),
};
