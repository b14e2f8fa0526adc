/**
 * A refresh token STS rotated, written back into the file it was read from: an
 * `external_account_authorized_user` file, or such a file as the `source_credentials` of an
 * `impersonated_service_account` file. Every other field stays as it was; the result is validated
 * as its type says before anyone writes it (credentials/clients/rotated-refresh-token.ts).
 */
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { quoted } from "../trust/text.js";
import { isObject, parseExternalAuthorizedUser } from "./external-account.js";
import { parseImpersonatedFile } from "./impersonated-file.js";

/** Where the refresh token sits: the file itself, or its `source_credentials`. */
export type RefreshTokenPlace = "file" | "source_credentials";

/**
 * The text of the credentials file `text` (read from `path`) with the refresh token `sent` at
 * `place` replaced by `rotated`, or undefined when the file no longer holds `sent` there (someone
 * wrote another since: theirs is kept).
 *
 * @throws CredCredentialsError (`ERR_FILE_INVALID`) when the file is not such a file any more.
 */
export function withRotatedRefreshToken(
  text: string,
  place: RefreshTokenPlace,
  tokens: { sent: string; rotated: string },
  path: string,
): string | undefined {
  const invalid = (what: string) =>
    new CredCredentialsError(`Credentials file ${quoted(path)} ${what}.`, { code: ERROR_CODES.FILE_INVALID });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalid("is no longer JSON");
  }
  if (!isObject(json)) throw invalid("is no longer a JSON object");
  const holder = place === "file" ? json : json.source_credentials;
  if (!isObject(holder) || holder.type !== "external_account_authorized_user")
    throw invalid("no longer holds external_account_authorized_user credentials");
  if (holder.refresh_token !== tokens.sent) return undefined;
  holder.refresh_token = tokens.rotated;
  if (place === "file") parseExternalAuthorizedUser(json, path);
  else parseImpersonatedFile(json, path);
  return `${JSON.stringify(json, null, 2)}\n`;
}
