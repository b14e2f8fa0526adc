// Where a user's or a key's secret may go (their token URL, judged by the URL policy in the universe the user
// trusts), and the generateIdToken twin of a judged IAM URL; each kind's other URLs are judged in its file.ts.
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

/** The `generateIdToken` URL of a judged `generateAccessToken` URL: the same host and account. */
export function idTokenUrlOf(generateAccessTokenUrl: string): string {
  const url = new URL(generateAccessTokenUrl);
  // formats/ checked the file's URL when it was read: anything else is a mistake of ours.
  if (!url.pathname.endsWith(":generateAccessToken")) throw new TypeError("not a judged generateAccessToken URL");
  url.pathname = `${url.pathname.slice(0, -":generateAccessToken".length)}:generateIdToken`;
  return url.href;
}
