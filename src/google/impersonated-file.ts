/**
 * `impersonated_service_account` files, as `gcloud auth application-default login
 * --impersonate-service-account` writes them: `source_credentials` (an `authorized_user` or
 * `service_account`), `service_account_impersonation_url` naming the account, `delegates`.
 */
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { CLOUD_PLATFORM_SCOPE } from "../shared/constants.js";
import { type AuthorizedUserFile, type CredentialsFile, parseCredentialsText, userCredentialsJson } from "./files.js";
import { type ImpersonationChain, impersonationUrl, targetOfImpersonationUrl } from "./impersonation.js";

export interface ImpersonatedFile extends ImpersonationChain {
  type: "impersonated_service_account";
  /** The credentials that ask for the impersonated token. */
  source: CredentialsFile;
  /** As written in the file (checked where it is used, see service-url.ts). */
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
      `Credentials file ${JSON.stringify(path)} ${what}; write it again with \`cred-auth login FILE --impersonate-service-account SA\` or gcloud.`,
      { code: ERROR_CODES.FILE_INVALID },
    );
  const sourceJson = json.source_credentials;
  if (typeof sourceJson !== "object" || sourceJson === null || Array.isArray(sourceJson))
    throw invalid('has no "source_credentials" object');
  const source = parseCredentialsText(JSON.stringify(sourceJson), path);
  const url = json.service_account_impersonation_url;
  const target = typeof url === "string" ? targetOfImpersonationUrl(url) : undefined;
  if (typeof url !== "string" || target === undefined)
    throw invalid('has no "service_account_impersonation_url" ending in ACCOUNT:generateAccessToken');
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
    universeDomain: source.universe_domain ?? "googleapis.com",
    ...(quota ? { quotaProjectId: quota } : {}),
    ...(scopes && scopes.length > 0 ? { scopes: scopes as string[] } : {}),
  };
}

/**
 * The file gcloud writes for `source` impersonating `chain` (keys sorted, as gcloud's), with the
 * token's `scopes` when they are not just the default cloud-platform (gcloud writes none;
 * google-auth-library reads them).
 */
export function impersonatedFileJson(
  source: AuthorizedUserFile,
  chain: ImpersonationChain,
  scopes: readonly string[] = [],
): string {
  const file = {
    delegates: chain.delegates,
    ...(keepsScopes(scopes) ? { scopes: [...scopes] } : {}),
    service_account_impersonation_url: impersonationUrl(chain.target, source.universe_domain),
    source_credentials: JSON.parse(userCredentialsJson(source)) as unknown,
    type: "impersonated_service_account",
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

function keepsScopes(scopes: readonly string[]): boolean {
  return scopes.length > 0 && !(scopes.length === 1 && scopes[0] === CLOUD_PLATFORM_SCOPE);
}
