import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { canonicalScope } from "../oauth/scopes.js";
import { own } from "../trust/own.js";
// The scopes a sign-in asks for, in the words a person reads on the consent page.

const GOOGLE_SCOPE_PREFIX = "https://www.googleapis.com/auth/";

const SCOPE_WORDS: Readonly<Record<string, string>> = {
  "cloud-platform": "See, edit, configure and delete your Google Cloud data",
  "cloud-platform.read-only": "View your data across Google Cloud services",
  bigquery: "View and manage your data in Google BigQuery",
  "bigquery.readonly": "View your data in Google BigQuery",
  "devstorage.full_control": "Manage your data and permissions in Cloud Storage",
  "devstorage.read_write": "Manage your data in Cloud Storage",
  "devstorage.read_only": "View your data in Cloud Storage",
  drive: "See, edit, create and delete all of your Google Drive files",
  "drive.readonly": "See and download all your Google Drive files",
  spreadsheets: "See, edit, create and delete your Google Sheets spreadsheets",
  "spreadsheets.readonly": "See your Google Sheets spreadsheets",
  "userinfo.email": "See your primary email address",
  "userinfo.profile": "See your personal info",
  openid: "Associate you with your personal info",
};

/** One line in words per scope; an unknown scope is shown as its short name. */
export function describeScopes(scopes: readonly string[]): string[] {
  return [...new Set(scopes.map(describeScope))];
}

function describeScope(scope: string): string {
  const full = canonicalScope(scope); // `email` and `profile` as Google grants them
  const short = full.startsWith(GOOGLE_SCOPE_PREFIX) ? full.slice(GOOGLE_SCOPE_PREFIX.length) : full;
  return own(SCOPE_WORDS, short) ?? short;
}

/** The end of input where a code or address was asked for: Ctrl+D at a terminal, or a pipe's end. */
export function inputClosedError(atTerminal: boolean): CredCredentialsError {
  return new CredCredentialsError(
    atTerminal
      ? "The input ended (Ctrl+D) before a code was pasted, so the sign-in stopped and nothing was saved; sign in again."
      : "No authorization code was entered: the input is closed (end of file); run again where you can paste the code.",
    { code: ERROR_CODES.INVALID_CODE },
  );
}

/** The product shown at the top of every sign-in. */
export const PRODUCT_NAME = "cred-auth";

/** The stable `ERR_...` code of a cred-auth error (any error carrying one), else undefined. */
export function errorCodeOf(error: Error): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && /^ERR_[A-Z_]{1,60}$/.test(code) ? code : undefined;
}

/** What went wrong, in words: the error's own one-line message. */
export function describeError(error: Error): string {
  const message = error.message.split("\n")[0]?.trim();
  if (error.name === "CredCancelledError") {
    // Why it was cancelled (Ctrl+C, an interrupt, a newer sign-in), and always what it means.
    const why = message || "The sign-in was cancelled.";
    return /Nothing was saved/.test(why) ? why : `${why} Nothing was saved.`;
  }
  return message ? message : "The sign-in failed.";
}
