// Heavy dependencies, loaded the first time they are needed (importing cred-auth loads none).
type GoogleAuthLibrary = typeof import("google-auth-library");

let googleAuth: Promise<GoogleAuthLibrary> | undefined;

/** google-auth-library (the user's peer copy). */
export function loadGoogleAuth(): Promise<GoogleAuthLibrary> {
  return (googleAuth ??= import("google-auth-library"));
}
