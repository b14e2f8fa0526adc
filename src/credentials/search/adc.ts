// Application Default Credentials, found as google-auth-library finds them without what makes it slow:
// no gcloud subprocess, the metadata server asked only when configured or on a Google VM.
import { messageOf } from "../../util/thrown.js";
import { statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { AuthClient, Credentials } from "google-auth-library";
import { CredAuthError, CredConnectionError, type CredErrorCode, ERROR_CODES } from "../../errors.js";
import { metadataClient } from "../../hosted/clients.js";
import { askMetadata, metadataBaseUrl, metadataIdToken, vmScopesShortfall } from "../../hosted/metadata.js";
import { vmScopesReason } from "../../hosted/metadata-scopes.js";
import { parseJson, platformFetch, tokenCredentials } from "../../hosted/http.js";
import { ENV } from "../../shared/constants.js";
import { type Universe, trustedUniverse } from "../../trust/urls.js";
import { isOnGoogleCloud } from "../../util/lazy.js";
import { getCredentialInfo, setCredentialInfo } from "../../protocols/info.js";
import { proveCredentials } from "../../protocols/token-requests.js";
import { kindOf, readAdcFile } from "../kinds/table.js";

/** Credentials found through ADC and proven by a token. */
export interface AdcCredentials {
  credentials: AuthClient;
  /** The key's `project_id` or the metadata server's project; `null` for user credentials. */
  projectId: string | null;
  /** Where they came from, for debug lines. */
  source: string;
}

/** What the search found: credentials, or why each place had none. */
export interface AdcOutcome {
  found?: AdcCredentials;
  /** One line per place looked at without success. Never a secret. */
  reasons: string[];
  /** Why credentials there were passed over, for the user to hear (a VM whose scopes lack one asked). */
  passedOver?: string;
}

const ADC_ENV = ENV.googleApplicationCredentials;
const WELL_KNOWN_FILE = "application_default_credentials.json";
/** A metadata server answers in milliseconds; one that is silent this long is not there. */
const METADATA_PROBE_TIMEOUT_MS = 2000;

/** ADC: GOOGLE_APPLICATION_CREDENTIALS (then alone), gcloud's file, the metadata server; each proven by a token. */
export async function findApplicationDefaultCredentials(
  scopes: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  universe: Universe = trustedUniverse(env),
): Promise<AdcOutcome> {
  const named = env[ADC_ENV]?.trim();
  if (named) return fromFileOrReason(named, `${ADC_ENV}=${named}`, scopes, env, universe);

  const reasons: string[] = [`${ADC_ENV} is not set`];
  const wellKnown = wellKnownFile(env);
  if (isFile(wellKnown)) {
    const outcome = await fromFileOrReason(wellKnown, `gcloud's ADC file ${wellKnown}`, scopes, env, universe);
    if (outcome.found) return outcome;
    reasons.push(...outcome.reasons);
  } else {
    reasons.push(`no gcloud ADC file at ${wellKnown}`);
  }

  const metadata = await fromMetadataServer(scopes, env);
  if ("found" in metadata) return { found: metadata.found, reasons };
  reasons.push(metadata.reason);
  return metadata.passedOver ? { reasons, passedOver: metadata.reason } : { reasons };
}

/** gcloud's ADC file: `$CLOUDSDK_CONFIG/…`, else `%APPDATA%\gcloud\…` on Windows, else `~/.config/gcloud/…`. */
export function wellKnownFile(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  if (env.CLOUDSDK_CONFIG) return join(env.CLOUDSDK_CONFIG, WELL_KNOWN_FILE);
  if (platform === "win32" && env.APPDATA) return join(env.APPDATA, "gcloud", WELL_KNOWN_FILE);
  return join(homedir(), ".config", "gcloud", WELL_KNOWN_FILE);
}

/** A file naming an account we may not act as, or a URL we will not send to: the search stops (no sign-in as someone else). */
const STOPS_THE_SEARCH: ReadonlySet<CredErrorCode> = new Set([
  ERROR_CODES.IMPERSONATION_DENIED,
  ERROR_CODES.SERVICE_ACCOUNT_NOT_FOUND,
  ERROR_CODES.IMPERSONATION_FAILED,
  ERROR_CODES.API_DISABLED,
  ERROR_CODES.USER_PROJECT_DENIED,
  ERROR_CODES.UNSAFE_TOKEN_URL,
  ERROR_CODES.UNTRUSTED_UNIVERSE,
]);

/** Credentials from an ADC file, read through the kinds table (google-auth-library never reads it), or why not. */
async function fromFileOrReason(
  path: string,
  what: string,
  scopes: readonly string[],
  env: NodeJS.ProcessEnv,
  universe: Universe,
): Promise<AdcOutcome> {
  try {
    const file = readAdcFile(path); // a missing, malformed or unknown file says precisely why
    const { credentials, projectId } = await kindOf(file).client(file, path, { scopes, env, universe });
    await proveCredentials(credentials, `Getting an access token with ${what}`);
    // Where the client came from, for what is asked of it later (an ID token of a federation file).
    const info = getCredentialInfo(credentials);
    if (info?.path === undefined)
      setCredentialInfo(credentials, { ...info, scopes: info?.scopes.length ? info.scopes : [...scopes], path });
    return { found: { credentials, projectId, source: what }, reasons: [] };
  } catch (error) {
    // A network failure stops the search too: a sign-in would not reach Google either.
    if (error instanceof CredConnectionError || (error instanceof CredAuthError && STOPS_THE_SEARCH.has(error.code)))
      throw error;
    return { reasons: [`${what}: ${messageOf(error)}`] };
  }
}

/** Whether `path` is a regular file, synchronously: an asynchronous stat would start libuv's threads (bench target 4). */
export function isFile(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

/** The metadata server, when configured or on a Google VM; one whose VM scopes lack one asked is passed over. */
async function fromMetadataServer(
  scopes: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ found: AdcCredentials } | { reason: string; passedOver?: true }> {
  const detection = env.METADATA_SERVER_DETECTION?.trim().toLowerCase();
  if (detection === "none") return { reason: "metadata server disabled (METADATA_SERVER_DETECTION=none)" };
  const configured = Boolean(env.GCE_METADATA_HOST || env.GCE_METADATA_IP);
  if (!configured && detection !== "assume-present" && !(await isOnGoogleCloud())) {
    return { reason: "no metadata server (not on Google Cloud, GCE_METADATA_HOST not set)" };
  }
  const base = metadataBaseUrl(env);
  let projectId: string;
  try {
    const reply = await platformFetch("ADC", "the metadata server", {
      url: `${base}/project/project-id`,
      headers: { "Metadata-Flavor": "Google" },
      timeoutMs: METADATA_PROBE_TIMEOUT_MS,
    });
    if (reply.header("Metadata-Flavor") !== "Google")
      return { reason: `the server at ${new URL(base).host} is not a metadata server` };
    if (reply.status !== 200)
      return { reason: `the metadata server at ${new URL(base).host} has no project (HTTP ${reply.status})` };
    projectId = reply.text.trim();
  } catch (error) {
    return { reason: `no metadata server answered at ${new URL(base).host} (${messageOf(error)})` };
  }
  // google-auth-library's own Compute client follows redirects (to anywhere) and reports their
  // failures as an "unexpected RangeError": a Compute client that asks through platformFetch instead.
  const host = new URL(base).host;
  const credentials = await metadataClient(
    "ADC",
    scopes,
    () => metadataToken(base, host, scopes),
    (audience) => metadataIdToken(audience, env),
  );
  try {
    await credentials.getAccessToken();
  } catch (error) {
    if (error instanceof CredAuthError) throw error;
    throw new CredConnectionError(`ADC: the metadata server at ${host} gave no access token; try again later.`, {
      cause: error,
    });
  }
  // A VM's token carries its access scopes whatever was asked: one that lacks a requested scope is
  // passed over with why (a sign-in may grant it, default()'s next step), not handed out in silence.
  const shortfall = honoursRequestedScopes(env)
    ? undefined
    : await vmScopesShortfall("ADC", base, scopes, METADATA_TOKEN_TIMEOUT_MS);
  if (shortfall !== undefined) return { reason: vmScopesReason(shortfall, VM_SCOPES_ADVICE), passedOver: true };
  return { found: { credentials, projectId: projectId || null, source: `the metadata server at ${host}` } };
}

/** What to change when a VM's access scopes lack a requested one. */
const VM_SCOPES_ADVICE =
  "stop the VM, give it these scopes (gcloud compute instances set-service-account VM --zone ZONE --service-account SA --scopes SCOPES) and start it again; or ask for fewer scopes.";

/** Where the metadata server may honour `?scopes=` (Cloud Run, Functions, App Engine, GKE); elsewhere it is a VM's. */
function honoursRequestedScopes(env: NodeJS.ProcessEnv): boolean {
  return [
    "K_SERVICE",
    "K_CONFIGURATION",
    "CLOUD_RUN_JOB",
    "FUNCTION_TARGET",
    "FUNCTION_NAME",
    "GAE_SERVICE",
    "KUBERNETES_SERVICE_HOST",
  ].some((name) => Boolean(env[name]));
}

/** A metadata token, asked without following redirects: a metadata server never redirects. */
async function metadataToken(base: string, host: string, scopes: readonly string[]): Promise<Credentials> {
  const query = scopes.length > 0 ? `?${new URLSearchParams({ scopes: scopes.join(",") })}` : "";
  // A busy server (408, 429, 5xx) is asked again, as gcp-metadata does (hosted/metadata.ts).
  const reply = await askMetadata(() =>
    platformFetch("ADC", "the metadata server", {
      url: `${base}/instance/service-accounts/default/token${query}`,
      headers: { "Metadata-Flavor": "Google" },
      timeoutMs: METADATA_TOKEN_TIMEOUT_MS,
    }),
  );
  if (reply.status >= 300 && reply.status < 400)
    throw new CredConnectionError(
      `ADC: the metadata server at ${host} answered its token request with a redirect (HTTP ${reply.status}), which is never followed; check GCE_METADATA_HOST.`,
    );
  if (reply.header("Metadata-Flavor") !== "Google")
    throw new CredConnectionError(
      `ADC: the server at ${host} is not a metadata server (no "Metadata-Flavor: Google").`,
    );
  if (reply.status !== 200)
    throw new CredConnectionError(
      `ADC: the metadata server at ${host} answered its token request with HTTP ${reply.status}.`,
    );
  const body = parseJson("ADC", "the metadata server", reply.text) as {
    access_token?: unknown;
    expires_in?: unknown;
  } | null;
  if (typeof body?.access_token !== "string" || body.access_token === "")
    throw new CredConnectionError(`ADC: the metadata server at ${host} sent a token reply without an access_token.`);
  return tokenCredentials(body.access_token, body.expires_in);
}

/** One token request to the metadata server; google-auth-library allows it 3 s as well. */
const METADATA_TOKEN_TIMEOUT_MS = 3000;
