import type { UserRefreshClient } from "google-auth-library";

/** Loads user credentials from an `authorized_user` JSON file. */
export async function loadUserCredentials(path: string): Promise<UserRefreshClient> {
  void path;
  throw new Error("not implemented yet");
}
