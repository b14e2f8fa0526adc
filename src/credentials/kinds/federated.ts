// `external_account`: workload or workforce identity federation (a file's or URL's token, or an AWS
// request signed with the environment's or IMDS's keys), exchanged at STS, then through a service
// account when the file names one. Its cache key holds the subject token, read only when a token
// is asked; an ID token needs the service account; there is no grant of ours to revoke.
import { getTokenWithCache } from "../../token-cache/index.js";
import { externalCacheKey } from "../../formats/cache-keys.js";
import { externalAccountDestinations, idTokenUrlOf } from "../../formats/destinations.js";
import type { ExternalAccountFile } from "../../formats/external-account.js";
import { CLOUD_PLATFORM_SCOPE } from "../../shared/constants.js";
import { quoted } from "../../trust/text.js";
import { federationMintsNoIdTokens } from "../../protocols/id-token-words.js";
import { identityPoolAdcClient } from "../clients/external-adc.js";
import { externalIdToken } from "./id-token-mint.js";
import { externalAccountFileToken, subjectOf } from "./refresh.js";
import { optional } from "./google-credentials.js";
import { FEDERATED_IDENTITY, type Kind, cachedIdToken } from "./kind.js";

export const federatedKind: Kind<ExternalAccountFile> = {
  keepsGrantedScopes: false,
  ownIdToken: false,

  /** STS's token (cloud-platform unless asked otherwise), through a service account when the file says so. */
  async accessToken(file, request) {
    const scopes = request.requested ?? [CLOUD_PLATFORM_SCOPE];
    const urls = externalAccountDestinations(file, request.universe, request.path);
    // Read once: the key depends on it (a rotated token, other AWS keys get a new key), and the refresh sends it.
    const subject = await subjectOf(file, urls, request.env);
    return getTokenWithCache(
      externalCacheKey(file, scopes, urls, subject.keyMaterial),
      () => externalAccountFileToken(file, urls, subject, scopes),
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
    // A file or URL's token, or (AWS) a request signed now with the region and keys it keys the cache by.
    const subject = await subjectOf(file, urls, request.env);
    const asked = {
      tokenUrl: urls.tokenUrl,
      idTokenUrl: idTokenUrlOf(impersonationUrl),
      target,
      subjectToken: subject.token(),
      secrets: subject.secrets,
      audience: request.audience as string, // checkedAudience: required but for a user's own
      includeEmail: request.includeEmail,
    };
    return cachedIdToken(externalCacheKey(file, [], urls, subject.keyMaterial), request, () =>
      externalIdToken(file, asked),
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

  client: (path, { scopes, env, universe }) => identityPoolAdcClient(path, scopes, universe, env),
};
