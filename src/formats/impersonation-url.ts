/**
 * The account an IAM Credentials `...:generateAccessToken` URL names, as google-auth-library reads
 * it: shared by the files that name such a URL (impersonated-file.ts, external-account.ts).
 */

/** The account an impersonation URL names (google-auth-library's reading), or undefined. */
export function targetOfImpersonationUrl(url: string): string | undefined {
  if (url.length > 256) return undefined;
  const encoded = /(?<target>[^/]+):generateAccessToken$/.exec(url)?.groups?.target;
  let target: string;
  try {
    target = decodeURIComponent(encoded ?? "");
  } catch {
    return undefined; // a malformed %-escape
  }
  // An e-mail or a numeric unique id; never a path, query or space smuggled in through escapes.
  return /^[^\s/?#%]+$/.test(target) ? target : undefined;
}
