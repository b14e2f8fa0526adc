// A new ID token of an impersonated_service_account file, loaded on a token-cache miss: its source's
// access token (itself cached), then IAM Credentials' generateIdToken.
import type { CachedAccessToken } from "../../token-cache/index.js";
import type { ImpersonatedFile } from "../../formats/impersonated-file.js";
import { generateIdToken } from "../../protocols/iam-credentials.js";
import type { FetchedIdToken } from "../../protocols/id-token-reply.js";

/** The source's access token (`source()`, itself cached), then generateIdToken at the judged `url`. */
export async function impersonatedIdToken(
  file: ImpersonatedFile,
  url: string,
  source: () => Promise<CachedAccessToken>,
  audience: string,
  includeEmail: boolean,
): Promise<FetchedIdToken> {
  const sourceToken = (await source()).access_token;
  return generateIdToken({ url, target: file.target, sourceToken, delegates: file.delegates, audience, includeEmail });
}
