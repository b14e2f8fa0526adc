import type { JWT } from "google-auth-library";
// The key kind's google-auth-library client: a `JWT` from a service account key (the public
// loadServiceAccountCredentials), its token requests sent to the key's judged `token_uri`.
import { clientTransport } from "../../../protocols/client-transport.js";
import { setCredentialInfo } from "../../../protocols/info.js";
import {
  chooseTokenUrl,
  guardTokenRequests,
  proveCredentials,
  tokenTimeoutMs,
} from "../../../protocols/token-requests.js";
import { CLOUD_PLATFORM_SCOPE, GOOGLE_ENDPOINTS } from "../../../shared/constants.js";
import { readServiceAccountKeyFile } from "../../../stores/credentials-file.js";
import { loadGoogleAuth } from "../../../util/lazy.js";
import { type ClientOptions, type LoadCredentialsOptions, universeFor } from "../google-credentials.js";
import type { ServiceAccountKeyFile } from "./file.js";

/** Service account credentials: a google-auth-library `JWT` whose `projectId` is the key's `project_id`. */
export type ServiceAccountCredentials = JWT & {
  /** The key file's `project_id`. */
  projectId: string;
};

/**
 * Loads service account credentials from a JSON key file and proves they work by obtaining
 * an access token from the key's `token_uri` (Google's; an active emulator stands in for it).
 * `scopes` defaults to the cloud-platform scope. `projectId` is the key's `project_id`.
 *
 * @throws CredCredentialsError when the file is missing or malformed, or the token server
 * rejects the key (`invalid_grant`, `invalid_client`, `unauthorized_client`).
 * @throws CredConnectionError when the token server cannot be reached, fails or times out.
 */
export async function loadServiceAccountCredentials(
  path: string,
  scopes?: readonly string[],
  options: LoadCredentialsOptions = {},
): Promise<ServiceAccountCredentials> {
  const key = await readServiceAccountKeyFile(path);
  const credentials = await serviceAccountClientFrom(key, scopes, { ...options, path });
  await proveCredentials(
    credentials,
    `Getting an access token for service account ${key.clientEmail} with the key in ${JSON.stringify(path)}`,
  );
  return credentials;
}

/** A `JWT` for `key`, no request yet; an interceptor sends its token requests (always Google's) to the key's `token_uri`. */
export async function serviceAccountClientFrom(
  key: ServiceAccountKeyFile,
  scopes: readonly string[] | undefined,
  options: ClientOptions = {},
): Promise<ServiceAccountCredentials> {
  const tokenUrl = chooseTokenUrl(key, universeFor(options), options.path);
  const { JWT } = await loadGoogleAuth();
  const granted = scopes && scopes.length > 0 ? [...scopes] : [CLOUD_PLATFORM_SCOPE];
  const client = new JWT({
    email: key.clientEmail,
    key: key.privateKey,
    scopes: granted,
    projectId: key.projectId,
    transporterOptions: clientTransport(),
    ...(key.privateKeyId ? { keyId: key.privateKeyId } : {}),
    ...(key.quotaProjectId ? { quotaProjectId: key.quotaProjectId } : {}),
    ...(key.universeDomain ? { universeDomain: key.universeDomain } : {}),
  });
  guardTokenRequests(client, {
    tokenUrl,
    rewriteFrom: GOOGLE_ENDPOINTS.tokenUrl,
    timeoutMs: options.timeoutMs ?? tokenTimeoutMs(),
  });
  setCredentialInfo(client, {
    type: "service_account",
    scopes: granted,
    account: key.clientEmail,
    tokenUrl,
    ...(key.clientId ? { clientId: key.clientId } : {}),
    ...(options.path !== undefined ? { path: options.path } : {}),
  });
  client.projectId = key.projectId;
  return client as ServiceAccountCredentials;
}
