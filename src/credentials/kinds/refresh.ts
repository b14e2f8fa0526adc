// A new access token of an impersonated_service_account file, loaded on a token-cache miss: its source's
// token (itself cached), then IAM Credentials' generateAccessToken.
import { type CachedAccessToken, bearerEntry } from "../../formats/token-cache-entry.js";
import type { ImpersonatedFile } from "../../formats/impersonated-file.js";
import { generateAccessToken } from "../../protocols/iam-credentials.js";

/** The source's token (`source()`, itself cached), then generateAccessToken at the judged `iamUrl`. */
export async function impersonatedFileToken(
  file: ImpersonatedFile,
  iamUrl: string,
  source: () => Promise<CachedAccessToken>,
  scopes: readonly string[],
): Promise<CachedAccessToken> {
  const sourceToken = (await source()).access_token;
  const got = await generateAccessToken({
    url: iamUrl,
    target: file.target,
    sourceToken,
    delegates: file.delegates,
    scopes,
  });
  return bearerEntry(got, scopes);
}
