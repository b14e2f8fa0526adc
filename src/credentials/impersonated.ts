// Credentials that act as a service account: google-auth-library's own `Impersonated` client,
// its IAM Credentials endpoint checked (Google's, or the emulator), its refusals turned into
// CredImpersonationErrors. For default() with impersonated_service_account files, and for the
// impersonateServiceAccount option.
import type { AuthClient, Impersonated } from "google-auth-library";
import { readAdcFileSync } from "../google/adc-file.js";
import { type AuthorizedUserFile, writeCredentialsText } from "../google/files.js";
import { impersonatedFileJson, parseImpersonatedFile } from "../google/impersonated-file.js";
import { proveCredentials, userRefreshClientFrom } from "../google/load-user.js";
import {
  type ImpersonationChain,
  MAX_LIFETIME_SEC,
  delegateResourceName,
  impersonationErrorOf,
  impersonationUrl,
  projectOfServiceAccount,
} from "../google/impersonation.js";
import { safeServiceUrl } from "../google/service-url.js";
import { CLOUD_PLATFORM_SCOPE } from "../shared/constants.js";
import { loadGoogleAuth, withValidatedConfig } from "../util/lazy.js";
import { serviceAccountClientFrom } from "./service-account.js";

/** Where to ask: the chain's generateAccessToken URL (gcloud's, else the one a file names). */
export interface ImpersonateOptions {
  env?: NodeJS.ProcessEnv;
  universeDomain?: string;
  /** A file's `service_account_impersonation_url`; default: Google's URL for the target. */
  url?: string;
}

/**
 * A client whose tokens act as `chain.target` with `scopes`, asked for by `source` (which needs
 * the cloud-platform scope). No request is made until a token is needed.
 */
export async function impersonate(
  source: AuthClient,
  chain: ImpersonationChain,
  scopes: readonly string[],
  options: ImpersonateOptions = {},
): Promise<Impersonated> {
  const universeDomain = options.universeDomain ?? "googleapis.com";
  const url = safeServiceUrl(
    options.url ?? impersonationUrl(chain.target, universeDomain),
    "iamcredentials",
    universeDomain,
    options.env,
  );
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
      }),
  );
  const refreshable = client as unknown as { refreshToken(): Promise<unknown> };
  const refresh = refreshable.refreshToken.bind(client);
  refreshable.refreshToken = async () => {
    try {
      return await refresh();
    } catch (error) {
      throw impersonationErrorOf(error, chain.target) ?? error;
    }
  };
  return client;
}

/** default() for an impersonated_service_account file: the client, and the project it names. */
export async function impersonatedAdcClient(
  path: string,
  scopes: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ credentials: Impersonated; projectId: string | null }> {
  const file = readAdcFileSync(path); // validates, naming the file in its errors
  if (file.type !== "impersonated_service_account") throw new TypeError(`${path} is not impersonated_service_account`);
  const { source } = file;
  const sourceClient =
    source.type === "service_account"
      ? await serviceAccountClientFrom(source, [CLOUD_PLATFORM_SCOPE], { path, env })
      : await userRefreshClientFrom(source, { path, env });
  const credentials = await impersonate(sourceClient, file, scopes.length > 0 ? scopes : (file.scopes ?? []), {
    env,
    universeDomain: file.universeDomain,
    url: file.impersonationUrl,
  });
  const sourceProject = source.type === "service_account" ? source.project_id : null;
  return {
    credentials,
    projectId: file.quotaProjectId ?? projectOfServiceAccount(file.target) ?? sourceProject ?? null,
  };
}

/** {@link impersonate}, proven with one token as every other source is proven. */
export async function impersonateProven(
  source: AuthClient,
  chain: ImpersonationChain,
  scopes: readonly string[],
): Promise<Impersonated> {
  const credentials = await impersonate(source, chain, scopes);
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
