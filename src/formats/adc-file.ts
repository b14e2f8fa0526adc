/**
 * Reads an Application Default Credentials file of any type: it peeks the `type` and hands
 * `authorized_user` and `service_account` to credentials-file.ts, the federation types to
 * external-account.ts, `impersonated_service_account` to impersonated-file.ts. The one place that
 * switches on a file's type.
 */
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { readTrustedFileSync } from "../trust/files.js";
import { quoted } from "../trust/text.js";
import { type CredentialsFile, MAX_CREDENTIALS_FILE_BYTES, readCredentialsFileSync } from "./credentials-file.js";
import {
  type ExternalAccountFile,
  type ExternalAuthorizedUserFile,
  parseExternalAccount,
  parseExternalAuthorizedUser,
} from "./external-account.js";
import { type ImpersonatedFile, parseImpersonatedFile } from "./impersonated-file.js";
import { KEYCHAIN_FIELD } from "./keychain-stand-in.js";

// Loaded only for a file in the keychain form: print-token's path on any other file stays as light as it was.
// A getter of its own, not formats/lazy.ts's: the keychain form reads through credentials-file.ts, which imports that.
const keychainSecrets = (): typeof import("./keychain-secrets.js") => require("./keychain-secrets.js");

/** Any Application Default Credentials file cred-auth reads. */
export type AdcFile = CredentialsFile | ExternalAccountFile | ExternalAuthorizedUserFile | ImpersonatedFile;

/** The file at `path`, validated for its type (read under the file-trust rule: bounded, non-blocking, regular). */
export function readAdcFileSync(path: string): AdcFile {
  const { type, keychain } = peekType(path);
  // The credentials cache's file whose secrets are in the keychain (formats/keychain-cache-file.ts).
  if (type === "authorized_user" && keychain) return keychainSecrets().keychainUserFileSync(path);
  if (type === "external_account") return parseExternalAccount(readJson(path), path);
  if (type === "external_account_authorized_user") return parseExternalAuthorizedUser(readJson(path), path);
  if (type === "impersonated_service_account") return parseImpersonatedFile(readJson(path), path);
  return readCredentialsFileSync(path);
}

/** The `type` field (undefined when the file cannot be read as a JSON object: credentials-file.ts then says why), and whether the file is in the keychain form. */
function peekType(path: string): { type: unknown; keychain: boolean } {
  try {
    const json = readJson(path);
    return { type: json.type, keychain: KEYCHAIN_FIELD in json };
  } catch {
    return { type: undefined, keychain: false };
  }
}

function readJson(path: string): Record<string, unknown> {
  const bytes = readTrustedFileSync(path, { maxBytes: MAX_CREDENTIALS_FILE_BYTES, keeper: "anyone" });
  const parsed: unknown = JSON.parse(bytes.toString("utf8"));
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new CredCredentialsError(`${quoted(path)} is not a JSON object.`, { code: ERROR_CODES.FILE_INVALID });
  return parsed as Record<string, unknown>;
}
