import type { AuthClient } from "google-auth-library";
import type { DefaultOptions } from "../options.js";

/**
 * Application Default Credentials, falling back to user credentials (SPEC 3 rule 1).
 * @returns `[credentials, projectId]`
 */
export async function defaultCredentials(scopes: readonly string[], options: DefaultOptions = {}): Promise<[AuthClient, string | null]> {
  void scopes, options;
  throw new Error("not implemented yet");
}
