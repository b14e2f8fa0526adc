// The one transport (trust/transport.ts) as google-auth-library's clients take it: every client
// cred-auth builds (user, key, impersonated, federation, workforce user, metadata, ID-token, the
// sign-in's OAuth2Client) gets `transporterOptions: clientTransport()`, so its token requests, the
// STS and IAM steps it takes, and the API calls made with it go through node-fetch with cred-auth's
// redirect and proxy rules, and any request's failure is redacted of every secret it carried
// before google-auth-library or the caller sees it.
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
 * gaxios hands a request's final error here before anyone sees it (its own redactor blanks a few
 * headers, not a refresh token, a subject token or what a server echoed): every secret the request
 * carried (the body's credentials, the Authorization header and every other header's value) is
 * taken out of the messages, replies and kept requests of the error and its causes.
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

/**
 * STS as an external-account client asks it, through the client's own transporter (google-auth-library
 * builds its STS step with a gaxios of its own, outside any transport); undefined when the library is
 * laid out otherwise (the caller keeps the library's).
 */
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
