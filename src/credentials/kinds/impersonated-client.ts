// default()'s client for an impersonated_service_account file: google-auth-library's `Impersonated`
// (../clients/impersonated.ts) over its source's client, loaded only when default() meets such a file.
import type { Impersonated } from "google-auth-library";
import {
  type ImpersonatedFile,
  impersonatedDestinations,
  projectOfServiceAccount,
} from "../../formats/impersonated-file.js";
import { userRefreshClientFrom } from "./user/client.js";
import { CLOUD_PLATFORM_SCOPE } from "../../shared/constants.js";
import type { Universe } from "../../trust/urls.js";
import { workforceUserClient } from "./workforce-user/client.js";
import { refreshTokenHome } from "./workforce-user/tokens.js";
import { impersonate } from "../clients/impersonated.js";
import { serviceAccountClientFrom } from "./key/client.js";

/**
 * default() for an impersonated_service_account file: the client, and the project it names. The
 * source is a user, a key, or a workforce user (whose rotated refresh token is written back into
 * the file's `source_credentials`).
 */
export async function impersonatedAdcClient(
  file: ImpersonatedFile,
  path: string,
  scopes: readonly string[],
  env: NodeJS.ProcessEnv,
  universe: Universe,
): Promise<{ credentials: Impersonated; projectId: string | null }> {
  const { iamUrl } = impersonatedDestinations(file, universe, path); // before any client is made
  const { source } = file;
  const sourceClient =
    source.type === "service_account"
      ? await serviceAccountClientFrom(source, [CLOUD_PLATFORM_SCOPE], { path, env, universe })
      : source.type === "external_account_authorized_user"
        ? await workforceUserClient(source, universe, refreshTokenHome(path, "source_credentials"))
        : await userRefreshClientFrom(source, { path, env, universe });
  const credentials = await impersonate(sourceClient, file, scopes.length > 0 ? scopes : (file.scopes ?? []), {
    universe,
    url: iamUrl,
  });
  const sourceProject = source.type === "service_account" ? source.projectId : null;
  return {
    credentials,
    projectId: file.quotaProjectId ?? projectOfServiceAccount(file.target) ?? sourceProject ?? null,
  };
}
