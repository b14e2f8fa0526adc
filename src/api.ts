/**
 * cred-auth: get, cache, save and load OAuth 2.0 credentials for Google Cloud APIs from notebooks, terminals, scripts.
 *
 * ```ts
 * import * as credAuth from "cred-auth";
 * const [credentials, projectId] = await credAuth.default(["https://www.googleapis.com/auth/cloud-platform"]);
 * ```
 *
 * @packageDocumentation
 */
// The public API: its declarations become dist/index.d.ts; index.ts exports the same values at run time.
export { defaultCredentials as default, defaultCredentials } from "./credentials/search/default.js";
export { getUserCredentials, saveUserCredentials } from "./credentials/sign-in/user.js";
export { completeSignIn } from "./credentials/sign-in/complete.js";
export { SignInPendingError, cancelSignIn } from "./oauth/pending.js";
export type { PendingSignIn, SignInResult } from "./oauth/flow.js";
export { loadUserCredentials } from "./credentials/kinds/user/client.js";
export { loadServiceAccountCredentials } from "./credentials/kinds/key/client.js";
export { fetchIdToken, getIdTokenClient } from "./credentials/id-token.js";
export type { IdTokenOptions } from "./credentials/id-token.js";
export * as cache from "./credentials-cache/index.js";
export * as exceptions from "./errors.js";
export {
  CredAuthError,
  CredCredentialsError,
  CredConnectionError,
  CredCancelledError,
  CredentialsFileError,
  ERROR_CODES,
} from "./errors.js";
export type { CredErrorCode, CredErrorOptions, CredentialsFileProblem } from "./errors.js";
export type { CredentialsCache, CredentialsCacheOptions } from "./credentials-cache/index.js";
export type { LoadCredentialsOptions } from "./credentials/kinds/user/client.js";
export type { ServiceAccountCredentials } from "./credentials/kinds/key/client.js";
export type { DefaultOptions, UserCredentialsOptions, SaveUserCredentialsOptions, PresenterChoice } from "./options.js";
export type { Presenter, SignInEvent } from "./oauth/events.js";
export type { HostedEnvironment, HostedCredentials } from "./hosted/types.js";
export { registerHostedEnvironment } from "./hosted/registry.js";
export { VERSION, VERSION as __version__ } from "./version.js";
