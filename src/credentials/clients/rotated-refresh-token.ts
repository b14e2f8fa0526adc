// A refresh token STS rotated (`external_account_authorized_user`: the one sent stops working), kept
// where it came from: written back, atomically and 0600, into the file it was read from, when that
// file is the user's own and private and its final directory (links followed) is one a secret may
// be written into (the file-trust rule); else one clear warning, and the token just obtained is
// still used. Loaded only when STS rotated a token.
import { realpath } from "node:fs/promises";
import { CredAuthError } from "../../errors.js";
import { MAX_CREDENTIALS_FILE_BYTES, writeCredentialsText } from "../../formats/credentials-file.js";
import { type RefreshTokenPlace, withRotatedRefreshToken } from "../../formats/rotated-refresh-token.js";
import { UntrustedFileError, readTrustedFile } from "../../trust/files.js";
import { quoted } from "../../trust/text.js";

/** The file a refresh token was read from, and where in it. */
export interface RefreshTokenHome {
  path: string;
  place: RefreshTokenPlace;
}

/** `code` of the warning default() emits when a rotated refresh token could not be written back. */
export const REFRESH_TOKEN_WARNING_CODE = "CRED_AUTH_REFRESH_TOKEN";

/**
 * Writes `tokens.rotated` in place of `tokens.sent` into the file at `home`. A file that holds
 * another refresh token by now is left alone (someone kept a newer one). Never throws: the problem,
 * in one line without a secret, or undefined when the token was kept (or needed no keeping).
 */
export async function keepRotatedRefreshToken(
  home: RefreshTokenHome,
  tokens: { sent: string; rotated: string },
): Promise<string | undefined> {
  try {
    // The file a link names, once: read and written there, so the writer judges the directory the
    // token lands in, not the link's (a link re-pointed into a directory anyone may write).
    const file = await realpath(home.path);
    // The user's own private file only: a file someone else owns or may write is not ours to change.
    const bytes = await readTrustedFile(file, { maxBytes: MAX_CREDENTIALS_FILE_BYTES, keeper: "cred-auth" });
    const text = withRotatedRefreshToken(bytes.toString("utf8"), home.place, tokens, home.path);
    if (text !== undefined) await writeCredentialsText(file, text);
    return undefined;
  } catch (error) {
    return `Google's Security Token Service replaced the refresh token of ${quoted(home.path)} and the old one no longer works, but cred-auth did not write the new one there: ${why(error)}. This run has its token; the next one fails until you sign in again (gcloud auth application-default login --login-config=FILE). Keep the file yours and private (chmod 600) so cred-auth can update it.`;
  }
}

function why(error: unknown): string {
  if (error instanceof UntrustedFileError) return `the file ${error.problem}`;
  if (error instanceof CredAuthError) return error.message.replace(/\.$/, "");
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return `it could not be read (${typeof code === "string" ? code : "error"})`;
}
