// The settings file: a JSON object of at most 64 KiB read under the file-trust rule (another user's file would
// choose the OAuth client and the scopes); settings/read.ts checks each value.
import { isObject } from "../formats/fields.js";
import { UntrustedFileError, readTrustedFileSync } from "../trust/files.js";

/** Settings files are a few hundred bytes; anything much larger is not one. */
export const MAX_SETTINGS_BYTES = 64 * 1024;

/** What reading the settings file found: its JSON object, nothing, or why it is not used. */
export type SettingsFileRead =
  | { kind: "object"; json: Record<string, unknown> }
  | { kind: "absent" }
  /** Why the file is ignored, in words that follow "the settings file PATH". */
  | { kind: "ignored"; problem: string };

/** The settings file at `path`, judged and parsed; never throws. */
export function readSettingsFile(path: string): SettingsFileRead {
  let text: string;
  try {
    text = readTrustedFileSync(path, { maxBytes: MAX_SETTINGS_BYTES, keeper: "cred-auth" }).toString("utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "absent" };
    if (error instanceof UntrustedFileError)
      return { kind: "ignored", problem: `${error.problem}, who would choose your OAuth client; it is not used` };
    if (code === "ENOTFILE") return { kind: "ignored", problem: "is not a regular file; settings are ignored" };
    return { kind: "ignored", problem: `cannot be read (${code ?? "error"}); settings are ignored` };
  }
  try {
    const json: unknown = JSON.parse(text);
    if (isObject(json)) return { kind: "object", json };
  } catch {
    // said below
  }
  return {
    kind: "ignored",
    problem: "is not a JSON object and is ignored; fix or remove it (cred-auth config set rewrites it)",
  };
}
