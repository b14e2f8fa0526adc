/**
 * The OAuth client, checked before the browser opens: a made-up code gets `invalid_client` from a token
 * server that does not know the client, `invalid_grant` from one that does (Google and the emulator
 * alike). Found later, the user would have signed in for nothing, or waited at Google's error page.
 */
import { CredConnectionError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { galEndpoints } from "../protocols/endpoints.js";
import { toCredError } from "../protocols/token-errors.js";
import { guardTokenRequests } from "../protocols/token-requests.js";
import { clientTransport } from "../protocols/client-transport.js";
import { loadGoogleAuth } from "../util/lazy.js";
import type { ClientSource } from "./client.js";
import type { FlowPlan } from "./plan.js";

/** A code no token server issued: Google calls it "Malformed auth code." (invalid_grant). */
const MADE_UP_CODE = "cred-auth-client-check";

/** The check waits this long at most; a slower answer lets the sign-in go on unchecked. */
const CHECK_TIMEOUT_MS = 5_000;

/** Clients a token server has answered for in this process (`TOKEN_URL CLIENT_ID`): not asked again. */
const proven = new Set<string>();

/** Whether this process already knows the token server at `tokenUrl` accepts `clientId`. */
export function clientProven(clientId: string, tokenUrl: string): boolean {
  return proven.has(`${tokenUrl} ${clientId}`);
}

/**
 * Asks the token server about the plan's client (one request): `ERR_INVALID_CLIENT` for a client it does
 * not know, `ERR_UNREACHABLE` when it cannot be reached; any other answer lets the sign-in go on.
 */
export async function checkClient(plan: FlowPlan, redirectUri: string): Promise<void> {
  const { endpoints, client } = plan;
  const { OAuth2Client } = await loadGoogleAuth();
  const oauth = new OAuth2Client({
    clientId: client.clientId,
    transporterOptions: clientTransport(),
    clientSecret: client.clientSecret,
    endpoints: galEndpoints(endpoints),
  });
  guardTokenRequests(oauth, { tokenUrl: endpoints.tokenUrl, timeoutMs: CHECK_TIMEOUT_MS });
  // google-auth-library asks gaxios to retry a token request 3 times: one attempt is the whole check.
  oauth.transporter.interceptors.request.add({
    resolved: async (options) => ({ ...options, retry: false, retryConfig: { ...options.retryConfig, retry: 0 } }),
  });
  try {
    await oauth.getToken({ code: MADE_UP_CODE, redirect_uri: redirectUri });
  } catch (error) {
    const failure = toCredError(error, `Checking the OAuth client ${client.clientId}`);
    // Deleted or disabled: the token server's own words, and the next step.
    if (failure.error === "deleted_client" || failure.error === "disabled_client") throw failure;
    if (failure.code === ERROR_CODES.INVALID_CLIENT && secretRefused(error)) throw wrongSecret(plan, failure);
    if (failure.code === ERROR_CODES.INVALID_CLIENT) throw unknownClient(plan, failure);
    if (failure.code === ERROR_CODES.UNREACHABLE) throw unreachable(plan, failure);
    // The server answered something else about the made-up code: it knows the client.
    if (failure.status !== undefined && failure.status < 500) proven.add(`${endpoints.tokenUrl} ${client.clientId}`);
  }
}

/** Where the client came from, and how to leave it out. */
const FROM: Readonly<Record<ClientSource, string>> = {
  options: "given as clientId and clientSecret (or --client-secret-file)",
  env: "from CRED_AUTH_CLIENT_ID and CRED_AUTH_CLIENT_SECRET, or CRED_AUTH_CLIENT_SECRET_FILE",
  file: "from CRED_AUTH_CLIENT_SECRET_FILE",
  settings: "kept in your settings by `cred-auth config init` or `config set`; `cred-auth config list` shows it",
  demo: "the emulator's demo client",
};

/** Google's (and the emulator's) words for a known client with a wrong secret: "Unauthorized". */
function secretRefused(error: unknown): boolean {
  const data = (error as { response?: { data?: { error_description?: unknown } } } | undefined)?.response?.data;
  return data?.error_description === "Unauthorized";
}

function wrongSecret(plan: FlowPlan, failure: CredCredentialsError | CredConnectionError): CredCredentialsError {
  const { endpoints, client } = plan;
  const server = endpoints.emulator ? `The emulator at ${origin(endpoints.tokenUrl)}` : "Google";
  return new CredCredentialsError(
    `${server} knows the OAuth client ${client.clientId} (${FROM[client.source]}) but refused its client secret: the secret is mistyped, or a new one was made for the client. Copy the secret again from the client on the Google Cloud console's Credentials page (or download the client's JSON again and run \`cred-auth config init FILE\`).`,
    { cause: failure, code: ERROR_CODES.INVALID_CLIENT, error: "invalid_client", ...statusOf(failure) },
  );
}

function statusOf(failure: CredCredentialsError | CredConnectionError): { status?: number } {
  return failure.status !== undefined ? { status: failure.status } : {};
}

/** In the emulator's shell, the way past a client it does not know: the demo client, or registering yours. */
function emulatorWayOut(plan: FlowPlan): string {
  const register = `register it with the emulator first (POST {"clientId", "clientSecret", "type": "installed"} to ${origin(plan.endpoints.tokenUrl)}/__emulator/oauth-client)`;
  if (plan.client.source !== "settings") return `leave it out to use the emulator's demo client, or ${register}`;
  // Unsetting the settings would take the client away from Google too: the environment wins over them.
  return `for the emulator, give its demo client in this shell, which wins over your settings: CRED_AUTH_CLIENT_ID=cred-auth-demo.apps.emulator.invalid and CRED_AUTH_CLIENT_SECRET=its demo secret (getting-started.md, "The emulator"); or ${register}`;
}

function unknownClient(plan: FlowPlan, failure: CredCredentialsError | CredConnectionError): CredCredentialsError {
  const { endpoints, client } = plan;
  const from = FROM[client.source];
  const message = endpoints.emulator
    ? `The emulator at ${origin(endpoints.tokenUrl)} does not know the OAuth client ${client.clientId} (${from}): ${emulatorWayOut(plan)}.`
    : `Google does not accept the OAuth client ${client.clientId} (${from}): it was deleted, or its id or secret is mistyped. Compare them with the client on the Google Cloud console's Credentials page, or make a new Desktop client with \`cred-auth config init\`.`;
  return new CredCredentialsError(message, {
    cause: failure,
    code: ERROR_CODES.INVALID_CLIENT,
    error: "invalid_client",
    ...statusOf(failure),
  });
}

function unreachable(plan: FlowPlan, failure: CredCredentialsError | CredConnectionError): CredConnectionError {
  const { endpoints } = plan;
  const message = endpoints.emulator
    ? `Nothing answers at the emulator's address ${origin(endpoints.tokenUrl)} (CRED_AUTH_EMULATOR_HOST): start it with \`cred-auth emulator --port ${new URL(endpoints.tokenUrl).port}\`, or unset CRED_AUTH_EMULATOR_HOST to sign in with Google.`
    : `Google's token server (${origin(endpoints.tokenUrl)}) cannot be reached, so a sign-in could not finish: check the network, or the proxy (HTTPS_PROXY), and run again.`;
  return new CredConnectionError(message, { cause: failure, code: ERROR_CODES.UNREACHABLE });
}

function origin(url: string): string {
  return new URL(url).origin;
}
