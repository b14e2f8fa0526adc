import type { JWT } from "google-auth-library";

/** Loads service account credentials from a JSON key file. */
export async function loadServiceAccountCredentials(path: string, scopes?: readonly string[]): Promise<JWT> {
  void path, scopes;
  throw new Error("not implemented yet");
}
