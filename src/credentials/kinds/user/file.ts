// `authorized_user`: a person's sign-in, as gcloud, pydata-google-auth and cred-auth write it, and the
// credentials cache's file. Its fields checked, its JSON written (keys on disk named only here). Pure.
import { GOOGLE_ENDPOINTS, EMULATOR_PATHS } from "../../../shared/constants.js";
import { parseScopes, stringFields } from "../../../formats/credentials-file.js";
import { credentialsTokenUrl } from "../../../formats/destinations.js";
import type { Universe } from "../../../trust/urls.js";

/** An `authorized_user` file: a person's sign-in (camelCase; its keys on disk are named below). */
export interface AuthorizedUserFile {
  /** The file's `type`. */
  type: "authorized_user";
  /** The OAuth client's id. */
  clientId: string;
  /** The OAuth client's secret. */
  clientSecret: string;
  /** The refresh token of the sign-in. */
  refreshToken: string;
  /** `token_uri`, as written (absent: Google's); judged where used. */
  tokenUrl?: string;
  /** The scopes granted (cred-auth and pydata-google-auth record them; gcloud does not). */
  scopes?: string[];
  /** The ID token the sign-in answered, when kept. */
  idToken?: string;
  /** The project billed for quota. */
  quotaProjectId?: string;
  /** The universe the credentials are for (absent: googleapis.com). */
  universeDomain?: string;
  /** The signed-in account's e-mail, when known. */
  account?: string;
}

/** Each string field of the model and its key on disk, in the order a file is written. */
const USER_KEYS = {
  clientId: "client_id",
  clientSecret: "client_secret",
  refreshToken: "refresh_token",
  tokenUrl: "token_uri",
  idToken: "id_token",
  quotaProjectId: "quota_project_id",
  universeDomain: "universe_domain",
  account: "account",
} as const satisfies Record<Exclude<keyof AuthorizedUserFile, "type" | "scopes">, string>;
const USER_REQUIRED = ["clientId", "clientSecret", "refreshToken"] as const;

/** The file's JSON, checked. */
export function parseAuthorizedUser(fields: Record<string, unknown>, path: string): AuthorizedUserFile {
  const file: AuthorizedUserFile = {
    type: "authorized_user",
    ...stringFields(fields, path, USER_KEYS, USER_REQUIRED),
  };
  const scopes = parseScopes(fields.scopes, path);
  if (scopes !== undefined) file.scopes = scopes;
  return file;
}

/** What an `authorized_user` file is made of: a sign-in's tokens, or a client we built. */
export type AuthorizedUserFields = Omit<AuthorizedUserFile, "type" | "scopes"> & { scopes?: readonly string[] };

/** The `authorized_user` file of `fields`: the one place it is put together (parsed above, written below). */
export function authorizedUserFile(fields: AuthorizedUserFields): AuthorizedUserFile {
  const file: AuthorizedUserFile = {
    type: "authorized_user",
    clientId: fields.clientId,
    clientSecret: fields.clientSecret,
    refreshToken: fields.refreshToken,
    ...(fields.tokenUrl !== undefined ? { tokenUrl: fields.tokenUrl } : {}),
    scopes: [...(fields.scopes ?? [])],
  };
  for (const name of ["idToken", "quotaProjectId", "universeDomain", "account"] as const)
    if (fields[name]) file[name] = fields[name];
  return file;
}

/** The ADC-format JSON of user credentials, `token_uri` defaulting to Google's, optional fields only when known. */
export function userCredentialsJson(data: AuthorizedUserFile): string {
  const out: Record<string, unknown> = { type: "authorized_user" };
  const written = { ...data, tokenUrl: data.tokenUrl ?? GOOGLE_ENDPOINTS.tokenUrl };
  for (const [name, key] of Object.entries(USER_KEYS) as [keyof typeof USER_KEYS, string][]) {
    const value = written[name];
    if (value || (USER_REQUIRED as readonly string[]).includes(name)) out[key] = value;
    // The scopes follow token_uri, as gcloud and pydata-google-auth write them.
    if (name === "tokenUrl" && data.scopes !== undefined) out.scopes = [...data.scopes];
  }
  return `${JSON.stringify(out, null, 2)}\n`;
}

/** The text of `data` as an `authorized_user` file, checked as it will be read back: a file written always loads. */
export function userFileText(data: AuthorizedUserFile, path: string): string {
  const text = userCredentialsJson(data);
  parseAuthorizedUser(JSON.parse(text), path);
  return text;
}

/** Where the file's refresh token is revoked: beside its judged token endpoint (Google's, the emulator's, a local server's). */
export function credentialsRevokeUrl(file: AuthorizedUserFile, universe: Universe, path?: string): string {
  const tokenUrl = new URL(credentialsTokenUrl(file, universe, path));
  if (universe.emulator !== undefined && tokenUrl.href.startsWith(`${universe.emulator}/`))
    return `${universe.emulator}${EMULATOR_PATHS.revoke}`;
  if (tokenUrl.protocol === "http:") return `${tokenUrl.origin}${EMULATOR_PATHS.revoke}`;
  return `https://oauth2.${universe.domain}/revoke`;
}
