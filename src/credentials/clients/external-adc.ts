// default() for external_account and external_account_authorized_user files: google-auth-library's
// own clients, built from the fields formats/external-account.ts checked and the URLs the URL
// policy judged (formats/destinations.ts), never from the raw file: an unchecked field such as
// cloud_resource_manager_url would receive the federated token. The subject token comes from
// cred-auth's own reader (protocols/sts.ts: no redirect, bounded, non-blocking), not the library's.
// The project id is the one the file carries (quota_project_id; never a Resource Manager call).
// Two small subclasses hold what cred-auth adds: IAM's refusals of the impersonation step said as
// coded impersonation errors, and a workforce user's refresh token that STS rotated kept (one refresh at
// a time, the new token written back to its file).
import type {
  AuthClient,
  ExternalAccountAuthorizedUserClient,
  ExternalAccountAuthorizedUserClientOptions,
  IdentityPoolClient,
  IdentityPoolClientOptions,
} from "google-auth-library";
import type { ExternalAccountFile, ExternalAuthorizedUserFile } from "../../formats/external-account.js";
import { readAdcFileSync } from "../../formats/adc-file.js";
import { externalAccountDestinations, externalAuthorizedUserTokenUrl } from "../../formats/destinations.js";
import { impersonationErrorOf } from "../../protocols/iam-credentials.js";
import { readSubject, rotatedRefreshToken } from "../../protocols/sts.js";
import { clientTransport, stsThroughTransport } from "../../protocols/client-transport.js";
import type { Universe } from "../../trust/urls.js";
import { loadGoogleAuth, withValidatedConfig } from "../../util/lazy.js";
import { REFRESH_TOKEN_WARNING_CODE, type RefreshTokenHome, keepRotatedRefreshToken } from "./rotated-refresh-token.js";

type GoogleAuthLibrary = Awaited<ReturnType<typeof loadGoogleAuth>>;

/** default()'s client for the `external_account` file at `path` (validated, naming the file in its errors). */
export async function identityPoolAdcClient(
  path: string,
  scopes: readonly string[],
  universe: Universe,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ credentials: AuthClient; projectId: string | null }> {
  const file = readExternalFile(path, "external_account");
  return {
    credentials: await identityPoolClient(file, scopes, { universe, env }, path),
    projectId: file.quotaProjectId ?? null,
  };
}

/** default()'s client for the `external_account_authorized_user` file at `path`. */
export async function workforceUserAdcClient(
  path: string,
  universe: Universe,
): Promise<{ credentials: AuthClient; projectId: string | null }> {
  const file = readExternalFile(path, "external_account_authorized_user");
  return {
    credentials: await workforceUserClient(file, universe, { path, place: "file" }),
    projectId: file.quotaProjectId ?? null,
  };
}

/** The file at `path`, which was of type `type` when default() looked. */
function readExternalFile<T extends "external_account" | "external_account_authorized_user">(
  path: string,
  type: T,
): Extract<ExternalAccountFile | ExternalAuthorizedUserFile, { type: T }> {
  const file = readAdcFileSync(path); // validates, naming the file in its errors
  if (file.type !== type) throw new TypeError(`${path} changed its type while it was read`);
  return file as Extract<ExternalAccountFile | ExternalAuthorizedUserFile, { type: T }>;
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
  return withValidatedConfig(() => new FederatedClient(options, file.impersonationTarget));
}

/**
 * An `external_account_authorized_user` file's client, from its checked fields and judged token URL;
 * a refresh token STS rotates is kept in memory and written back at `home` (also the source of an
 * `impersonated_service_account` file: credentials/clients/impersonated.ts).
 */
export async function workforceUserClient(
  file: ExternalAuthorizedUserFile,
  universe: Universe,
  home: RefreshTokenHome,
): Promise<ExternalAccountAuthorizedUserClient> {
  const tokenUrl = externalAuthorizedUserTokenUrl(file, universe, home.path);
  const { WorkforceUserClient } = federationClasses(await loadGoogleAuth());
  const options: ExternalAccountAuthorizedUserClientOptions = {
    type: "external_account_authorized_user",
    audience: file.audience,
    client_id: file.clientId,
    client_secret: file.clientSecret,
    refresh_token: file.refreshToken,
    token_url: tokenUrl,
    // Required by the type, never asked by the client: the judged token URL stands in for it.
    token_info_url: tokenUrl,
    universe_domain: universe.domain,
    transporterOptions: clientTransport(),
    ...(file.quotaProjectId === undefined ? {} : { quota_project_id: file.quotaProjectId }),
  };
  return withValidatedConfig(() => new WorkforceUserClient(options, { home, refreshToken: file.refreshToken }));
}

/** What a workforce user's client keeps: where its refresh token lives, and the one it holds now. */
interface RefreshTokenRecord {
  home: RefreshTokenHome;
  refreshToken: string;
}

interface FederationClasses {
  FederatedClient: new (options: IdentityPoolClientOptions, target: string | undefined) => IdentityPoolClient;
  WorkforceUserClient: new (
    options: ExternalAccountAuthorizedUserClientOptions,
    record: RefreshTokenRecord,
  ) => ExternalAccountAuthorizedUserClient;
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

  /**
   * One refresh at a time (google-auth-library starts one per concurrent caller, and with rotation
   * the second would present a refresh token the first just spent); a refresh token STS rotated is
   * kept in memory by the library, and written back to its file here.
   */
  class WorkforceUserClient extends gal.ExternalAccountAuthorizedUserClient {
    readonly #record: RefreshTokenRecord;
    readonly #refreshOnce = oneAtATime(() => this.#refreshKeeping());

    constructor(options: ExternalAccountAuthorizedUserClientOptions, record: RefreshTokenRecord) {
      super(options);
      this.#record = { ...record };
    }

    protected override refreshAccessTokenAsync() {
      return this.#refreshOnce();
    }

    async #refreshKeeping() {
      const sent = this.#record.refreshToken;
      const got = await super.refreshAccessTokenAsync();
      const rotated = rotatedRefreshToken(got.res?.data, sent);
      if (rotated !== undefined) {
        this.#record.refreshToken = rotated;
        const problem = await keepRotatedRefreshToken(this.#record.home, { sent, rotated });
        if (problem !== undefined)
          process.emitWarning(problem, { type: "CredAuthWarning", code: REFRESH_TOKEN_WARNING_CODE });
      }
      return got;
    }
  }

  classes = { FederatedClient, WorkforceUserClient };
  return classes;
}

/** Concurrent callers share the one call in progress. */
function oneAtATime<T>(call: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= call().finally(() => {
      pending = undefined;
    }));
}
