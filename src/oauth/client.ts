import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { isObject, parseObject } from "../formats/fields.js";
import { CLOUD_PLATFORM_SCOPE, ENV } from "../shared/constants.js";
import { readTrustedFileSync } from "../trust/files.js";
import { own } from "../trust/own.js";

/** Where an OAuth client id and secret came from. */
export type ClientSource = "options" | "env" | "file" | "settings" | "demo";

/** A Desktop app (`installed`: redirects to `http://localhost` only) or a Web application (`web`: a code page too). */
export type ClientKind = "desktop" | "web";

/** The OAuth client a sign-in runs as. */
export interface ResolvedClient {
  clientId: string;
  clientSecret: string;
  source: ClientSource;
  /** The client's type, when known (a client-secret file says it; an id and a secret do not). */
  kind?: ClientKind;
}

/** Doc page that explains how to create a client; named in error messages. */
export const CLIENT_DOC = "docs/oauth-client.md";

/** Scopes left out of gcloud's `--scopes`: cloud-platform (always named first) and the account's, gcloud's own. */
const GCLOUD_SCOPES = ["openid", "email", "https://www.googleapis.com/auth/userinfo.email", CLOUD_PLATFORM_SCOPE];

/** No client anywhere (nor an emulator to lend one); with gcloud installed (`gcloudScopes`), its sign-in comes first. */
export function noClientError(gcloudScopes?: readonly string[]): CredCredentialsError {
  return new CredCredentialsError(
    gcloudScopes
      ? `No OAuth client configured: run \`${gcloudLogin(gcloudScopes)}\`, or make your own client with \`cred-auth config init\` (${CLIENT_DOC}).`
      : `No OAuth client configured: \`cred-auth config init\` creates your own client once (or set ${ENV.clientSecretFile}); see ${CLIENT_DOC}.`,
    { code: ERROR_CODES.NO_OAUTH_CLIENT },
  );
}

/** gcloud's ADC sign-in for the scopes asked (with the cloud-platform scope gcloud requires). */
function gcloudLogin(scopes: readonly string[]): string {
  const asked = [CLOUD_PLATFORM_SCOPE, ...scopes.filter((scope) => !GCLOUD_SCOPES.includes(scope))];
  return `gcloud auth application-default login --scopes=${asked.join(",")}`;
}

/** The copy-paste flow towards the caller's own page needs the caller's whole client id and secret, as the original requires. */
export function incompleteClientError(): CredCredentialsError {
  return new CredCredentialsError(
    "Unable to get valid credentials: please provide a valid client_id and/or client_secret.",
    { code: ERROR_CODES.NO_OAUTH_CLIENT },
  );
}

/** Client-secret files are under a kilobyte; the bound keeps a wrong path from being read whole. */
export const MAX_CLIENT_SECRET_FILE_BYTES = 64 * 1024;

/** A client-secret file's text; only a bounded regular file is read (a FIFO would block forever, a device never end). */
export function readClientSecretText(path: string): string {
  return readTrustedFileSync(path, { maxBytes: MAX_CLIENT_SECRET_FILE_BYTES, keeper: "anyone" }).toString("utf8");
}

/** The client in the client-secret file `namedBy` names (default `CRED_AUTH_CLIENT_SECRET_FILE`), if it names one. */
export function fromSecretFile(
  path: string | undefined,
  namedBy: string = ENV.clientSecretFile,
): ResolvedClient | undefined {
  if (!path?.trim()) return undefined;
  return { ...readClientSecretFile(path, `named by ${namedBy}`), source: "file" };
}

/** Reads a console-downloaded client-secret file (`namedBy`: where its path came from); errors never quote it. */
export function readClientSecretFile(
  path: string,
  namedBy: string,
): { clientId: string; clientSecret: string; kind: ClientKind } {
  let text: string;
  try {
    text = readClientSecretText(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new CredCredentialsError(`Cannot read the OAuth client-secret file ${path} (${code}) ${namedBy}.`, {
      cause: error,
      code: ERROR_CODES.FILE_INVALID,
    });
  }
  const client = parseClientSecretJson(text);
  if (!client) {
    const credentials = credentialsInsteadOfClient(text);
    throw new CredCredentialsError(
      credentials
        ? `The OAuth client-secret file ${path} ${credentials}; to sign in, give a "Desktop app" client's JSON.`
        : `The OAuth client-secret file ${path} is not a Google client-secret JSON file ({"installed": ...}).`,
      { code: ERROR_CODES.FILE_INVALID },
    );
  }
  return client;
}

const CREDENTIALS_KINDS: Record<string, string> = {
  service_account: "a service-account key",
  authorized_user: "saved user credentials (a sign-in's file)",
  impersonated_service_account: "credentials that impersonate a service account",
  external_account: "identity-federation credentials",
  external_account_authorized_user: "identity-federation credentials",
};

/** What a credentials file given where an OAuth client belongs is, and that it needs none; else undefined. */
export function credentialsInsteadOfClient(text: string): string | undefined {
  const type = parseObject(text)?.type;
  const kind = typeof type === "string" ? own(CREDENTIALS_KINDS, type) : undefined;
  if (!kind) return undefined;
  return `is ${kind}, not an OAuth client: use it as it is (GOOGLE_APPLICATION_CREDENTIALS=FILE)`;
}

/** `{installed|web: {client_id, client_secret}}` → the pair and its kind, or undefined when the shape is wrong. */
export function parseClientSecretJson(
  text: string,
): { clientId: string; clientSecret: string; kind: ClientKind } | undefined {
  const json = parseObject(text);
  if (!json) return undefined;
  const section = json.installed ?? json.web;
  if (!isObject(section)) return undefined;
  const { client_id: clientId, client_secret: clientSecret } = section;
  if (typeof clientId !== "string" || typeof clientSecret !== "string" || !clientId || !clientSecret) return undefined;
  return { clientId, clientSecret, kind: isObject(json.installed) ? "desktop" : "web" };
}
