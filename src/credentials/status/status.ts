// `cred-auth status [FILE]`: which credentials default() would use, what and whose they are, the cached
// token's time left, read from files; with `check`, a new token proves they work, within one deadline.
import { readCachedToken, tokenCacheDir } from "../../token-cache/index.js";
import { secretsWhere } from "../../stores/index.js";
import { metadataAccountCheck } from "../../hosted/metadata-identity.js";
import { CredAuthError, CredConnectionError, ERROR_CODES } from "../../errors.js";
import { ENV } from "../../shared/constants.js";
import { trustedUniverse } from "../../trust/urls.js";
import { accessTokenForFile } from "../tokens/file-token.js";
import type { CachedTokenState, KindStatus } from "../kinds/kind.js";
import { type AdcFile, kindOf, readAdcFile } from "../kinds/table.js";
import { type LocatedCredentials, locateCredentials } from "../search/locate.js";

export interface StatusOptions {
  /** Ask for a new token to prove the credentials work, all requests within {@link CHECK_TIMEOUT_MS}. Default false. */
  check?: boolean;
  /** Where the variables of the search, the emulator and the cache's place are read. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

export type { CachedTokenState };

/** What `check` found: a token (its expiry), or the error that stopped it. */
export type CheckResult =
  | { ok: true; expiryDate: number; account?: string }
  | { ok: false; code: string; message: string };

export interface CredentialsStatus extends LocatedCredentials, Partial<KindStatus> {
  /** The file's `type`, `metadata-server`, or undefined when nothing was found or the file is unusable. */
  type?: AdcFile["type"] | "metadata-server";
  /** Why the file cannot be used (its error's message and code). */
  problem?: { code: string; message: string };
  check?: CheckResult;
  /** Where a user file's refresh token is kept, when not simply in the file (stores/index.ts). */
  secrets?: string;
}

/** How long the whole check may take, however many requests it makes. */
export const CHECK_TIMEOUT_MS = 5_000;

/** The status of `path`, or of the credentials default() would use; no network when `check` is false. */
export async function credentialsStatus(
  path: string | undefined,
  options: StatusOptions = {},
): Promise<CredentialsStatus> {
  const env = options.env ?? process.env;
  const check = options.check === true;
  const located: LocatedCredentials =
    path === undefined
      ? await locateCredentials(env)
      : { source: { kind: "file", path, foundBy: "argument" }, reasons: ["named on the command line"] };
  const { source } = located;
  if (source.kind === "none") return located;
  if (source.kind === "metadata") {
    const status: CredentialsStatus = {
      ...located,
      type: "metadata-server",
      accessToken: { state: "unknown", why: "the metadata server keeps its own tokens" },
    };
    return check ? { ...status, check: await checked(() => metadataAccountCheck(env)) } : status;
  }
  let status: CredentialsStatus;
  try {
    const file = readAdcFile(source.path, { privateOnly: source.privateOnly === true });
    const secrets = secretsWhere(file, source.foundBy === "credentials-cache", env);
    status = { ...located, ...describe(file, source.path, env), ...(secrets ? { secrets } : {}) };
  } catch (error) {
    if (!(error instanceof CredAuthError)) throw error;
    return { ...located, problem: { code: error.code, message: error.message } };
  }
  if (!check) return status;
  // A new token, not the cached one: a revoked grant's cached access token is revoked too.
  const bounded = { [ENV.tokenTimeout]: String(CHECK_TIMEOUT_MS), ...env };
  const token = () =>
    accessTokenForFile(source.path, { env: bounded, fresh: true, privateOnly: source.privateOnly === true });
  return { ...status, check: await checked(async () => ({ expiryDate: (await token()).expiryDate })) };
}

/** What the file's kind says of it, and the cached token under print-token's key for its default scopes. */
function describe(
  file: AdcFile,
  path: string,
  env: NodeJS.ProcessEnv,
): Omit<CredentialsStatus, keyof LocatedCredentials> {
  const cached = (key: string): CachedTokenState => {
    const token = readCachedToken(key, { dir: tokenCacheDir(env) });
    return token ? { state: "cached", expiryDate: token.expiry_date } : { state: "none" };
  };
  return { type: file.type, ...kindOf(file).describe(file, { path, universe: trustedUniverse(env), cached }) };
}

/** `check()`'s answer, or its error; a check that outlasts {@link CHECK_TIMEOUT_MS} fails, its requests left behind. */
async function checked(check: () => Promise<{ expiryDate: number; account?: string }>): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(checkTimedOut()), CHECK_TIMEOUT_MS).unref();
  });
  try {
    return { ok: true, ...(await Promise.race([check(), deadline])) };
  } catch (error) {
    if (!(error instanceof CredAuthError)) throw error;
    return { ok: false, code: error.code, message: error.message };
  } finally {
    clearTimeout(timer);
  }
}

function checkTimedOut(): CredConnectionError {
  return new CredConnectionError(
    `No answer within ${CHECK_TIMEOUT_MS / 1000} s (every request of the check together); the server may be slow or out of reach, try again later.`,
    { code: ERROR_CODES.TIMEOUT },
  );
}
