import { setTimeout as delay } from "node:timers/promises";
import type { Compute, Credentials } from "google-auth-library";
import { CredConnectionError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { metadataClient } from "./clients.js";
import { type VmScopesShortfall, parseVmScopes, scopesBeyond, vmScopesReason } from "./metadata-scopes.js";
import { parseJson, platformFetch, projectIdFromEnv, statusError, tokenCredentials } from "./http.js";
import { type FetchedIdToken, fetchedIdToken } from "../protocols/id-token-reply.js";
import { printable } from "../trust/text.js";
import type { HostedCredentials, HostedEnvironment } from "./types.js";

/** How long one metadata request may take: the server is local, so a silent one is absent. */
export const METADATA_TIMEOUT_MS = 3000;

const DEFAULT_METADATA_HOST = "169.254.169.254";
/** A token request answered 408, 429 or 5xx is asked again this many times, as gcp-metadata's gaxios does. */
export const METADATA_RETRIES = 3;
const WHAT = "the metadata server";

/** A hosted platform whose runtime serves its user's token on the GCE metadata server. */
export interface MetadataPlatform {
  /** Short name, e.g. `colab`. */
  name: string;
  /** Name shown to people, e.g. `Colab`. */
  label: string;
  detect(env: NodeJS.ProcessEnv): boolean;
  /** What the user should do when the token path answers 404 (nobody signed in / no account). */
  whenNoToken: string;
  /** Per-request timeout (default {@link METADATA_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** A platform on a Compute Engine VM: its access scopes are checked against those asked; `whenScopesMissing` says what to do. */
  vm?: { whenScopesMissing: string };
}

/** A {@link HostedEnvironment} getting its credentials from the metadata server: a `Compute` client. */
export function metadataEnvironment(platform: MetadataPlatform): MetadataEnvironment {
  return {
    name: platform.name,
    detect: platform.detect,
    credentials: (scopes, env) => metadataCredentials(platform, scopes, env),
  };
}

export interface MetadataEnvironment extends HostedEnvironment {
  credentials(scopes: readonly string[], env: NodeJS.ProcessEnv): Promise<HostedCredentials & { credentials: Compute }>;
}

/** A self-refreshing `Compute` client proven by its first token, and the project id (the environment's first). */
export async function metadataCredentials(
  platform: MetadataPlatform,
  scopes: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<HostedCredentials & { credentials: Compute }> {
  if (env.METADATA_SERVER_DETECTION?.trim().toLowerCase() === "none") {
    throw new CredCredentialsError(
      `${platform.label}: the metadata server is disabled by METADATA_SERVER_DETECTION=none; unset it to use ${platform.label}'s credentials.`,
      { code: ERROR_CODES.HOSTED_UNAVAILABLE },
    );
  }
  const base = metadataBaseUrl(env);
  const timeoutMs = platform.timeoutMs ?? METADATA_TIMEOUT_MS;
  const source = () => fetchMetadataToken(platform, base, scopes, timeoutMs);
  const credentials = await metadataClient(platform.label, scopes, source, (audience) =>
    metadataIdToken(audience, env),
  );
  await credentials.getAccessToken(); // the first token proves the server serves this notebook
  // A VM whose access scopes lack one asked is refused, as a sign-in that granted less is.
  const shortfall = platform.vm && (await vmScopesShortfall(platform.label, base, scopes, timeoutMs));
  if (platform.vm && shortfall)
    throw new CredCredentialsError(`${platform.label}: ${vmScopesReason(shortfall, platform.vm.whenScopesMissing)}`, {
      code: ERROR_CODES.INVALID_SCOPE,
    });
  const projectId = projectIdFromEnv(env) ?? (await fetchMetadataProjectId(platform.label, base, timeoutMs));
  return { credentials, projectId };
}

/** `http://HOST/computeMetadata/v1`, honouring GCE_METADATA_IP and GCE_METADATA_HOST like google-auth-library. */
export function metadataBaseUrl(env: NodeJS.ProcessEnv): string {
  const host = env.GCE_METADATA_IP || env.GCE_METADATA_HOST || DEFAULT_METADATA_HOST;
  const origin = /^https?:\/\//.test(host) ? host : `http://${host}`;
  return new URL("/computeMetadata/v1", origin).href;
}

async function fetchMetadataToken(
  platform: MetadataPlatform,
  base: string,
  scopes: readonly string[],
  timeoutMs: number,
): Promise<Credentials> {
  const query = scopes.length > 0 ? `?${new URLSearchParams({ scopes: scopes.join(",") })}` : "";
  const url = `${base}/instance/service-accounts/default/token${query}`;
  const reply = await askMetadata(() => metadataGet(platform.label, url, timeoutMs));
  if (reply.status !== 200 && /credential propagation was unsuccessful/i.test(reply.text)) {
    throw new CredCredentialsError(
      `${platform.label}: credential propagation was unsuccessful (HTTP ${reply.status}); ${platform.whenNoToken}`,
      { code: ERROR_CODES.HOSTED_UNAVAILABLE, status: reply.status },
    );
  }
  if (reply.status === 404) {
    throw new CredCredentialsError(
      `${platform.label}: the metadata server has no token to give yet (HTTP 404); ${platform.whenNoToken}`,
      { code: ERROR_CODES.HOSTED_UNAVAILABLE, status: 404 },
    );
  }
  if (reply.status !== 200) {
    throw statusError(
      platform.label,
      WHAT,
      reply.status,
      "check that the notebook's account may use the requested scopes.",
    );
  }
  const body = parseJson(platform.label, WHAT, reply.text) as { access_token?: unknown; expires_in?: unknown } | null;
  if (typeof body?.access_token !== "string" || body.access_token === "") {
    throw new CredConnectionError(`${platform.label}: ${WHAT} sent a token reply without an access_token.`, {
      code: ERROR_CODES.SERVER_ERROR,
    });
  }
  return tokenCredentials(body.access_token, body.expires_in);
}

/** The metadata server's project id, or null when it has none or does not answer. */
async function fetchMetadataProjectId(label: string, base: string, timeoutMs: number): Promise<string | null> {
  try {
    const reply = await metadataGet(label, `${base}/project/project-id`, timeoutMs);
    const projectId = reply.text.trim();
    return reply.status === 200 && /^[a-z0-9.:-]{1,100}$/i.test(projectId) ? projectId : null;
  } catch {
    return null;
  }
}

/** What a VM's credentials lack of `scopes`, from Compute Engine's scope list; undefined when not listed or covered. */
export async function vmScopesShortfall(
  label: string,
  base: string,
  requested: readonly string[],
  timeoutMs = METADATA_TIMEOUT_MS,
): Promise<VmScopesShortfall | undefined> {
  if (requested.length === 0) return undefined;
  const url = `${base}/instance/service-accounts/default/scopes`;
  const reply = await askMetadata(() => metadataGet(label, url, timeoutMs));
  const vmScopes = reply.status === 200 ? parseVmScopes(reply.text) : undefined;
  if (vmScopes === undefined) return undefined;
  const missing = scopesBeyond(vmScopes, requested);
  return missing.length > 0 ? { vmScopes, missing } : undefined;
}

/** 408, 429 and 5xx: what gaxios asks again for gcp-metadata (its retry config's `statusCodesToRetry`). */
export function isTemporaryMetadataStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status < 600);
}

/** gaxios's wait before retry `n` (1-based): 100 ms, then 500 ms, then 1.5 s (retryDelay 100, multiplier 2). */
export function metadataRetryDelayMs(n: number): number {
  return (n === 1 ? 100 : 0) + ((2 ** (n - 1) - 1) / 2) * 1000;
}

/** `ask()` again up to METADATA_RETRIES times with backoff while the server answers a temporary status. */
export async function askMetadata<T extends { status: number; text: string }>(ask: () => Promise<T>): Promise<T> {
  for (let retry = 1; ; retry++) {
    const reply = await ask();
    const again = isTemporaryMetadataStatus(reply.status) && !/credential propagation/i.test(reply.text);
    if (!again || retry > METADATA_RETRIES) return reply;
    await delay(metadataRetryDelayMs(retry));
  }
}

/** A GET of the metadata server, asked again while it answers a temporary status ({@link askMetadata}). */
export function metadataGetRetrying(label: string, url: string, timeoutMs: number) {
  return askMetadata(() => metadataGet(label, url, timeoutMs));
}

async function metadataGet(label: string, url: string, timeoutMs: number) {
  const reply = await platformFetch(label, WHAT, { url, headers: { "Metadata-Flavor": "Google" }, timeoutMs });
  // Anything else listening there (a proxy, a captive portal) is not a metadata server.
  if (reply.header("Metadata-Flavor") !== "Google") {
    throw new CredConnectionError(
      `${label}: the server at ${new URL(url).host} is not a metadata server (no "Metadata-Flavor: Google" header in its reply).`,
      { code: ERROR_CODES.SERVER_ERROR },
    );
  }
  return reply;
}

/** An ID token of the metadata server's default account (`identity?format=full`: it names the account). */
export async function metadataIdToken(audience: string, env: NodeJS.ProcessEnv): Promise<FetchedIdToken> {
  const base = metadataBaseUrl(env);
  const label = `The metadata server at ${new URL(base).host}`;
  const query = new URLSearchParams({ audience, format: "full" });
  const url = `${base}/instance/service-accounts/default/identity?${query}`;
  const reply = await metadataGetRetrying(label, url, METADATA_TIMEOUT_MS);
  if (reply.status === 404)
    throw new CredCredentialsError(
      `${label} has no service account to sign an ID token (HTTP 404); attach one to the VM or service.`,
      { code: ERROR_CODES.ID_TOKEN_UNSUPPORTED, status: 404 },
    );
  if (isTemporaryMetadataStatus(reply.status)) throw statusError(label, "its identity endpoint", reply.status, "");
  if (reply.status !== 200)
    // The request carried no secret (an audience): the server's own words, made printable, say why.
    throw new CredCredentialsError(
      `${label} refused the ID-token request (HTTP ${reply.status}: ${printable(reply.text.trim().split("\n")[0]?.slice(0, 200) || "no message")}).`,
      { status: reply.status },
    );
  return fetchedIdToken(reply.text, label, audience);
}
