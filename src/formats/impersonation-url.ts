// The account an IAM `...:generateAccessToken` URL's path names, for every reader; a query or fragment is
// refused, since a reader of the whole text could take an account named there while the request acts as the path's.

/** How messages say the shape a `service_account_impersonation_url` must have. */
export const IMPERSONATION_URL_SHAPE = "ACCOUNT:generateAccessToken (a URL with no query or fragment)";

/** The account an impersonation URL's path names, or undefined (no such path, a query or fragment, a smuggled path). */
export function targetOfImpersonationUrl(url: string): string | undefined {
  if (url.length > 256 || url.includes("?") || url.includes("#") || !URL.canParse(url)) return undefined;
  const encoded = /\/(?<target>[^/]+):generateAccessToken$/.exec(new URL(url).pathname)?.groups?.target;
  let target: string;
  try {
    target = decodeURIComponent(encoded ?? "");
  } catch {
    return undefined; // a malformed %-escape
  }
  // An e-mail or a numeric unique id; never a path, query or space smuggled in through escapes.
  return /^[^\s/?#%]+$/.test(target) ? target : undefined;
}
