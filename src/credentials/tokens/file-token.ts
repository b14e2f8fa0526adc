// An access token for any ADC file through the token cache shared by processes: print-token's fast path.
// A cached token costs reading the file and one entry, no package (hot-path test); a miss loads the kind's tokens.ts.
import { tokenCacheDir } from "../../token-cache/index.js";
import { scopeCheckNotes } from "../../oauth/known-scopes.js";
import { assertValidScopes } from "../../oauth/scopes.js";
import { checkedToken } from "../../trust/text.js";
import { trustedUniverse } from "../../trust/urls.js";
import type { TokenRequest } from "../kinds/kind.js";
import { type AdcFile, kindOf, readAdcFile } from "../kinds/table.js";

export interface FileTokenOptions {
  /** The token's scopes (default cloud-platform; an impersonated file's own first); user credentials keep their granted ones. */
  scopes?: readonly string[];
  /** Ignore the token cache and get a new token. */
  fresh?: boolean;
  /** Where `CRED_AUTH_EMULATOR_HOST`, `GOOGLE_CLOUD_UNIVERSE_DOMAIN` and the cache's place are read. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** The universe whose services may receive the file's secrets (default: `GOOGLE_CLOUD_UNIVERSE_DOMAIN`, else googleapis.com). */
  universeDomain?: string;
  /** Read the file only when it is the user's own and private (one found without a path). */
  privateOnly?: boolean;
}

export interface FileToken {
  accessToken: string;
  /** When it expires, in milliseconds since the epoch. */
  expiryDate: number;
  tokenType: "Bearer";
  credentialsType: AdcFile["type"];
  /** True when scopes were asked for user credentials, which keep the scopes granted at sign-in. */
  scopesIgnored: boolean;
  /** What went wrong without costing the token, one line each, never a secret (a rotated refresh token not written back). */
  warnings: string[];
}

/** A cached (more than 5 minutes left) or new access token for the ADC file at `path`, of any type, its URLs judged. */
export async function accessTokenForFile(path: string, options: FileTokenOptions = {}): Promise<FileToken> {
  const { file, kind, common } = fileRequest(path, options);
  const requested = options.scopes && options.scopes.length > 0 ? [...options.scopes] : undefined;
  // A misspelt scope is refused before any request, as a sign-in's is (Google would answer invalid_scope).
  if (requested) assertValidScopes(requested);
  const warnings = requested ? scopeCheckNotes(requested, common.env) : [];
  const request: TokenRequest = { ...common, requested, warnings };
  const token = await kind.accessToken(file, request);
  return {
    accessToken: checkedToken(token.access_token, "an access token"),
    expiryDate: token.expiry_date,
    tokenType: "Bearer",
    credentialsType: file.type,
    scopesIgnored: requested !== undefined && kind.keepsGrantedScopes,
    warnings: request.warnings,
  };
}

/** The file at `path` (its URLs judged in the universe first), its kind, and what each of its token requests carries. */
export function fileRequest(path: string, options: Omit<FileTokenOptions, "scopes">) {
  const env = options.env ?? process.env;
  const universe = trustedUniverse(env, options.universeDomain);
  const file = readAdcFile(path, { privateOnly: options.privateOnly === true });
  const common = { path, env, universe, cache: { fresh: options.fresh === true, dir: tokenCacheDir(env) } };
  return { file, kind: kindOf(file), common };
}

/** What a credentials file says about whom it signs in as (for the command line's messages). */
export interface CredentialsFileIdentity {
  credentialsType: AdcFile["type"];
  /** The signed-in account's e-mail, when the file records it. */
  account?: string;
  /** The service account an `impersonated_service_account` file's tokens act as. */
  actsAs?: string;
}

/** Reads `path` (any ADC type, validated) and says whose credentials it holds. */
export function describeCredentialsFile(path: string): CredentialsFileIdentity {
  const file = readAdcFile(path);
  const kind = kindOf(file);
  const account = kind.signedInAccount(file);
  const actsAs = kind.actsAs(file);
  return { credentialsType: file.type, ...(account ? { account } : {}), ...(actsAs ? { actsAs } : {}) };
}
