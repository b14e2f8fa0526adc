// Where credentials may be saved, asked by the command line before it opens a browser (nobody
// wants to approve a sign-in twice); saveUserCredentials asks the same before its own sign-in.
import { checkWritableDestination } from "../formats/credentials-file.js";

/**
 * Throws a coded `CredCredentialsError` (`ERR_FILE_UNWRITABLE`) when credentials could not be
 * saved at `path`: a directory or special file there, another user's link or directory, a
 * directory anyone may write, or one where nothing can be created (read-only, /proc).
 */
export function checkSaveDestination(path: string): void {
  checkWritableDestination(path);
}
