// `cred-auth print-token` without a file: an access token from the credentials default() would
// use (./locate.ts), a hosted platform's first, as gcloud's print-access-token needs no path. It
// never starts a sign-in: with nothing found it says what to run.
import type { AuthClient } from "google-auth-library";
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { tryHosted } from "../hosted/registry.js";
import { CLOUD_PLATFORM_SCOPE } from "../shared/constants.js";
import { findApplicationDefaultCredentials } from "./adc.js";
import { type FileToken, type FileTokenOptions, accessTokenForFile } from "./file-token.js";
import { type CredentialsSource, locateCredentials, noCredentialsFound } from "./locate.js";

/** An access token, and where it came from. */
export interface FoundAccessToken extends Pick<FileToken, "accessToken" | "scopesIgnored" | "warnings"> {
  /** When it expires, in milliseconds since the epoch, when the server said. */
  expiryDate?: number;
  /** The credentials it came from (a hosted platform's: `{ kind: "hosted", name }`). */
  source: CredentialsSource | { kind: "hosted"; name: string };
}

/** An access token from the credentials default() would use, without a sign-in. */
export async function accessTokenFromSearch(options: FileTokenOptions = {}): Promise<FoundAccessToken> {
  const env = options.env ?? process.env;
  const scopes = options.scopes && options.scopes.length > 0 ? [...options.scopes] : [CLOUD_PLATFORM_SCOPE];
  const located = await locateCredentials(env);
  if (located.hosted !== undefined) {
    const hosted = await tryHosted(scopes, true, env);
    if (hosted.result)
      return { ...(await tokenOf(hosted.result.credentials)), source: { kind: "hosted", name: hosted.result.name } };
  }
  const { source } = located;
  if (source.kind === "file") {
    const { accessToken, expiryDate, scopesIgnored, warnings } = await accessTokenForFile(source.path, options);
    return { accessToken, expiryDate, scopesIgnored, warnings, source };
  }
  if (source.kind === "metadata") {
    // default()'s own metadata step: the VM's scopes checked against those asked for.
    const { found, reasons } = await findApplicationDefaultCredentials(scopes, env);
    if (found) return { ...(await tokenOf(found.credentials)), source };
    throw new CredCredentialsError(`No access token from the metadata server: ${reasons.join("; ")}.`, {
      code: ERROR_CODES.NO_CREDENTIALS,
    });
  }
  throw noCredentialsFound(located);
}

/** The token a client holds or gets now, and when it expires. */
async function tokenOf(client: AuthClient): Promise<Omit<FoundAccessToken, "source">> {
  const { token } = await client.getAccessToken();
  if (!token)
    throw new CredCredentialsError("The credentials default() would use gave no access token.", {
      code: ERROR_CODES.NO_CREDENTIALS,
    });
  const expiry = client.credentials.expiry_date;
  return {
    accessToken: token,
    ...(typeof expiry === "number" ? { expiryDate: expiry } : {}),
    scopesIgnored: false,
    warnings: [],
  };
}
