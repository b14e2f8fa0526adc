// New tokens of an impersonated_service_account file, loaded on a token-cache miss: its source's access
// token (itself cached), then IAM Credentials' generateAccessToken or generateIdToken.
import { type CachedAccessToken, bearerEntry } from "../../../formats/token-cache-entry.js";
import { generateAccessToken, generateIdToken } from "../../../protocols/iam-credentials.js";
import type { FetchedIdToken } from "../../../protocols/id-token-reply.js";
import type { ImpersonatedFile } from "./file.js";

/** The token acting as the file's account with `scopes`, at the judged `iamUrl`. */
export async function impersonatedFileToken(
  file: ImpersonatedFile,
  iamUrl: string,
  source: () => Promise<CachedAccessToken>,
  scopes: readonly string[],
): Promise<CachedAccessToken> {
  const sourceToken = (await source()).access_token;
  const { target, delegates } = file;
  return bearerEntry(await generateAccessToken({ url: iamUrl, target, sourceToken, delegates, scopes }), scopes);
}

/** The account's ID token for `audience`, at the judged generateIdToken `url`. */
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
