import { CredCredentialsError } from "../errors.js";
import { ENV } from "../shared/constants.js";
import { authorizationError } from "./errors.js";
import { codePageUrl, type Endpoints } from "../google/endpoints.js";

const MAX_PASTE_LENGTH = 4096;

/**
 * Where the copy-paste flow sends the browser: the caller's `redirectUri`, the emulator's
 * code page, or `CRED_AUTH_REDIRECT_URI`. Google has no code page of its own any more.
 */
export function pasteRedirectUri(
  redirectUri: string | undefined,
  endpoints: Endpoints,
  env: NodeJS.ProcessEnv,
): string {
  const uri = redirectUri?.trim() || codePageUrl(endpoints, env);
  if (!uri) {
    throw new CredCredentialsError(
      `The copy-paste sign-in needs a page that shows the code: host docs/oauth.html (see docs/oauth-client.md) and pass its address as redirectUri or ${ENV.redirectUri}, or use the loopback flow (useLocalWebserver: true).`,
    );
  }
  if (!/^https?:\/\//i.test(uri))
    throw new CredCredentialsError(`The redirect URI must be an http(s) address, not "${uri}".`);
  return uri;
}

/**
 * The authorization code in what the user pasted: the bare code, the whole redirect URL, or
 * its query string. A URL's `state`, when present, must be this sign-in's.
 */
export function parsePastedCode(pasted: string, state: string): string {
  const text = pasted.trim();
  if (!text)
    throw new CredCredentialsError(
      "No authorization code was entered; run again and paste the code shown after sign-in.",
    );
  if (text.length > MAX_PASTE_LENGTH)
    throw new CredCredentialsError("The pasted text is too long to be an authorization code; paste only the code.");
  const query = queryOf(text);
  if (!query) {
    if (/\s/.test(text))
      throw new CredCredentialsError(
        "The pasted text is not an authorization code (it has spaces); paste only the code.",
      );
    return text;
  }
  const returnedState = query.get("state");
  if (returnedState !== null && returnedState !== state) {
    throw new CredCredentialsError(
      "The pasted address belongs to another sign-in (state mismatch); paste the one from the newest sign-in.",
    );
  }
  const error = query.get("error");
  if (error !== null) throw authorizationError(error);
  const code = query.get("code");
  if (!code)
    throw new CredCredentialsError(
      "The pasted address carries no authorization code; paste the code shown after sign-in.",
    );
  return code;
}

/** The query of a pasted URL or query string; undefined for a bare code. */
function queryOf(text: string): URLSearchParams | undefined {
  if (/^https?:\/\//i.test(text)) {
    try {
      return new URL(text).searchParams;
    } catch {
      throw new CredCredentialsError("The pasted address is not a valid URL; paste the code or the whole address.");
    }
  }
  if (/(^|[?&])(code|error)=/.test(text)) return new URLSearchParams(text.replace(/^\?/, ""));
  return undefined;
}
