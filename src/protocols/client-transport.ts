// The one transport as google-auth-library's clients take it (`transporterOptions: clientTransport()`
// on every client cred-auth builds): their requests go through trust/transport.ts, their failures redacted.
import type { AuthClient, gaxios } from "google-auth-library";
import type {
  StsCredentials,
  StsCredentialsConstructionOptions,
} from "google-auth-library/build/src/auth/stscredentials.js";
import { transportFetch } from "../trust/transport.js";
import { stsCredentialsClass } from "../util/lazy.js";
import { redactTokenRequestError } from "./token-errors.js";

type Gaxios = AuthClient["transporter"];
type GaxiosOptions = gaxios.GaxiosOptions;
type ClientAuthentication = StsCredentialsConstructionOptions["clientAuthentication"];
type ErrorRedactor = Exclude<GaxiosOptions["errorRedactor"], false | undefined>;

/** Headers whose values are no secret: every other header's value is taken out of a failure. */
const PLAIN_HEADERS = new Set([
  "accept",
  "accept-encoding",
  "accept-language",
  "content-type",
  "content-length",
  "user-agent",
  "x-goog-api-client",
  "x-goog-user-project",
  "metadata-flavor",
]);

/** A client's `transporterOptions`: the one transport, and its failures redacted. */
export function clientTransport(): GaxiosOptions {
  return {
    fetchImplementation: transportFetch as NonNullable<GaxiosOptions["fetchImplementation"]>,
    errorRedactor: redactSentSecrets as ErrorRedactor,
  };
}

/**
 * gaxios's last hook before anyone sees a request's error (its own redactor blanks a few headers only):
 * every secret the request carried is taken out of the error's messages, replies and kept requests.
 */
function redactSentSecrets(error: { config?: { headers?: unknown } }): typeof error {
  const headers = error.config?.headers instanceof Headers ? error.config.headers : undefined;
  const sent = new Map<string, string>();
  headers?.forEach((value, name) => {
    if (!PLAIN_HEADERS.has(name)) sent.set(name, value);
  });
  redactTokenRequestError(error, [...sent.values()]);
  for (const name of sent.keys()) headers?.delete(name);
  return error;
}

/** STS as a federation client asks it, through the client's own transporter; undefined for another layout of the library. */
export function stsThroughTransport(
  transporter: Gaxios,
  tokenUrl: string | undefined,
  clientAuthentication: ClientAuthentication | undefined,
): StsCredentials | undefined {
  const Sts = stsCredentialsClass();
  if (Sts === undefined || tokenUrl === undefined) return undefined;
  return new Sts({
    tokenExchangeEndpoint: tokenUrl,
    transporter,
    ...(clientAuthentication ? { clientAuthentication } : {}),
  });
}
