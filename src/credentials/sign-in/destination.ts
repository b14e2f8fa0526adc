// Where credentials may be saved, asked by the command line before it opens a browser (nobody
// wants to approve a sign-in twice); saveUserCredentials asks the same before its own sign-in.
// A sign-in replaces only user credentials: a key, a federation file or a client-secret file at
// the destination is someone's only copy, so it stays unless the caller says to replace it.
import { CredCredentialsError, ERROR_CODES } from "../../errors.js";
import { MAX_CREDENTIALS_FILE_BYTES } from "../../formats/credentials-file.js";
import { checkWritableDestination } from "../../stores/credentials-file.js";
import { readTrustedFileSync } from "../../trust/files.js";
import { quoted } from "../../trust/text.js";
import { kindNamed } from "../kinds/table.js";

/** How {@link checkSaveDestination} may be told to replace a file, in the caller's words. */
export interface SaveDestinationOptions {
  /** Replace whatever file is there (`--force`, `overwrite: true`). */
  overwrite?: boolean;
  /** How the caller says so, for the refusal: "--force" on the command line, else the option. */
  overwriteHint?: string;
}

/**
 * Throws a coded `CredCredentialsError` when credentials could not, or should not, be saved at
 * `path`: `ERR_FILE_UNWRITABLE` for a directory or special file there, another user's link or
 * directory, a directory anyone may write, or one where nothing can be created (read-only, /proc);
 * `ERR_DESTINATION_TAKEN` for a file that is neither empty nor user credentials (unless `overwrite`).
 */
export function checkSaveDestination(path: string, options: SaveDestinationOptions = {}): void {
  checkWritableDestination(path);
  if (options.overwrite) return;
  const held = heldAt(path);
  if (held === undefined) return;
  const how = options.overwriteHint ?? "the option overwrite: true";
  throw new CredCredentialsError(
    `Cannot save credentials to ${quoted(path)}: it holds ${held}, which the sign-in would replace; give another path, or ${how} to replace it.`,
    { code: ERROR_CODES.DESTINATION_TAKEN },
  );
}

/**
 * What the file at `path` holds, in words, when a sign-in must not replace it; undefined for no
 * file, an empty one, or user credentials (`authorized_user`, or login's impersonated file whose
 * source is one): a sign-in's own earlier output is replaced as before.
 */
function heldAt(path: string): string | undefined {
  let text: string;
  try {
    text = readTrustedFileSync(path, { maxBytes: MAX_CREDENTIALS_FILE_BYTES, keeper: "anyone" }).toString("utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "EFBIG") return "a file larger than any credentials file";
    return `a file that cannot be read to tell what it is (${typeof code === "string" ? code : "unreadable"})`;
  }
  if (text.trim() === "") return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return "a file that is not JSON, so not credentials";
  }
  return describe(json);
}

/** What a JSON file holds, or undefined when it is user credentials. */
function describe(json: unknown): string | undefined {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return "JSON that is not credentials";
  const file = json as Record<string, unknown>;
  const kind = kindNamed(file.type);
  if (kind !== undefined) return kind.notReplaceable(file);
  if (typeof file.installed === "object" || typeof file.web === "object") return "an OAuth client-secret file";
  return typeof file.type === "string"
    ? `credentials of another type (${quoted(file.type)})`
    : "JSON that is not credentials";
}
