// `impersonated_service_account`, as `gcloud auth application-default login --impersonate-service-account`
// writes it: `source_credentials` (a user, a key, or a workforce user), the account's IAM Credentials URL,
// `delegates`. Its fields checked, its URLs judged, its token-cache key, its JSON written. Pure.
import { CredCredentialsError, ERROR_CODES } from "../../../errors.js";
import { CLOUD_PLATFORM_SCOPE } from "../../../shared/constants.js";
import { quoted } from "../../../trust/text.js";
import { type Universe, checkFileUniverse, trustedUrl } from "../../../trust/urls.js";
import { type CredentialsFile, parseGoogleCredentials } from "../file.js";
import { type AuthorizedUserFile, userCredentialsJson } from "../user/file.js";
import {
  type WorkforceUserFile,
  parseWorkforceUserFile,
  workforceUserKeyParts,
  workforceUserTokenUrl,
} from "../workforce-user/file.js";
import { sha256Hex } from "../../../util/sha256.js";
import { accessTokenKey } from "../../../formats/cache-keys.js";
import { credentialsTokenUrl, destination } from "../../../formats/destinations.js";
import { isObject } from "../../../formats/fields.js";
import type { ImpersonationChain } from "../../../formats/impersonation-chain.js";
import { IMPERSONATION_URL_SHAPE, targetOfImpersonationUrl } from "../../../formats/impersonation-url.js";

export { targetOfImpersonationUrl };

const RESOURCE_PREFIX = "projects/-/serviceAccounts/";

/** The `service_account_impersonation_url` gcloud writes for `target`. */
export function impersonationUrl(target: string, universeDomain = "googleapis.com"): string {
  return `https://iamcredentials.${universeDomain}/v1/${RESOURCE_PREFIX}${target}:generateAccessToken`;
}

/** The project of a user-managed service account (`NAME@PROJECT.iam.gserviceaccount.com`), else null. */
export function projectOfServiceAccount(email: string): string | null {
  return /^[^@]+@([a-z][a-z0-9-]{4,28}[a-z0-9])\.iam\.gserviceaccount\.com$/.exec(email)?.[1] ?? null;
}

/** The credentials an `impersonated_service_account` file asks with. */
export type ImpersonationSource = CredentialsFile | WorkforceUserFile;

export interface ImpersonatedFile extends ImpersonationChain {
  type: "impersonated_service_account";
  /** The credentials that ask for the impersonated token. */
  source: ImpersonationSource;
  /** As written in the file (judged where it is used, formats/destinations.ts). */
  impersonationUrl: string;
  quotaProjectId?: string;
  universeDomain: string;
  /** The impersonated token's scopes when the caller names none (google-auth-library reads them too). */
  scopes?: string[];
}

/** Validates an `impersonated_service_account` file's JSON; `path` names the file in errors. */
export function parseImpersonatedFile(json: Record<string, unknown>, path: string): ImpersonatedFile {
  const invalid = (what: string) =>
    new CredCredentialsError(
      `Credentials file ${quoted(path)} ${what}; write it again with \`cred-auth login FILE --impersonate-service-account SA\` or gcloud.`,
      { code: ERROR_CODES.FILE_INVALID },
    );
  const sourceJson = json.source_credentials;
  if (!isObject(sourceJson)) throw invalid('has no "source_credentials" object');
  const source: ImpersonationSource =
    sourceJson.type === "external_account_authorized_user"
      ? parseWorkforceUserFile(sourceJson, path)
      : parseGoogleCredentials(sourceJson, path);
  const url = json.service_account_impersonation_url;
  const target = typeof url === "string" ? targetOfImpersonationUrl(url) : undefined;
  if (typeof url !== "string" || target === undefined)
    throw invalid(`has no "service_account_impersonation_url" ending in ${IMPERSONATION_URL_SHAPE}`);
  const delegates = json.delegates ?? [];
  if (!Array.isArray(delegates) || delegates.some((d) => typeof d !== "string" || d.trim() === ""))
    throw invalid('has "delegates" that are not a list of service account e-mails');
  const scopes = json.scopes;
  if (scopes !== undefined && (!Array.isArray(scopes) || scopes.some((x) => typeof x !== "string" || x === "")))
    throw invalid('has "scopes" that are not a list of scope strings');
  const quota = json.quota_project_id;
  if (quota !== undefined && typeof quota !== "string") throw invalid('has a "quota_project_id" that is not a string');
  return {
    type: "impersonated_service_account",
    source,
    target,
    delegates: delegates.map((d: string) => d.trim()),
    impersonationUrl: url,
    universeDomain: universeOfSource(source),
    ...(quota ? { quotaProjectId: quota } : {}),
    ...(scopes && scopes.length > 0 ? { scopes: scopes as string[] } : {}),
  };
}

/** The universe of an impersonation's source (absent: googleapis.com). */
function universeOfSource(source: ImpersonationSource): string {
  return source.universeDomain ?? "googleapis.com";
}

/** The file gcloud writes for `source` impersonating `chain`, with `scopes` unless just cloud-platform. */
export function impersonatedFileJson(
  source: AuthorizedUserFile,
  chain: ImpersonationChain,
  scopes: readonly string[] = [],
): string {
  const file = {
    delegates: chain.delegates,
    ...(keepsScopes(scopes) ? { scopes: [...scopes] } : {}),
    service_account_impersonation_url: impersonationUrl(chain.target, source.universeDomain),
    source_credentials: JSON.parse(userCredentialsJson(source)) as unknown,
    type: "impersonated_service_account",
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

function keepsScopes(scopes: readonly string[]): boolean {
  return scopes.length > 0 && !(scopes.length === 1 && scopes[0] === CLOUD_PLATFORM_SCOPE);
}

/** The IAM Credentials URL for impersonating `target`, judged (the `impersonateServiceAccount` option). */
export function impersonationDestination(target: string, universe: Universe): string {
  return trustedUrl(
    impersonationUrl(target, universe.domain),
    { service: "iamcredentials", field: "impersonation URL" },
    universe,
  );
}

/** The key of an impersonated token: the source's secret (never public names alone), the chain, the URL, the scopes. */
export function impersonatedCacheKey(file: ImpersonatedFile, scopes: readonly string[], url: string): string {
  const { source } = file;
  const secret =
    source.type === "authorized_user"
      ? [source.clientId, sha256Hex(source.clientSecret), sha256Hex(source.refreshToken)]
      : source.type === "external_account_authorized_user"
        ? workforceUserKeyParts(source)
        : [source.clientEmail, sha256Hex(source.privateKey)];
  return accessTokenKey([file.type, source.type, ...secret, file.target, JSON.stringify(file.delegates), url], scopes);
}

/** The judged URLs of an `impersonated_service_account` file. */
export interface ImpersonatedDestinations {
  /** IAM Credentials: receives the source's access token. */
  iamUrl: string;
  /** The source credentials' token URL. */
  sourceTokenUrl: string;
}

/** Where an `impersonated_service_account` file's tokens go. */
export function impersonatedDestinations(
  file: ImpersonatedFile,
  universe: Universe,
  path?: string,
): ImpersonatedDestinations {
  // Stryker disable next-line BlockStatement,CallExpression: equivalent: the file's universe is its source's, which the source's token URL checks too
  checkFileUniverse(file.universeDomain, universe, path);
  return {
    iamUrl: trustedUrl(
      file.impersonationUrl,
      destination("iamcredentials", "service_account_impersonation_url", path),
      universe,
    ),
    sourceTokenUrl:
      file.source.type === "external_account_authorized_user"
        ? workforceUserTokenUrl(file.source, universe, path)
        : credentialsTokenUrl(file.source, universe, path),
  };
}
