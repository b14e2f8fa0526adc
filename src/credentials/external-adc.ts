// default() for external_account and external_account_authorized_user files: google-auth-library's
// own clients, with the file's token_url checked (Google's STS, or the emulator) and the project id
// the file carries (quota_project_id, else project_id; never a Resource Manager call).
import type { AuthClient } from "google-auth-library";
import { readAdcFileSync } from "../google/adc-file.js";
import { safeStsUrl } from "../google/external-account.js";
import { safeServiceUrl } from "../google/service-url.js";
import { readFileLimitedSync } from "../util/atomic-write.js";
import { MAX_CREDENTIALS_FILE_BYTES } from "../google/files.js";
import { loadGoogleAuth, withValidatedConfig } from "../util/lazy.js";

/** A client for a federation file, or undefined when the file is of another type. */
export async function externalAdcClient(
  path: string,
  scopes: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ credentials: AuthClient; projectId: string | null } | undefined> {
  const file = readAdcFileSync(path); // validates, naming the file in its errors
  if (file.type !== "external_account" && file.type !== "external_account_authorized_user") return undefined;
  const json = JSON.parse(readFileLimitedSync(path, MAX_CREDENTIALS_FILE_BYTES).toString("utf8")) as Record<
    string,
    unknown
  >;
  const tokenUrl = safeStsUrl(file.tokenUrl, file.universeDomain, env);
  const projectId = stringOr(json.quota_project_id) ?? stringOr(json.project_id) ?? null;
  const gal = await loadGoogleAuth();
  const credentials = withValidatedConfig(() =>
    file.type === "external_account"
      ? gal.ExternalAccountClient.fromJSON({
          ...(json as unknown as Parameters<typeof gal.ExternalAccountClient.fromJSON>[0]),
          token_url: tokenUrl,
          scopes: [...scopes],
          ...(file.serviceAccountImpersonationUrl
            ? {
                service_account_impersonation_url: safeServiceUrl(
                  file.serviceAccountImpersonationUrl,
                  "iamcredentials",
                  file.universeDomain,
                  env,
                ),
              }
            : {}),
        })
      : new gal.ExternalAccountAuthorizedUserClient({
          ...(json as unknown as ConstructorParameters<typeof gal.ExternalAccountAuthorizedUserClient>[0]),
          token_url: tokenUrl,
        }),
  );
  if (!credentials) return undefined;
  return { credentials, projectId };
}

function stringOr(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
