// Heavy dependencies, loaded the first time they are needed (importing cred-auth loads none).
type GoogleAuthLibrary = typeof import("google-auth-library");

let googleAuth: Promise<GoogleAuthLibrary> | undefined;

/** google-auth-library (the user's peer copy). */
export function loadGoogleAuth(): Promise<GoogleAuthLibrary> {
  // require(), not import(): google-auth-library is CommonJS, and import() would put it through
  // the ESM loader's CommonJS translator, a few milliseconds more on every fresh process that
  // needs it (bench/README.md, targets 3 and 4). Same module instance either way.
  googleAuth ??= new Promise((resolve) => resolve(require("google-auth-library") as GoogleAuthLibrary));
  return googleAuth;
}
