// `cred-auth status [FILE]`: which credentials default() would use (or FILE), what they are and
// whose, and how long the cached access token has left, read from the files; then one bounded
// token request proves they still work (a revoked sign-in looks fine on disk), unless `check` is
// false. The account comes from the file (cred-auth and gcloud record it
// for user credentials; keys and impersonated files name theirs); where a file names none, the
// status says so rather than asking.
import { readCachedToken, tokenCacheDir } from "../access-token-cache/index.js";
import { type AdcFile, readAdcFileSync } from "../formats/adc-file.js";
import { externalCacheKey, impersonatedCacheKey, tokenCacheKey } from "../formats/cache-keys.js";
import { externalAuthorizedUserTokenUrl, impersonatedDestinations } from "../formats/destinations.js";
import { metadataAccountCheck } from "../hosted/metadata-identity.js";
import { chooseTokenUrl } from "../token-services/token-requests.js";
import { CredAuthError } from "../errors.js";
import { CLOUD_PLATFORM_SCOPE, ENV } from "../shared/constants.js";
import { type Universe, trustedUniverse } from "../trust/urls.js";
import { accessTokenForFile } from "./file-token.js";
import { type CredentialsSource, type LocatedCredentials, locateCredentials } from "./locate.js";

/** Options of {@link credentialsStatus}. */
export interface StatusOptions {
  /**
   * Ask the server for a new token (one request, bounded by {@link CHECK_TIMEOUT_MS}) to prove the
   * credentials work; also names a metadata server's account. Default true; false reads files only.
   */
  check?: boolean;
  /** Where the variables of the search, the emulator and the cache's place are read. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** The access token the cache holds for these credentials (under print-token's key for their default scopes). */
export type CachedTokenState =
  | { state: "cached"; expiryDate: number }
  | { state: "none" }
  /** Not known without asking: a federated token's key needs the subject token, a metadata server keeps its own. */
  | { state: "unknown"; why: string };

/** What `check` found: a token (its expiry), or the error that stopped it. */
export type CheckResult =
  | { ok: true; expiryDate: number; account?: string }
  | { ok: false; code: string; message: string };

/** What {@link credentialsStatus} says. */
export interface CredentialsStatus extends LocatedCredentials {
  /** The file's `type`, `metadata-server`, or undefined when nothing was found or the file is unusable. */
  type?: AdcFile["type"] | "metadata-server";
  /** Whose credentials: the signed-in user, the key's or the metadata server's account; undefined: the file names none. */
  account?: string;
  /** The service account whose tokens the credentials get (impersonation). */
  actsAs?: string;
  /** The delegation chain of an impersonated file. */
  delegates?: readonly string[];
  /** The scopes the tokens carry: granted at sign-in (user), or asked by default; undefined: not recorded. */
  scopes?: readonly string[];
  /** The universe the file is for. */
  universe?: string;
  quotaProject?: string;
  /** A key's project. */
  projectId?: string;
  /** A federation file's pool or provider. */
  audience?: string;
  accessToken?: CachedTokenState;
  /** Why the file cannot be used (its error's message and code). */
  problem?: { code: string; message: string };
  check?: CheckResult;
}

/** How long the check's token request may take unless CRED_AUTH_TOKEN_TIMEOUT_MS says otherwise. */
export const CHECK_TIMEOUT_MS = 5_000;

/** The status of `path`, or of the credentials default() would use; no network when `check` is false. */
export async function credentialsStatus(
  path: string | undefined,
  options: StatusOptions = {},
): Promise<CredentialsStatus> {
  const env = options.env ?? process.env;
  const check = options.check !== false;
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
    status = { ...located, ...describe(readAdcFileSync(source.path), source, trustedUniverse(env), env) };
  } catch (error) {
    if (!(error instanceof CredAuthError)) throw error;
    return { ...located, problem: { code: error.code, message: error.message } };
  }
  if (!check) return status;
  // A new token, not the cached one: a revoked grant's cached access token is revoked too.
  const bounded = { [ENV.tokenTimeout]: String(CHECK_TIMEOUT_MS), ...env };
  const token = () => accessTokenForFile(source.path, { env: bounded, fresh: true });
  return { ...status, check: await checked(async () => ({ expiryDate: (await token()).expiryDate })) };
}

/** What the file says, and the cached token under print-token's key for its default scopes. */
function describe(
  file: AdcFile,
  source: Extract<CredentialsSource, { kind: "file" }>,
  universe: Universe,
  env: NodeJS.ProcessEnv,
): Omit<CredentialsStatus, keyof LocatedCredentials> {
  const cached = (key: string): CachedTokenState => {
    const token = readCachedToken(key, { dir: tokenCacheDir(env) });
    return token ? { state: "cached", expiryDate: token.expiry_date } : { state: "none" };
  };
  const { path } = source;
  if (file.type === "authorized_user")
    return {
      type: file.type,
      ...optional({ account: file.account, scopes: file.scopes, quotaProject: file.quotaProjectId }),
      universe: file.universeDomain ?? universe.domain,
      accessToken: cached(tokenCacheKey(file, file.scopes ?? [], chooseTokenUrl(file, universe, path))),
    };
  if (file.type === "service_account")
    return {
      type: file.type,
      account: file.clientEmail,
      scopes: [CLOUD_PLATFORM_SCOPE],
      projectId: file.projectId,
      ...optional({ quotaProject: file.quotaProjectId }),
      universe: file.universeDomain ?? universe.domain,
      accessToken: cached(tokenCacheKey(file, [CLOUD_PLATFORM_SCOPE], chooseTokenUrl(file, universe, path))),
    };
  if (file.type === "impersonated_service_account") {
    const scopes = file.scopes ?? [CLOUD_PLATFORM_SCOPE];
    const { iamUrl } = impersonatedDestinations(file, universe, path);
    const { source } = file;
    const account =
      source.type === "authorized_user"
        ? source.account
        : source.type === "service_account"
          ? source.clientEmail
          : undefined; // a workforce user's file names no account
    return {
      type: file.type,
      ...optional({ account, quotaProject: file.quotaProjectId }),
      actsAs: file.target,
      delegates: file.delegates,
      scopes,
      universe: file.universeDomain,
      accessToken: cached(impersonatedCacheKey(file, scopes, iamUrl)),
    };
  }
  if (file.type === "external_account_authorized_user") {
    const tokenUrl = externalAuthorizedUserTokenUrl(file, universe, path);
    return {
      type: file.type,
      audience: file.audience,
      scopes: [CLOUD_PLATFORM_SCOPE],
      ...optional({ quotaProject: file.quotaProjectId }),
      universe: file.universeDomain,
      accessToken: cached(externalCacheKey(file, [CLOUD_PLATFORM_SCOPE], { tokenUrl })),
    };
  }
  return {
    type: file.type,
    audience: file.audience,
    ...optional({ actsAs: file.impersonationTarget, quotaProject: file.quotaProjectId }),
    scopes: [CLOUD_PLATFORM_SCOPE],
    universe: file.universeDomain,
    accessToken: {
      state: "unknown",
      why: "its key holds the subject token, read only when a token is asked (--check)",
    },
  };
}

/** The fields of `values` that are set. */
function optional<T extends Record<string, unknown>>(values: T): Partial<{ [K in keyof T]: Exclude<T[K], undefined> }> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<{
    [K in keyof T]: Exclude<T[K], undefined>;
  }>;
}

async function checked(check: () => Promise<{ expiryDate: number; account?: string }>): Promise<CheckResult> {
  try {
    return { ok: true, ...(await check()) };
  } catch (error) {
    if (!(error instanceof CredAuthError)) throw error;
    return { ok: false, code: error.code, message: error.message };
  }
}
