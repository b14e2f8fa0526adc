// Credentials that act as a service account: google-auth-library's own `Impersonated`, its IAM Credentials
// endpoint judged, its refusals coded; for default() with such a file, and the impersonateServiceAccount option.
import type { AuthClient, Impersonated } from "google-auth-library";
import type { ImpersonationChain } from "../../../formats/impersonation-chain.js";
import { clientTransport } from "../../../protocols/client-transport.js";
import { recordType } from "../../../protocols/info.js";
import {
  MAX_LIFETIME_SEC,
  delegateResourceName,
  idTokenImpersonationErrorOf,
  impersonationErrorOf,
} from "../../../protocols/iam-credentials.js";
import { type FetchedIdToken, fetchedIdToken } from "../../../protocols/id-token-reply.js";
import { toCredError } from "../../../protocols/token-errors.js";
import { quoted } from "../../../trust/text.js";
import { proveCredentials } from "../../../protocols/token-requests.js";
import { CLOUD_PLATFORM_SCOPE } from "../../../shared/constants.js";
import { writeCredentialsText } from "../../../stores/credentials-file.js";
import { type Universe, trustedUniverse } from "../../../trust/urls.js";
import { loadGoogleAuth, withValidatedConfig } from "../../../util/lazy.js";
import type { KindClient } from "../kind.js";
import type { AuthorizedUserFile } from "../user/file.js";
import {
  type ImpersonatedFile,
  type ImpersonationSource,
  impersonatedDestinations,
  impersonatedFileJson,
  impersonationDestination,
  parseImpersonatedFile,
  projectOfServiceAccount,
} from "./file.js";

/** Where to ask: the chain's generateAccessToken URL (a file's, judged; else Google's for the target in the trusted universe). */
export interface ImpersonateOptions {
  /** The universe the user trusts (default: from `process.env`). */
  universe?: Universe;
  /** A file's `service_account_impersonation_url`, already judged (formats/destinations.ts). */
  url?: string;
}

/** A client acting as `chain.target` with `scopes`, asked for by `source` (with cloud-platform); no request yet. */
export async function impersonate(
  source: AuthClient,
  chain: ImpersonationChain,
  scopes: readonly string[],
  options: ImpersonateOptions = {},
): Promise<Impersonated> {
  const url = options.url ?? impersonationDestination(chain.target, options.universe ?? trustedUniverse());
  const { Impersonated } = await loadGoogleAuth();
  const client = withValidatedConfig(
    () =>
      new Impersonated({
        sourceClient: source,
        targetPrincipal: chain.target,
        delegates: chain.delegates.map(delegateResourceName),
        targetScopes: scopes.length > 0 ? [...scopes] : [CLOUD_PLATFORM_SCOPE],
        lifetime: MAX_LIFETIME_SEC,
        endpoint: new URL(url).origin,
        transporterOptions: clientTransport(),
      }),
  );
  const refreshable = client as unknown as { refreshToken(): Promise<unknown> };
  const refresh = refreshable.refreshToken.bind(client);
  refreshable.refreshToken = async () => {
    try {
      return await refresh();
    } catch (error) {
      // The source's token went in the request: Google's answer may echo it.
      const sent = typeof source.credentials.access_token === "string" ? [source.credentials.access_token] : [];
      throw impersonationErrorOf(error, chain.target, sent) ?? error;
    }
  };
  return recordType(client, "impersonated_service_account");
}

/** {@link impersonate}, proven with one token; `universe` the user chose, whose IAM Credentials is asked. */
export async function impersonateProven(
  source: AuthClient,
  chain: ImpersonationChain,
  scopes: readonly string[],
  universe?: Universe,
): Promise<Impersonated> {
  const credentials = await impersonate(source, chain, scopes, { universe });
  await proveCredentials(credentials, `Impersonating ${chain.target}`);
  return credentials;
}

/** An impersonated_service_account file for `source`, validated, written as user credentials are. */
export async function writeImpersonatedFile(
  path: string,
  source: AuthorizedUserFile,
  chain: ImpersonationChain,
  scopes: readonly string[],
): Promise<void> {
  const text = impersonatedFileJson(source, chain, scopes);
  parseImpersonatedFile(JSON.parse(text) as Record<string, unknown>, path);
  await writeCredentialsText(path, text);
}

export { projectOfServiceAccount };

/** The source's client and the project it names, built by the source's own kind. */
export type SourceClient = (source: ImpersonationSource) => Promise<KindClient>;

/** default() for an impersonated file: `Impersonated` over its source's client, and the project it names. */
export async function impersonatedAdcClient(
  file: ImpersonatedFile,
  path: string,
  { scopes, universe, sourceClient }: { scopes: readonly string[]; universe: Universe; sourceClient: SourceClient },
): Promise<KindClient> {
  const { iamUrl } = impersonatedDestinations(file, universe, path); // before any client is made
  const source = await sourceClient(file.source);
  const asked = scopes.length > 0 ? scopes : (file.scopes ?? []);
  const credentials = await impersonate(source.credentials, file, asked, { universe, url: iamUrl });
  return {
    credentials,
    projectId: file.quotaProjectId ?? projectOfServiceAccount(file.target) ?? source.projectId ?? null,
  };
}

/**
 * IAM Credentials' generateIdToken through google-auth-library's own client (the option's, or the caller's:
 * its endpoint is theirs); with `includeEmail` it sends `useEmailAzp`, so `azp` is the e-mail.
 */
export async function impersonatedClientIdToken(
  client: Impersonated,
  request: { audience: string; includeEmail: boolean },
): Promise<FetchedIdToken> {
  const target = client.getTargetPrincipal();
  try {
    const token = await client.fetchIdToken(request.audience, { includeEmail: request.includeEmail });
    return fetchedIdToken(token, "Google's IAM Credentials API", request.audience);
  } catch (error) {
    throw (
      idTokenImpersonationErrorOf(error, target) ??
      toCredError(error, `Getting an ID token that acts as ${quoted(target)}`)
    );
  }
}
