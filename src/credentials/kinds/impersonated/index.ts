// `impersonated_service_account`: tokens acting as a service account, asked of IAM Credentials with its
// source's token. The source (a user, a key, a workforce user) is asked of its own kind, which the table
// hands in: what the file can revoke, whose it is and what it caches are its source's, plus its own token.
import type { Impersonated } from "google-auth-library";
import { idTokenKeyOwner } from "../../../formats/cache-keys.js";
import { getCredentialInfo } from "../../../protocols/info.js";
import { idTokenUrlOf } from "../../../formats/destinations.js";
import { CLOUD_PLATFORM_SCOPE } from "../../../shared/constants.js";
import { getTokenWithCache } from "../../../token-cache/index.js";
import { optional } from "../google-credentials.js";
import { type Kind, type RefreshTokenSpot, type SourceKind, cachedIdToken, sourceRequestOf } from "../kind.js";
import { impersonatedAdcClient, impersonatedClientIdToken } from "./client.js";
import {
  type ImpersonatedFile,
  type ImpersonationSource,
  impersonatedCacheKey,
  impersonatedDestinations,
  parseImpersonatedFile,
} from "./file.js";
import { impersonatedFileToken, impersonatedIdToken } from "./tokens.js";

/** Where a workforce source's rotated refresh token goes: into `source_credentials`, the whole file checked. */
const IN_SOURCE: RefreshTokenSpot = {
  place: "source_credentials",
  check: (json, path) => void parseImpersonatedFile(json, path),
};

/** The impersonated kind, asking each source of its own kind (`sourceKind`, from the table). */
export function impersonatedKind(
  sourceKind: <S extends ImpersonationSource>(source: S) => SourceKind<S>,
): Kind<ImpersonatedFile> {
  const kind: Kind<ImpersonatedFile> = {
    parse: parseImpersonatedFile,
    keepsGrantedScopes: false,
    ownIdToken: false,

    /** A token acting as the file's service account, with the scopes asked (else the file's, else cloud-platform). */
    accessToken(file, request) {
      const scopes = request.requested ?? file.scopes ?? [CLOUD_PLATFORM_SCOPE];
      const { iamUrl } = impersonatedDestinations(file, request.universe, request.path);
      // The source's own token, cached too, with its own default scopes.
      const source = () =>
        sourceKind(file.source).accessToken(file.source, {
          ...request,
          requested: undefined,
          spot: IN_SOURCE,
        });
      return getTokenWithCache(
        impersonatedCacheKey(file, scopes, iamUrl),
        () => impersonatedFileToken(file, iamUrl, source, scopes),
        request.cache,
      );
    },

    /** The source's access token (itself cached, as print-token caches it), then generateIdToken. */
    idToken(file, request) {
      const { iamUrl } = impersonatedDestinations(file, request.universe, request.path);
      const source = () =>
        sourceKind(file.source).accessToken(file.source, { ...sourceRequestOf(request), spot: IN_SOURCE });
      const audience = request.audience as string; // checkedAudience: required but for a user's own
      return cachedIdToken(impersonatedCacheKey(file, [], iamUrl), request, () =>
        impersonatedIdToken(file, idTokenUrlOf(iamUrl), source, audience, request.includeEmail),
      );
    },

    signedInAccount: (file) => sourceKind(file.source).signedInAccount(file.source),
    account: (file) => sourceKind(file.source).account(file.source),
    actsAs: (file) => file.target,

    describe(file, { path, universe, cached }) {
      const scopes = file.scopes ?? [CLOUD_PLATFORM_SCOPE];
      const { iamUrl } = impersonatedDestinations(file, universe, path);
      return {
        ...optional({ account: kind.account(file), quotaProject: file.quotaProjectId }),
        actsAs: file.target,
        delegates: file.delegates,
        scopes,
        universe: file.universeDomain,
        accessToken: cached(impersonatedCacheKey(file, scopes, iamUrl)),
      };
    },

    // Its tokens end with its source's: a user source is revoked, a key or a workforce user cannot be here.
    revocation: (file, where) => sourceKind(file.source).revocation(file.source, where),

    notReplaceable: (json) =>
      // login --impersonate-service-account writes one with a user's source: that is a sign-in too.
      (json.source_credentials as { type?: unknown } | null | undefined)?.type === "authorized_user"
        ? undefined
        : "an impersonated_service_account file whose source is not a user's sign-in",

    cachedTokens(file, where) {
      const source = sourceKind(file.source).cachedTokens(file.source, where);
      const { iamUrl } = impersonatedDestinations(file, where.universe, where.path);
      return {
        keys: [...source.keys, impersonatedCacheKey(file, file.scopes ?? [CLOUD_PLATFORM_SCOPE], iamUrl)],
        owners: [...source.owners, idTokenKeyOwner(impersonatedCacheKey(file, [], iamUrl))],
      };
    },

    client: (file, path, { scopes, env, universe }) =>
      impersonatedAdcClient(file, path, {
        scopes,
        universe,
        sourceClient: (source) => sourceKind(source).sourceClient(source, path, { env, universe, spot: IN_SOURCE }),
      }),

    /** A file default() read: the file's own way; else (the impersonateServiceAccount option) the client's. */
    clientIdToken: (client, request) =>
      request.remembered(() => {
        const path = getCredentialInfo(client)?.path;
        return path !== undefined ? request.fromFile(path) : impersonatedClientIdToken(client as Impersonated, request);
      }),
  };
  return kind;
}
