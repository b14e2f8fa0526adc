/**
 * Where a credentials file may send a secret: the Google service it names (`https://SERVICE.` of
 * the file's universe domain), rewritten to the emulator when CRED_AUTH_EMULATOR_HOST is set (as
 * user files' Google `token_uri` is), or a loopback URL with the emulator set. Anything else is
 * refused: a file may come from someone else, and the URL it names would receive the secret.
 */
import { CredUnsafeTokenUrlError } from "../errors.js";
import { ENV } from "../shared/constants.js";
import { emulatorBaseUrl, isLoopbackHostname } from "./endpoints.js";

/** The Google services a credentials file's URLs may name, with the API's name for messages. */
const SERVICES = {
  sts: { field: "token_url", api: "Google's STS" },
  iamcredentials: { field: "service_account_impersonation_url", api: "Google's IAM Credentials API" },
} as const;

export type GoogleService = keyof typeof SERVICES;

/** `raw` checked for `service` (see the module comment); the URL to send the secret to. */
export function safeServiceUrl(
  raw: string,
  service: GoogleService,
  universeDomain: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const { field, api } = SERVICES[service];
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CredUnsafeTokenUrlError(`The credentials file's ${field} is not a URL; write the file again.`);
  }
  const emulatorHost = env[ENV.emulatorHost]?.trim();
  const host = `${service}.${universeDomain}`;
  const google = url.protocol === "https:" && url.hostname === host && !url.username && !url.port;
  if (emulatorHost) {
    const base = emulatorBaseUrl(emulatorHost);
    if (google && universeDomain === "googleapis.com") return `${base}${url.pathname}`;
    if (url.protocol === "http:" && isLoopbackHostname(url.hostname)) return url.toString();
  } else if (google) {
    return url.toString();
  }
  throw new CredUnsafeTokenUrlError(
    `The credentials file's ${field} host "${url.host.slice(0, 100)}" is not ${api} (${host}); cred-auth sends no token there.`,
  );
}
