// `external_account`: federation (a file's or URL's token, or a signed AWS request) exchanged at STS, then
// through a service account when named; its key holds the subject token, so it is read whenever asked.
import { idTokenUrlOf } from "../../../formats/destinations.js";
import { federationMintsNoIdTokens } from "../../../protocols/id-token-words.js";
import { getCredentialInfo } from "../../../protocols/info.js";
import { CLOUD_PLATFORM_SCOPE } from "../../../shared/constants.js";
import { getTokenWithCache } from "../../../token-cache/index.js";
import { quoted } from "../../../trust/text.js";
import { optional } from "../google-credentials.js";
import { FEDERATED_IDENTITY, type Kind, cachedIdToken } from "../kind.js";
import { identityPoolAdcClient } from "./client.js";
import {
  type ExternalAccountFile,
  externalAccountDestinations,
  federatedTokenKey,
  parseExternalAccount,
} from "./file.js";
import { readSubject } from "./subject.js";
import { federatedAccessToken, federatedIdToken } from "./tokens.js";

export const federatedKind: Kind<ExternalAccountFile> = {
  parse: parseExternalAccount,
  keepsGrantedScopes: false,
  ownIdToken: false,

  /** STS's token (cloud-platform unless asked otherwise), through a service account when the file says so. */
  async accessToken(file, request) {
    const scopes = request.requested ?? [CLOUD_PLATFORM_SCOPE];
    const urls = externalAccountDestinations(file, request.universe, request.path);
    // Read once: the key depends on it (a rotated token, other AWS keys get a new key), and the refresh sends it.
    const subject = await readSubject(file, urls.aws, request.env);
    return getTokenWithCache(
      federatedTokenKey(file, scopes, urls, subject.keyMaterial),
      () => federatedAccessToken(file, urls, subject, scopes),
      request.cache,
    );
  },

  /** STS's federated token, then generateIdToken on the account the file impersonates; none without one. */
  async idToken(file, request) {
    const urls = externalAccountDestinations(file, request.universe, request.path);
    const { impersonationUrl } = urls;
    const target = file.impersonationTarget;
    if (impersonationUrl === undefined || target === undefined)
      throw federationMintsNoIdTokens(quoted(request.path), file.type);
    // A file or URL's token, or (AWS) the region and keys it keys the cache by, a request signed on a miss.
    const subject = await readSubject(file, urls.aws, request.env);
    const asked = {
      idTokenUrl: idTokenUrlOf(impersonationUrl),
      target,
      audience: request.audience as string, // checkedAudience: required but for a user's own
      includeEmail: request.includeEmail,
    };
    return cachedIdToken(federatedTokenKey(file, [], urls, subject.keyMaterial), request, () =>
      federatedIdToken(file, urls.tokenUrl, subject, asked),
    );
  },

  signedInAccount: () => undefined,
  account: () => undefined,
  actsAs: (file) => file.impersonationTarget,

  describe(file) {
    return {
      audience: file.audience,
      ...optional({ actsAs: file.impersonationTarget, quotaProject: file.quotaProjectId }),
      scopes: [CLOUD_PLATFORM_SCOPE],
      universe: file.universeDomain,
      accessToken: {
        state: "unknown",
        why: "its key holds the subject token, read only when a token is asked (--check)",
      },
      noAccount: FEDERATED_IDENTITY,
    };
  },

  revocation: () => ({
    notRevocable:
      "holds identity federation credentials, whose tokens come from another identity provider and expire within an hour: disable the provider or remove the service account's binding to stop them",
  }),

  // Its keys hold the subject token, which revoking does not read.
  notReplaceable: () => "identity federation credentials (external_account)",

  cachedTokens: () => ({ keys: [], owners: [] }),

  client: (file, path, { scopes, env, universe }) => identityPoolAdcClient(file, path, scopes, universe, env),

  /** A federation client default() built from a file: the file's own way (none without its path). */
  clientIdToken: (client, request) =>
    request.remembered(async () => {
      const path = getCredentialInfo(client)?.path;
      if (path === undefined) throw federationMintsNoIdTokens("This federation client", "external_account");
      return request.fromFile(path);
    }),
};
