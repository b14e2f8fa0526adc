/**
 * Where each kind of credentials file may send what it holds: every URL a file names, judged by
 * the URL policy (trust/urls.ts) in the universe the user trusts, after the file's own
 * `universe_domain` was checked against it. One function per file type; everything that sends a
 * secret (the CLI's print-token, default(), the loaders, google-auth-library's clients) gets its
 * URLs here and nowhere else. A URL a file leaves out is Google's default for the file's universe.
 */
import { type Destination, type GoogleService, type Universe, checkFileUniverse, trustedUrl } from "../trust/urls.js";

/** Where an `authorized_user` or `service_account` file's secret goes: its token URL. */
export function credentialsTokenUrl(
  file: { universeDomain?: string; tokenUrl?: string },
  universe: Universe,
  path?: string,
): string {
  checkFileUniverse(file.universeDomain, universe, path);
  const raw = file.tokenUrl ?? `https://oauth2.${universe.domain}/token`;
  // The refresh token or key sent there is the file's own: a local token server is allowed.
  return trustedUrl(raw, destination("oauth2", "token_uri", path, true), universe);
}

/** What a URL of `file` is, for the URL policy's judgement and its words. */
export function destination(service: GoogleService, field: string, file?: string, ownSecretOnly = false): Destination {
  return {
    service,
    field,
    ...(file === undefined ? {} : { file }),
    ...(ownSecretOnly ? { ownSecretOnly } : {}),
  };
}

/**
 * The `generateIdToken` URL of a judged `generateAccessToken` URL (an impersonated or federation
 * file's `service_account_impersonation_url`): the same host and account, the other method.
 */
export function idTokenUrlOf(generateAccessTokenUrl: string): string {
  const url = new URL(generateAccessTokenUrl);
  // formats/ checked the file's URL when it was read: anything else is a mistake of ours.
  if (!url.pathname.endsWith(":generateAccessToken")) throw new TypeError("not a judged generateAccessToken URL");
  url.pathname = `${url.pathname.slice(0, -":generateAccessToken".length)}:generateIdToken`;
  return url.href;
}
