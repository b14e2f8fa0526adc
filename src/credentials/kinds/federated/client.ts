// default()'s client for an external_account file: google-auth-library's IdentityPoolClient built from the
// checked fields, judged URLs and our subject reader; IAM's refusals of its impersonation step coded.
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

/** The client of `file`: its checked fields, judged URLs, our subject reader (a file, a URL, or AWS) each refresh. */
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
