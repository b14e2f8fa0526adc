// The file store: the cache file is a whole `authorized_user` file, secrets included, as gcloud and the
// Python original keep it (written atomically, 0600 in a 0700 directory, by ./credentials-file.ts).
import { unlinkSync } from "node:fs";
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { parseUserBytes } from "../credentials/kinds/file.js";
import { quoted } from "../trust/text.js";
import type { StoredCredentials } from "./secret-store.js";

/** The cache file's credentials from its bytes (a whole `authorized_user` file), or a coded error. */
export function parseCacheBytes(bytes: Buffer, path: string): StoredCredentials {
  const { clientSecret, refreshToken, ...fields } = parseUserBytes(bytes, path);
  return { fields, secrets: async () => ({ clientSecret, refreshToken }) };
}

/** Removes the file at `path`; false when there was none. */
export function removeCacheFile(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return false;
    throw new CredCredentialsError(
      `The credentials cache file ${quoted(path)} could not be removed (${typeof code === "string" ? code : "unexpected error"}); delete it yourself.`,
      { code: ERROR_CODES.FILE_UNWRITABLE, cause: error },
    );
  }
}
