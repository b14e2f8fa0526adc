// What the ID-token functions say when a call cannot be served, written once; light: print-identity-token's
// cached path loads it.
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { printable } from "../trust/text.js";

/** An audience is a URL or an OAuth client id; anything this long is neither. */
const MAX_AUDIENCE_LENGTH = 2048;

/** `audience`, trimmed, when it can be one; required unless the credentials have their own (`ownIdToken`). ERR_INVALID_OPTION. */
export function checkedAudience(
  audience: string | undefined,
  credentialsType: string,
  ownIdToken = false,
): string | undefined {
  if (audience === undefined) {
    if (ownIdToken) return undefined;
    throw new CredCredentialsError(
      `An ID token of ${credentialsType} credentials needs an audience: the URL of the service to call (Cloud Run), an IAP client id, or a custom audience (--audiences on the command line).`,
      { code: ERROR_CODES.INVALID_OPTION },
    );
  }
  return requiredAudience(audience);
}

/** `audience`, trimmed: one non-empty printable word, bounded; else ERR_INVALID_OPTION. */
export function requiredAudience(audience: unknown): string {
  const trimmed = typeof audience === "string" ? audience.trim() : "";
  if (trimmed === "" || trimmed.length > MAX_AUDIENCE_LENGTH || printable(trimmed) !== trimmed || /\s/.test(trimmed))
    throw new CredCredentialsError(
      "The ID token's audience must be one non-empty word of at most 2048 printable characters: a service URL, an IAP client id, or a custom audience.",
      { code: ERROR_CODES.INVALID_OPTION },
    );
  return trimmed;
}

/** Federation without service-account impersonation: STS gives access tokens only (`what` names the file or client). */
export function federationMintsNoIdTokens(what: string, type: string): CredCredentialsError {
  return new CredCredentialsError(
    `${what} holds ${type} credentials without service-account impersonation, and identity federation alone cannot mint ID tokens (Google's Security Token Service gives access tokens only). Give it a service account to impersonate (gcloud iam workload-identity-pools create-cred-config --service-account EMAIL), or use another credentials file.`,
    { code: ERROR_CODES.ID_TOKEN_UNSUPPORTED },
  );
}
