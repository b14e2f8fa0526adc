// The OAuth client, checked before the browser opens (found later, the user signed in for nothing): a made-up code gets
// `invalid_client` from a token server that does not know the client, `invalid_grant` from one that does.
import { CredConnectionError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { toCredError } from "../protocols/token-errors.js";
import type { ClientSource } from "./client.js";
import { signInClient } from "./exchange.js";
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

/** Asks the token server about the plan's client (one request): ERR_INVALID_CLIENT, ERR_UNREACHABLE, else go on. */
export async function checkClient(plan: FlowPlan, redirectUri: string): Promise<void> {
  const { endpoints, client } = plan;
  const oauth = await signInClient(endpoints, client, CHECK_TIMEOUT_MS);
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
  options: "the clientId/clientSecret options or --client-secret-file",
  env: "CRED_AUTH_CLIENT_ID/SECRET or CRED_AUTH_CLIENT_SECRET_FILE",
  file: "CRED_AUTH_CLIENT_SECRET_FILE",
  settings: "your settings (cred-auth config list)",
  demo: "the emulator's demo client",
};

/** Google's (and the emulator's) words for a known client with a wrong secret: "Unauthorized". */
function secretRefused(error: unknown): boolean {
  const data = (error as { response?: { data?: { error_description?: unknown } } } | undefined)?.response?.data;
  return data?.error_description === "Unauthorized";
}

function wrongSecret(plan: FlowPlan, failure: CredCredentialsError | CredConnectionError): CredCredentialsError {
  const { endpoints, client } = plan;
  const server = endpoints.emulator ? "The emulator" : "Google";
  return new CredCredentialsError(
    `${server} refused the OAuth client's secret (from ${FROM[client.source]}): mistyped, or replaced; copy it again from the console's Credentials page, or \`cred-auth config init FILE\` a new download.`,
    { cause: failure, code: ERROR_CODES.INVALID_CLIENT, error: "invalid_client", ...statusOf(failure) },
  );
}

function statusOf(failure: CredCredentialsError | CredConnectionError): { status?: number } {
  return failure.status !== undefined ? { status: failure.status } : {};
}

/** In the emulator's shell, the way past a client it does not know: the demo client, or registering yours. */
function emulatorWayOut(plan: FlowPlan): string {
  // Unsetting the settings would take the client away from Google too: the environment wins over them.
  if (plan.client.source === "settings")
    return "set CRED_AUTH_CLIENT_ID/SECRET to its demo client in this shell (docs/getting-started.md), or register yours";
  return "leave it out to use its demo client, or register it (docs/emulator.md)";
}

function unknownClient(plan: FlowPlan, failure: CredCredentialsError | CredConnectionError): CredCredentialsError {
  const { endpoints, client } = plan;
  const from = FROM[client.source];
  const message = endpoints.emulator
    ? `The emulator does not know the OAuth client from ${from}: ${emulatorWayOut(plan)}.`
    : `Google does not accept the OAuth client from ${from}: deleted, or its id or secret mistyped; check it on the console's Credentials page, or run \`cred-auth config init\`.`;
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
    ? `Nothing answers at the emulator's address ${origin(endpoints.tokenUrl)} (CRED_AUTH_EMULATOR_HOST): start it with \`cred-auth emulator --port ${new URL(endpoints.tokenUrl).port}\`, or unset the variable.`
    : `Google's token server (${origin(endpoints.tokenUrl)}) cannot be reached, so no sign-in could finish: check the network or the proxy (HTTPS_PROXY), and run again.`;
  return new CredConnectionError(message, { cause: failure, code: ERROR_CODES.UNREACHABLE });
}

function origin(url: string): string {
  return new URL(url).origin;
}
