/**
 * Parses an Application Default Credentials file of any type: it looks at its `type` and hands
 * `authorized_user` and `service_account` to credentials-file.ts, the federation types to
 * external-account.ts, `impersonated_service_account` to impersonated-file.ts. The one place that
 * switches on a file's type.
 */
import { type CredentialsFile, parseCredentialsBytes, readCredentialsBytesSync } from "./credentials-file.js";
import { type WorkforceUserFile, parseWorkforceUserFile } from "../credentials/kinds/workforce-user/file.js";
import { type ExternalAccountFile, parseExternalAccount } from "../credentials/kinds/federated/file.js";
import { type ImpersonatedFile, parseImpersonatedFile } from "./impersonated-file.js";

/** Any Application Default Credentials file cred-auth reads. */
export type AdcFile = CredentialsFile | ExternalAccountFile | WorkforceUserFile | ImpersonatedFile;

/**
 * The file `bytes` (read under the file-trust rule by stores/index.ts), validated
 * for its type: the type is judged and the file parsed from the same bytes.
 */
export function parseAdcBytes(bytes: Buffer, path: string): AdcFile {
  const json = jsonObject(bytes);
  if (json !== undefined) {
    if (json.type === "external_account") return parseExternalAccount(json, path);
    if (json.type === "external_account_authorized_user") return parseWorkforceUserFile(json, path);
    if (json.type === "impersonated_service_account") return parseImpersonatedFile(json, path);
  }
  return parseCredentialsBytes(bytes, path);
}

/**
 * The `type` the file at `path` names, read under the file-trust rule; undefined when it cannot be
 * read as a JSON object with a string `type` (its reader then says why).
 */
export function peekAdcFileType(path: string): string | undefined {
  try {
    const type = jsonObject(readCredentialsBytesSync(path))?.type;
    return typeof type === "string" ? type : undefined;
  } catch {
    return undefined;
  }
}

/** The file's JSON object, or undefined when it holds none (credentials-file.ts then says why). */
function jsonObject(bytes: Buffer): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(bytes.toString("utf8"));
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
