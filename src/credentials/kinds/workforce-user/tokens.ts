// A workforce user's new token from STS, on a token-cache miss. A rotated refresh token (the old one stops
// working) is written back into the very file it was read from, when ours and private; else a warning.
import { codeOf } from "../../../util/thrown.js";
import { type BigIntStats, realpathSync, statSync } from "node:fs";
import { CredAuthError } from "../../../errors.js";
import { MAX_CREDENTIALS_FILE_BYTES } from "../../../formats/credentials-file.js";
import { writeCredentialsText } from "../../../stores/credentials-file.js";
import { fieldsOf, isObject } from "../../../formats/fields.js";
import { refreshAtSts } from "../../../protocols/sts.js";
import { type CachedAccessToken, bearerEntry } from "../../../formats/token-cache-entry.js";
import { UntrustedFileError, readTrustedFile } from "../../../trust/files.js";
import { quoted } from "../../../trust/text.js";
import type { RefreshTokenSpot } from "../kind.js";
import { WORKFORCE_USER_SCOPES, type WorkforceUserFile, parseWorkforceUserFile } from "./file.js";

/** The file a refresh token was read from (by path, and by the device and inode it named then), and where in it. */
export interface RefreshTokenHome {
  path: string;
  spot: RefreshTokenSpot;
  read: string | undefined;
}

/** A workforce user's own file: the refresh token at its top, the file checked as one. */
export const IN_THE_FILE: RefreshTokenSpot = {
  place: "file",
  check: (json, path) => void parseWorkforceUserFile(json, path),
};

/** The home of a refresh token just read from `path`: the file the path names now. */
export function refreshTokenHome(path: string, spot: RefreshTokenSpot): RefreshTokenHome {
  return { path, spot, read: identity(statSync(path, { bigint: true, throwIfNoEntry: false })) };
}

function identity(stats: BigIntStats | undefined): string | undefined {
  return stats && `${stats.dev}:${stats.ino}`;
}

/** `code` of the warning default() emits when a rotated refresh token could not be written back. */
export const REFRESH_TOKEN_WARNING_CODE = "CRED_AUTH_REFRESH_TOKEN";

/** A workforce user's new token, and the refresh token STS rotated in (kept in its file, or why not). */
export interface WorkforceUserToken {
  token: CachedAccessToken;
  /** The new refresh token, when STS rotated it: the cache key of the next run is made from it. */
  rotated?: string;
  /** Why the rotated refresh token could not be written back to its file (a warning to show). */
  warning?: string;
}

/** STS's /v1/oauthtoken at the judged `tokenUrl`; a rotated refresh token is written back to `home`. */
export async function workforceUserToken(
  file: WorkforceUserFile,
  tokenUrl: string,
  home: RefreshTokenHome,
): Promise<WorkforceUserToken> {
  const { clientId, clientSecret, refreshToken } = file;
  const refreshed = await refreshAtSts({ tokenUrl, clientId, clientSecret, refreshToken });
  const token = bearerEntry(refreshed, WORKFORCE_USER_SCOPES);
  const rotated = refreshed.rotatedRefreshToken;
  if (rotated === undefined) return { token };
  const warning = await keepRotatedRefreshToken(home, { sent: refreshToken, rotated });
  return warning === undefined ? { token, rotated } : { token, warning };
}

/** Writes `tokens.rotated` in place of `tokens.sent` at `home` (another token there by now stays); the problem, if any. */
export async function keepRotatedRefreshToken(
  home: RefreshTokenHome,
  tokens: { sent: string; rotated: string },
): Promise<string | undefined> {
  try {
    // The file a link names, once: read and written there, so the writer judges the directory the
    // token lands in, not the link's (a link re-pointed into a directory anyone may write).
    const file = realpathSync(home.path);
    if (home.read === undefined || identity(statSync(file, { bigint: true })) !== home.read)
      throw new UntrustedFileError(file, {
        problem: "is not the file the refresh token was read from",
        foreign: false,
      });
    // The user's own private file only: a file someone else owns or may write is not ours to change.
    const bytes = await readTrustedFile(file, { maxBytes: MAX_CREDENTIALS_FILE_BYTES, keeper: "cred-auth" });
    const text = withRotatedRefreshToken(bytes.toString("utf8"), home.spot, tokens, home.path);
    if (text !== undefined) await writeCredentialsText(file, text);
    home.read = identity(statSync(file, { bigint: true })); // the next rotation's file
    return undefined;
  } catch (error) {
    return `Google's Security Token Service replaced the refresh token of ${quoted(home.path)} and the old one no longer works, but cred-auth did not write the new one there: ${why(error)}. This run has its token; the next one fails until you sign in again (gcloud auth application-default login --login-config=FILE). Keep the file yours and private (chmod 600) so cred-auth can update it.`;
  }
}

function why(error: unknown): string {
  if (error instanceof UntrustedFileError) return `the file ${error.problem}`;
  if (error instanceof CredAuthError) return error.message.replace(/\.$/, "");
  return `it could not be read (${codeOf(error) ?? "error"})`;
}

/**
 * The text of the file `text` (read from `path`) with the refresh token `sent` at `spot` replaced by
 * `rotated`, the file checked; undefined when someone wrote another token since (theirs stays).
 *
 * @throws CredCredentialsError (`ERR_FILE_INVALID`) when the file is not such a file any more.
 */
export function withRotatedRefreshToken(
  text: string,
  spot: RefreshTokenSpot,
  tokens: { sent: string; rotated: string },
  path: string,
): string | undefined {
  const { invalid } = fieldsOf(path, "");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalid("is no longer JSON");
  }
  if (!isObject(json)) throw invalid("is no longer a JSON object");
  const holder = spot.place === "file" ? json : json.source_credentials;
  if (!isObject(holder) || holder.type !== "external_account_authorized_user")
    throw invalid("no longer holds external_account_authorized_user credentials");
  if (holder.refresh_token !== tokens.sent) return undefined;
  holder.refresh_token = tokens.rotated;
  spot.check(json, path);
  return `${JSON.stringify(json, null, 2)}\n`;
}
