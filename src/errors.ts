/**
 * The errors this package throws: a message saying what went wrong and what to do (never a secret), and a
 * stable {@link CredAuthError.code} to branch on.
 * @packageDocumentation
 */
import { debugEnabled } from "./shared/constants.js";

/** The stable codes of cred-auth's errors (`error.code`). Branch on these, never on message text (docs/troubleshooting.md). */
export const ERROR_CODES = {
  /** A credentials error with no more specific code. */
  CREDENTIALS: "ERR_CREDENTIALS",
  /** A connection error with no more specific code. */
  CONNECTION: "ERR_CONNECTION",
  /** The user or an `AbortSignal` cancelled a sign-in. */
  CANCELLED: "ERR_CANCELLED",
  /** The token server answered `invalid_grant`: a refresh token expired or was revoked, or a code was not accepted. */
  INVALID_GRANT: "ERR_INVALID_GRANT",
  /** The token server did not accept the OAuth client (`invalid_client`, `unauthorized_client`). */
  INVALID_CLIENT: "ERR_INVALID_CLIENT",
  /** The organisation requires the user to sign in again (`invalid_rapt`). */
  REAUTH_REQUIRED: "ERR_REAUTH_REQUIRED",
  /** The user denied access on the consent page (`access_denied`). */
  ACCESS_DENIED: "ERR_ACCESS_DENIED",
  /** A scope is malformed, unknown, or was not granted. */
  INVALID_SCOPE: "ERR_INVALID_SCOPE",
  /** No OAuth client id and secret were given and none is configured. */
  NO_OAUTH_CLIENT: "ERR_NO_OAUTH_CLIENT",
  /** Every loopback port of the range is busy. */
  PORTS_BUSY: "ERR_PORTS_BUSY",
  /** A server did not answer in time, or a sign-in was not completed in time. */
  TIMEOUT: "ERR_TIMEOUT",
  /** The credentials cache cannot be read or written. */
  CACHE_UNUSABLE: "ERR_CACHE_UNUSABLE",
  /** A credentials, key or client-secret file is missing, unreadable, unsafe or malformed. */
  FILE_INVALID: "ERR_FILE_INVALID",
  /** A copy-paste sign-in is waiting for its code (the notebook's two-cell flow). */
  SIGN_IN_PENDING: "ERR_SIGN_IN_PENDING",
  /** A sign-in answer (pasted code or redirect) belongs to another sign-in or lacks its `state`. */
  STATE_MISMATCH: "ERR_STATE_MISMATCH",
  /** No valid credentials could be found or obtained by any of `default()`'s steps. */
  NO_CREDENTIALS: "ERR_NO_CREDENTIALS",
  /** A server answered with an error (5xx, an unreadable reply) after retries. */
  SERVER_ERROR: "ERR_SERVER_ERROR",
  /** A server could not be reached. */
  UNREACHABLE: "ERR_UNREACHABLE",
  /** An option, argument or environment variable has a value that cannot be used. */
  INVALID_OPTION: "ERR_INVALID_OPTION",
  /** The command line was used wrongly (unknown option, missing argument): `cred-auth` exits with 2. */
  USAGE: "ERR_USAGE",
  /** A pasted or entered authorization code is empty, too long or not a code. */
  INVALID_CODE: "ERR_INVALID_CODE",
  /** No copy-paste sign-in is waiting for a code in this process. */
  NO_PENDING_SIGN_IN: "ERR_NO_PENDING_SIGN_IN",
  /** The sign-in was already completed, or is used in a way its flow does not allow. */
  SIGN_IN_ENDED: "ERR_SIGN_IN_ENDED",
  /** The chosen presenter cannot run here (the notebook face outside a tslab or Deno kernel). */
  PRESENTER_UNAVAILABLE: "ERR_PRESENTER_UNAVAILABLE",
  /** A hosted platform was detected but gives no credentials (not authorized yet, nothing attached, disabled). */
  HOSTED_UNAVAILABLE: "ERR_HOSTED_UNAVAILABLE",
  /** A module needed on this platform is not installed. */
  MODULE_MISSING: "ERR_MODULE_MISSING",
  /** Credentials could not be written where asked (the path is a directory, not writable, ...). */
  FILE_UNWRITABLE: "ERR_FILE_UNWRITABLE",
  /** The operating system's keychain holds (or was asked to hold) the cached refresh token and could not be used: absent, locked, prompting or not answering (docs/caching.md). */
  KEYCHAIN_UNAVAILABLE: "ERR_KEYCHAIN_UNAVAILABLE",
  /** These credentials cannot be saved: no refresh token, or no client id and secret. */
  NOT_SAVABLE: "ERR_NOT_SAVABLE",
  /** An external_account file's subject-token file (`credential_source.file`) is missing, unreadable or empty. */
  SUBJECT_TOKEN_UNREADABLE: "ERR_SUBJECT_TOKEN_UNREADABLE",
  /** An external_account file's subject-token URL (`credential_source.url`) could not be reached or gave no token. */
  SUBJECT_TOKEN_UNREACHABLE: "ERR_SUBJECT_TOKEN_UNREACHABLE",
  /** An AWS-sourced external_account file found no AWS region or keys: neither in the environment nor from the instance metadata service. */
  AWS_CREDENTIALS_UNAVAILABLE: "ERR_AWS_CREDENTIALS_UNAVAILABLE",
  /** Google's Security Token Service refused the exchange or refresh (`error.error`, `error.status`). */
  STS_REJECTED: "ERR_STS_REJECTED",
  /** A credentials file names a URL that would receive a secret and is not Google's service in the trusted universe (or, with the emulator, loopback). */
  UNSAFE_TOKEN_URL: "ERR_UNSAFE_TOKEN_URL",
  /** A credentials file is for another universe than the one the user trusts (`GOOGLE_CLOUD_UNIVERSE_DOMAIN`, the `universeDomain` option). */
  UNTRUSTED_UNIVERSE: "ERR_UNTRUSTED_UNIVERSE",
  /** The caller (or a delegate) lacks the Service Account Token Creator role on the account to impersonate. */
  IMPERSONATION_DENIED: "ERR_IMPERSONATION_DENIED",
  /** The service account to impersonate (or a delegate) does not exist. */
  SERVICE_ACCOUNT_NOT_FOUND: "ERR_SERVICE_ACCOUNT_NOT_FOUND",
  /** The IAM Credentials API refused to impersonate for another reason (`error.error`, `error.status`). */
  IMPERSONATION_FAILED: "ERR_IMPERSONATION_FAILED",
  /** A Google API the request needs is not enabled in the project it is billed to (Google's `SERVICE_DISABLED`). */
  API_DISABLED: "ERR_API_DISABLED",
  /** The caller may not use the project its request is billed to (Google's `USER_PROJECT_DENIED`). */
  USER_PROJECT_DENIED: "ERR_USER_PROJECT_DENIED",
  /** These credentials cannot mint ID tokens (federation without service-account impersonation, a platform that hands out access tokens only). */
  ID_TOKEN_UNSUPPORTED: "ERR_ID_TOKEN_UNSUPPORTED",
  /** The token server answered without an ID token: user credentials signed in without the `openid` scope. */
  NO_ID_TOKEN: "ERR_NO_ID_TOKEN",
  /** The token server refused the ID token's audience (`invalid_audience`: not an OAuth client of the same project). */
  INVALID_AUDIENCE: "ERR_INVALID_AUDIENCE",
  /** A token server sent an ID token whose `aud` is not the audience asked; the token was not handed out. */
  ID_TOKEN_WRONG_AUDIENCE: "ERR_ID_TOKEN_WRONG_AUDIENCE",
  /** These credentials cannot be revoked by cred-auth (a key, federation, a metadata server): nothing was removed. */
  NOT_REVOCABLE: "ERR_NOT_REVOCABLE",
  /** Google's revoke endpoint refused the token (already revoked, expired, or not one): nothing was removed. */
  REVOKE_REFUSED: "ERR_REVOKE_REFUSED",
  /** The destination of a sign-in holds something other than user credentials (a key, a federation or client-secret file): nothing replaced. */
  DESTINATION_TAKEN: "ERR_DESTINATION_TAKEN",
  /** `revoke` found the file itself and nobody said yes (no terminal to ask, no `--quiet`): nothing revoked or removed. */
  NOT_CONFIRMED: "ERR_NOT_CONFIRMED",
  /** The file changed (another file or a link swapped in) between being read and being removed: it was left in place. */
  FILE_CHANGED: "ERR_FILE_CHANGED",
  /** The `cred-auth` command was started by a Node.js older than the package needs (22). */
  NODE_TOO_OLD: "ERR_NODE_TOO_OLD",
  /** A server answered a "token" that is no token (control characters, white space, escape codes): it was not printed. */
  TOKEN_MALFORMED: "ERR_TOKEN_MALFORMED",
} as const;

/** One of {@link ERROR_CODES}' values. */
export type CredErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

/** Options accepted by every cred-auth error. */
export interface CredErrorOptions {
  /** The underlying error, kept for debugging (its message is not repeated). */
  cause?: unknown;
  /** The stable code; each class has a default. */
  code?: CredErrorCode;
  /** The OAuth `error` a server answered with, such as `invalid_grant`. */
  error?: string;
  /** The HTTP status a server answered with. */
  status?: number;
}

/** Node's (and Deno's) hook for how `console.log`, `util.inspect` and a kernel print an object. */
const INSPECT = Symbol.for("nodejs.util.inspect.custom");

/** What `util.inspect` passes a custom inspection (Node's and Deno's own `inspect`). */
type Inspect = (value: unknown, options: object) => string;

/**
 * Base class of every cred-auth error: `name` is its class's, `code` defaults to its class's.
 * An error is one line wherever it is printed, `Name [CODE]: message`; `CRED_AUTH_DEBUG=1` prints everything.
 */
export class CredAuthError extends Error {
  /** The code of this class's errors when none is given. */
  protected static readonly defaultCode: CredErrorCode = ERROR_CODES.CREDENTIALS;
  /** A stable code to branch on (see {@link ERROR_CODES}). */
  readonly code: CredErrorCode;
  /** The OAuth `error` a server answered with (`invalid_grant`, ...), when one did. Never a body. */
  declare readonly error?: string;
  /** The HTTP status a server answered with, when one did. */
  declare readonly status?: number;
  constructor(message: string, options?: CredErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    // Not enumerable, as on a built-in error: a dump of the fields shows what a program branches on.
    Object.defineProperty(this, "name", {
      value: new.target.name,
      enumerable: false,
      writable: true,
      configurable: true,
    });
    this.code = options?.code ?? new.target.defaultCode;
    if (options?.error !== undefined) this.error = options.error;
    if (options?.status !== undefined) this.status = options.status;
    // An expected state, not a crash: the frames are cred-auth's own, and say nothing to the user.
    if (!debugEnabled()) setStack(this, `${this.name} [${this.code}]: ${message}`);
  }
}

// util.inspect prints one line, or everything with CRED_AUTH_DEBUG=1; on the prototype, so the public type stays.
Object.defineProperty(CredAuthError.prototype, INSPECT, {
  value(this: CredAuthError, _depth: number, options: object, inspect?: Inspect): string {
    if (debugEnabled() && inspect) return inspect(this, { ...options, customInspect: false });
    return `${this.name} [${this.code}]: ${this.message}`;
  },
});

/** Replaces `error.stack`, as V8 keeps it: an own, writable, non-enumerable property. */
function setStack(error: Error, stack: string): void {
  Object.defineProperty(error, "stack", { value: stack, enumerable: false, writable: true, configurable: true });
}

/** Invalid, expired, revoked or unusable credentials, or a sign-in that did not complete (Python's `ValueError`). */
export class CredCredentialsError extends CredAuthError {}

/** A server could not be reached, failed or timed out, or no local port was free (Python's `RuntimeError`). */
export class CredConnectionError extends CredAuthError {
  protected static override readonly defaultCode: CredErrorCode = ERROR_CODES.CONNECTION;
}

/** The user or an `AbortSignal` cancelled a sign-in. Nothing was written. */
export class CredCancelledError extends CredAuthError {
  protected static override readonly defaultCode: CredErrorCode = ERROR_CODES.CANCELLED;
}

/** Why a credentials file could not be used: `missing` (nothing at the path) or `invalid` (anything else). */
export type CredentialsFileProblem = "missing" | "invalid";

/**
 * A credentials file that is missing, unreadable, unsafe or malformed (`ERR_FILE_INVALID`), with its `path` and
 * `problem`: a program can create a `"missing"` file, and should show an `"invalid"` one to a person.
 */
export class CredentialsFileError extends CredCredentialsError {
  protected static override readonly defaultCode: CredErrorCode = ERROR_CODES.FILE_INVALID;
  constructor(
    /** The file, as it was given. */
    readonly path: string,
    /** `missing`: nothing at the path; `invalid`: anything else (unreadable, unsafe, malformed). */
    readonly problem: CredentialsFileProblem,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
