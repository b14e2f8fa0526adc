import type { UserRefreshClient } from "google-auth-library";
import type { SaveUserCredentialsOptions, UserCredentialsOptions } from "../options.js";

/** User credentials from the cache, or through a sign-in (SPEC 3 rule 2). */
export async function getUserCredentials(scopes: readonly string[], options: UserCredentialsOptions = {}): Promise<UserRefreshClient> {
  void scopes, options;
  throw new Error("not implemented yet");
}

/** Runs a sign-in and writes the credentials to `path` as an ADC file (SPEC 3 rule 3). */
export async function saveUserCredentials(scopes: readonly string[], path: string, options: SaveUserCredentialsOptions = {}): Promise<void> {
  void scopes, path, options;
  throw new Error("not implemented yet");
}
