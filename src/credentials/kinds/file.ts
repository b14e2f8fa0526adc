// The two Google credentials files the loaders and an impersonation's source read (a user's sign-in,
// a service account key), told apart by `type`; any other type is refused. Pure.
import { credentialsJson, unsupportedType, wrongType } from "../../formats/credentials-file.js";
import { type ServiceAccountKeyFile, parseServiceAccountKey } from "./key/file.js";
import { type AuthorizedUserFile, parseAuthorizedUser } from "./user/file.js";

/** A user's or a key's file. */
export type CredentialsFile = AuthorizedUserFile | ServiceAccountKeyFile;

/** `json` as a user's or a key's file, checked. */
export function parseGoogleCredentials(json: Record<string, unknown>, path: string): CredentialsFile {
  if (json.type === "authorized_user") return parseAuthorizedUser(json, path);
  if (json.type === "service_account") return parseServiceAccountKey(json, path);
  throw unsupportedType(json, path);
}

/** The file `bytes` as a user's or a key's file. */
export function parseCredentialsBytes(bytes: Uint8Array, path: string): CredentialsFile {
  return parseGoogleCredentials(credentialsJson(bytes, path), path);
}

/** The file `bytes`, which must hold user credentials (a key file's loader is named). */
export function parseUserBytes(bytes: Uint8Array, path: string): AuthorizedUserFile {
  const file = parseCredentialsBytes(bytes, path);
  if (file.type !== "authorized_user") throw wrongType(path, file.type, "authorized_user");
  return file;
}

/** The file `bytes`, which must hold a service account key (a user file's loader is named). */
export function parseKeyBytes(bytes: Uint8Array, path: string): ServiceAccountKeyFile {
  const file = parseCredentialsBytes(bytes, path);
  if (file.type !== "service_account") throw wrongType(path, file.type, "service_account");
  return file;
}
