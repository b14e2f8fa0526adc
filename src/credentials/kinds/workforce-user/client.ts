// default()'s client for a workforce user: google-auth-library's ExternalAccountAuthorizedUserClient,
// built from the checked fields and the judged token URL, never from the raw file. One refresh at a
// time, and a refresh token STS rotated written back to its file.
import type {
  ExternalAccountAuthorizedUserClient,
  ExternalAccountAuthorizedUserClientOptions,
} from "google-auth-library";
import { clientTransport } from "../../../protocols/client-transport.js";
import { recordType } from "../../../protocols/info.js";
import { rotatedRefreshToken } from "../../../protocols/sts.js";
import type { Universe } from "../../../trust/urls.js";
import { loadGoogleAuth, withValidatedConfig } from "../../../util/lazy.js";
import type { KindClient } from "../kind.js";
import { type WorkforceUserFile, workforceUserTokenUrl } from "./file.js";
import {
  IN_THE_FILE,
  REFRESH_TOKEN_WARNING_CODE,
  type RefreshTokenHome,
  keepRotatedRefreshToken,
  refreshTokenHome,
} from "./tokens.js";

/** default()'s client for the file at `path` (validated, naming the file in its errors), and its quota project. */
export async function workforceUserAdcClient(
  file: WorkforceUserFile,
  path: string,
  universe: Universe,
): Promise<KindClient> {
  return {
    credentials: await workforceUserClient(file, universe, refreshTokenHome(path, IN_THE_FILE)),
    projectId: file.quotaProjectId ?? null,
  };
}

/** The client of `file`, whose refresh token lives at `home` (the file, or an impersonated file's source). */
export async function workforceUserClient(
  file: WorkforceUserFile,
  universe: Universe,
  home: RefreshTokenHome,
): Promise<ExternalAccountAuthorizedUserClient> {
  const tokenUrl = workforceUserTokenUrl(file, universe, home.path);
  const WorkforceUserClient = await workforceUserClass();
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
  const client = withValidatedConfig(() => new WorkforceUserClient(options, { home, refreshToken: file.refreshToken }));
  return recordType(client, file.type);
}

/** What the client keeps: where its refresh token lives, and the one it holds now. */
interface RefreshTokenRecord {
  home: RefreshTokenHome;
  refreshToken: string;
}

type WorkforceUserClass = new (
  options: ExternalAccountAuthorizedUserClientOptions,
  record: RefreshTokenRecord,
) => ExternalAccountAuthorizedUserClient;

let made: WorkforceUserClass | undefined;

/** The subclass, made once google-auth-library is loaded. */
async function workforceUserClass(): Promise<WorkforceUserClass> {
  const gal = await loadGoogleAuth();
  /** One refresh at a time (the second would present a refresh token the first just spent); a rotated one kept. */
  made ??= class WorkforceUserClient extends gal.ExternalAccountAuthorizedUserClient {
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
  };
  return made;
}

/** Concurrent callers share the one call in progress. */
function oneAtATime<T>(call: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= call().finally(() => {
      pending = undefined;
    }));
}
