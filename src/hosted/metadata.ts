import { setTimeout as delay } from "node:timers/promises";
import type { Credentials } from "google-auth-library";
import { CredConnectionError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { metadataClient } from "./clients.js";
import { parseJson, platformFetch, projectIdFromEnv, statusError, tokenCredentials } from "./http.js";
import type { HostedCredentials, HostedEnvironment } from "./types.js";

/** How long one metadata request may take: the server is local, so a silent one is absent. */
export const METADATA_TIMEOUT_MS = 3000;

const DEFAULT_METADATA_HOST = "169.254.169.254";
/** Token requests answered 429 or 5xx are tried this often in all (gcp-metadata retries 3 times too). */
export const METADATA_TOKEN_ATTEMPTS = 3;
const RETRY_BASE_MS = 200;
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
}

/** A {@link HostedEnvironment} getting its credentials from the metadata server. */
export function metadataEnvironment(platform: MetadataPlatform): HostedEnvironment {
  return {
    name: platform.name,
    detect: platform.detect,
    credentials: (scopes, env) => metadataCredentials(platform, scopes, env),
  };
}

/**
 * A self-refreshing `Compute` client, proven by fetching its first token, and the project id
 * (the environment's choice first, as google-auth-library does, then the metadata server's).
 */
export async function metadataCredentials(
  platform: MetadataPlatform,
  scopes: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<HostedCredentials> {
  if (env.METADATA_SERVER_DETECTION?.trim().toLowerCase() === "none") {
    throw new CredCredentialsError(
      `${platform.label}: the metadata server is disabled by METADATA_SERVER_DETECTION=none; unset it to use ${platform.label}'s credentials.`,
      { code: ERROR_CODES.HOSTED_UNAVAILABLE },
    );
  }
  const base = metadataBaseUrl(env);
  const timeoutMs = platform.timeoutMs ?? METADATA_TIMEOUT_MS;
  const source = () => fetchMetadataToken(platform, base, scopes, timeoutMs);
  const credentials = await metadataClient(platform.label, scopes, source);
  await credentials.getAccessToken(); // the first token proves the server serves this notebook
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
  const reply = await metadataGetRetrying(
    platform.label,
    `${base}/instance/service-accounts/default/token${query}`,
    timeoutMs,
  );
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

/** A busy or failing metadata server (429, 5xx) is asked again with backoff; Colab's propagation error is final. */
export async function metadataGetRetrying(label: string, url: string, timeoutMs: number) {
  for (let attempt = 1; ; attempt++) {
    const reply = await metadataGet(label, url, timeoutMs);
    const temporary = reply.status === 429 || reply.status >= 500;
    if (!temporary || attempt >= METADATA_TOKEN_ATTEMPTS || /credential propagation/i.test(reply.text)) return reply;
    await delay(RETRY_BASE_MS * 2 ** (attempt - 1) * (0.5 + Math.random()));
  }
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
