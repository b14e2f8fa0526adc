// Where credentials may be saved, asked before a browser opens (nobody approves a sign-in twice). A
// sign-in replaces only user credentials: a key or a federation file there may be someone's only copy.
import { codeOf } from "../../util/thrown.js";
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

/** Throws when credentials could not (ERR_FILE_UNWRITABLE) or should not (ERR_DESTINATION_TAKEN) be saved at `path`. */
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

/** What the file at `path` holds, in words, when a sign-in must not replace it; undefined for none, empty, or a sign-in's. */
function heldAt(path: string): string | undefined {
  let text: string;
  try {
    text = readTrustedFileSync(path, { maxBytes: MAX_CREDENTIALS_FILE_BYTES, keeper: "anyone" }).toString("utf8");
  } catch (error) {
    const code = codeOf(error);
    if (code === "ENOENT") return undefined;
    if (code === "EFBIG") return "a file larger than any credentials file";
    return `a file that cannot be read to tell what it is (${code ?? "unreadable"})`;
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
