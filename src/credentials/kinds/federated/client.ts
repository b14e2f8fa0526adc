// default() for external_account files: google-auth-library's own IdentityPoolClient, built from
// the fields ./file.ts checked and the URLs the URL policy judged, never from the
// raw file (an unchecked cloud_resource_manager_url would receive the federated token), with
// cred-auth's subject-token reader (./subject.ts: no redirect, bounded, non-blocking). The
// project id is the file's quota_project_id (never a Resource Manager call). IAM's refusals of
// the impersonation step become coded impersonation errors.
import type { AuthClient, IdentityPoolClient, IdentityPoolClientOptions } from "google-auth-library";
import { impersonationErrorOf } from "../../../protocols/iam-credentials.js";
import { clientTransport, stsThroughTransport } from "../../../protocols/client-transport.js";
import { recordType } from "../../../protocols/info.js";
import type { Universe } from "../../../trust/urls.js";
import { loadGoogleAuth, withValidatedConfig } from "../../../util/lazy.js";
import type { KindClient } from "../kind.js";
import { type ExternalAccountFile, externalAccountDestinations } from "./file.js";
import { readSubject } from "./subject.js";

type GoogleAuthLibrary = Awaited<ReturnType<typeof loadGoogleAuth>>;

/** default()'s client for the `external_account` file at `path` (validated, naming the file in its errors). */
export async function identityPoolAdcClient(
  file: ExternalAccountFile,
  path: string,
  scopes: readonly string[],
  universe: Universe,
  env: NodeJS.ProcessEnv = process.env,
): Promise<KindClient> {
  return {
    credentials: await identityPoolClient(file, scopes, { universe, env }, path),
    projectId: file.quotaProjectId ?? null,
  };
}

/**
 * An `external_account` file's client: only its checked fields, the judged URLs, and our subject
 * reader (a file, a URL, or an AWS request signed with keys from `env` or IMDS, each refresh).
 */
async function identityPoolClient(
  file: ExternalAccountFile,
  scopes: readonly string[],
  { universe, env }: { universe: Universe; env: NodeJS.ProcessEnv },
  path: string,
): Promise<AuthClient> {
  const urls = externalAccountDestinations(file, universe, path);
  const { FederatedClient } = federationClasses(await loadGoogleAuth());
  const options: IdentityPoolClientOptions = {
    type: "external_account",
    audience: file.audience,
    subject_token_type: file.subjectTokenType,
    token_url: urls.tokenUrl,
    subject_token_supplier: { getSubjectToken: async () => (await readSubject(file, urls.aws, env)).token() },
    cloud_resource_manager_url: urls.cloudResourceManagerUrl,
    universe_domain: universe.domain,
    transporterOptions: clientTransport(),
    scopes: [...scopes],
    ...(urls.impersonationUrl === undefined ? {} : { service_account_impersonation_url: urls.impersonationUrl }),
    ...(file.impersonationLifetimeSec === undefined
      ? {}
      : { service_account_impersonation: { token_lifetime_seconds: file.impersonationLifetimeSec } }),
    ...(file.workforcePoolUserProject === undefined
      ? {}
      : { workforce_pool_user_project: file.workforcePoolUserProject }),
    ...(file.clientId === undefined ? {} : { client_id: file.clientId }),
    ...(file.clientSecret === undefined ? {} : { client_secret: file.clientSecret }),
    ...(file.quotaProjectId === undefined ? {} : { quota_project_id: file.quotaProjectId }),
  };
  return recordType(
    withValidatedConfig(() => new FederatedClient(options, file.impersonationTarget)),
    file.type,
  );
}

interface FederationClasses {
  FederatedClient: new (options: IdentityPoolClientOptions, target: string | undefined) => IdentityPoolClient;
}

let classes: FederationClasses | undefined;

function federationClasses(gal: GoogleAuthLibrary): FederationClasses {
  if (classes) return classes;

  /** IAM's refusal of the impersonation step (`service_account_impersonation_url`) as a coded impersonation error. */
  class FederatedClient extends gal.IdentityPoolClient {
    readonly #target: string | undefined;

    constructor(options: IdentityPoolClientOptions, target: string | undefined) {
      super(options);
      this.stsCredential =
        stsThroughTransport(this.transporter, options.token_url, this.clientAuth) ?? this.stsCredential;
      this.#target = target;
    }

    protected override async refreshAccessTokenAsync() {
      try {
        return await super.refreshAccessTokenAsync();
      } catch (error) {
        throw (this.#target === undefined ? undefined : impersonationErrorOf(error, this.#target)) ?? error;
      }
    }
  }

  classes = { FederatedClient };
  return classes;
}
