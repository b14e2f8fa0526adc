/**
 * Reads an Application Default Credentials file of any type print-token knows: it peeks the
 * `type` and hands `authorized_user` and `service_account` to files.ts, and the federation types
 * to external-account.ts, `impersonated_service_account` to impersonated-file.ts.
 */
import { readFileLimitedSync } from "../util/atomic-write.js";
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import {
  type ExternalAccountFile,
  type ExternalAuthorizedUserFile,
  parseExternalAccount,
  parseExternalAuthorizedUser,
} from "./external-account.js";
import { type CredentialsFile, MAX_CREDENTIALS_FILE_BYTES, readCredentialsFileSync } from "./files.js";
import { type ImpersonatedFile, parseImpersonatedFile } from "./impersonated-file.js";

export type AdcFile = CredentialsFile | ExternalAccountFile | ExternalAuthorizedUserFile | ImpersonatedFile;

/** The file at `path`, validated for its type. */
export function readAdcFileSync(path: string): AdcFile {
  const type = peekType(path);
  if (type === "external_account") return parseExternalAccount(readJson(path), path);
  if (type === "external_account_authorized_user") return parseExternalAuthorizedUser(readJson(path), path);
  if (type === "impersonated_service_account") return parseImpersonatedFile(readJson(path), path);
  return readCredentialsFileSync(path);
}

/** The `type` field, or undefined when the file cannot be read as a JSON object (files.ts then says why). */
function peekType(path: string): unknown {
  try {
    return readJson(path).type;
  } catch {
    return undefined;
  }
}

function readJson(path: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(readFileLimitedSync(path, MAX_CREDENTIALS_FILE_BYTES).toString("utf8"));
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new CredCredentialsError(`${JSON.stringify(path)} is not a JSON object.`, { code: ERROR_CODES.FILE_INVALID });
  return parsed as Record<string, unknown>;
}
