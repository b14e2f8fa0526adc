// A credentials file's JSON, read as the loaders and every kind's parser need it: UTF-8, a JSON object
// with a `type`, string fields checked one by one. Errors name the file and never quote its contents.
import { CredentialsFileError } from "../errors.js";
import { quoted } from "../trust/text.js";

/** Credentials files are a few kilobytes; anything this big is not one. */
export const MAX_CREDENTIALS_FILE_BYTES = 1024 * 1024;

// The error of a file read here is public (errors.ts): its path and problem are its own.
export { CredentialsFileError } from "../errors.js";

/** The types the loaders and the credentials cache read (every kind's file is read by its own parser). */
const GOOGLE_CREDENTIALS = ["authorized_user", "service_account"] as const;

/** `bytes` as a credentials file's JSON object: UTF-8 (a byte-order mark allowed), JSON, an object. */
export function credentialsJson(bytes: Uint8Array, path: string): Record<string, unknown> {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch (error) {
    throw invalid(path, "is not UTF-8 text; a credentials file is JSON", error);
  }
  if (text.trim() === "") throw invalid(path, "is empty; sign in again or point to the right file");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw invalid(path, notJsonProblem(text, error), error);
  }
  if (json === null || typeof json !== "object" || Array.isArray(json))
    throw invalid(path, `holds ${jsonKind(json)}, not a JSON object`);
  return json as Record<string, unknown>;
}

/** Why `json` is no file of a type its reader takes: no `type` (a client-secret file named for what it is), or another. */
export function unsupportedType(json: Record<string, unknown>, path: string): CredentialsFileError {
  const type = json.type;
  if (type === undefined && isClientSecretShape(json))
    return invalid(
      path,
      `is an OAuth client-secret file (an OAuth client's id and secret, as the Google Cloud console downloads it), not credentials; sign in with it to get credentials: cred-auth login credentials.json --client-secret-file ${quoted(path)}, then use credentials.json`,
    );
  if (type === undefined) return invalid(path, `has no "type" field; expected ${acceptedTypes()}`);
  return invalid(path, `has type ${describeType(type)}; cred-auth accepts ${acceptedTypes()}`);
}

/** A user file where a key was wanted, or the reverse: the loader that reads it. */
export function wrongType(
  path: string,
  type: string,
  wanted: (typeof GOOGLE_CREDENTIALS)[number],
): CredentialsFileError {
  const hint =
    wanted === "authorized_user"
      ? "load it with loadServiceAccountCredentials()"
      : "load it with loadUserCredentials()";
  return invalid(path, `holds "${type}" credentials, not "${wanted}"; ${hint}`);
}

/** The required and the present optional string fields of a model, read at their keys on disk and checked. */
export function stringFields<K extends Record<string, string>, R extends keyof K & string>(
  fields: Record<string, unknown>,
  path: string,
  keys: K,
  required: readonly R[],
): Record<R, string> & Partial<Record<keyof K, string>> {
  const out: Record<string, string> = {};
  for (const [name, key] of Object.entries(keys)) {
    const value = (required as readonly string[]).includes(name)
      ? requiredString(fields, key, path)
      : optionalString(fields, key, path);
    if (value !== undefined) out[name] = value;
  }
  return out as Record<R, string> & Partial<Record<keyof K, string>>;
}

function requiredString(fields: Record<string, unknown>, name: string, path: string): string {
  const value = fields[name];
  if (value === undefined || value === null)
    throw invalid(
      path,
      `is missing the required field "${name}": add it, or make the file again (sign in, or download the key)`,
    );
  if (typeof value !== "string") throw invalid(path, `has ${jsonKind(value)} in "${name}" where a string belongs`);
  if (value.trim() === "") throw invalid(path, `has an empty "${name}"`);
  return value;
}

/** Absent, `null` and `""` all mean "not known" (gcloud writes `"account": ""`). */
function optionalString(fields: Record<string, unknown>, name: string, path: string): string | undefined {
  const value = fields[name];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") throw invalid(path, `has ${jsonKind(value)} in "${name}" where a string belongs`);
  return value;
}

/** An array of scope strings; a space-separated string is accepted too, as google-auth (Python) does. */
export function parseScopes(value: unknown, path: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  // Stryker disable next-line Regex: equivalent: filter(Boolean) drops the empty strings a split on single spaces leaves
  if (typeof value === "string") return value.split(/\s+/).filter(Boolean);
  if (Array.isArray(value) && value.every((scope) => typeof scope === "string" && scope.trim() !== ""))
    return [...value];
  throw invalid(path, `has "scopes" that is not an array of scope strings`);
}

/** `Credentials file "PATH" PROBLEM.`, the cause kept without any text of the file. */
export function invalid(path: string, problem: string, cause?: unknown): CredentialsFileError {
  return new CredentialsFileError(path, "invalid", `Credentials file ${quoted(path)} ${problem}.`, {
    cause: safeCause(cause),
  });
}

/** JSON.parse's message quotes the text it choked on: keep only the error's class as the cause. */
function safeCause(cause: unknown): unknown {
  return cause instanceof SyntaxError ? new SyntaxError("invalid JSON") : cause;
}

/** Why the text is not JSON: cut short (it ends inside its JSON), or not JSON at some place. */
function notJsonProblem(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : "";
  const at = Number(/at position (\d+)/.exec(message)?.[1] ?? Number.NaN);
  const cutShort = /end of JSON input|Unterminated string/i.test(message) || at >= text.trimEnd().length;
  const place = jsonErrorPlace(error).startsWith(" (line") ? jsonErrorPlace(error) : "";
  if (cutShort)
    return `ends before its JSON is complete${place}: it was cut short (an interrupted copy, download or write?); copy or download it again, or sign in again to write a new one`;
  return `is not valid JSON${jsonErrorPlace(error)}; it is not a credentials file, or it was damaged`;
}

/** A client-secret file as the console downloads it: `{"installed": {...}}` or `{"web": {...}}`. */
export function isClientSecretShape(fields: Record<string, unknown>): boolean {
  const inner = fields.installed ?? fields.web;
  return typeof inner === "object" && inner !== null && "client_id" in inner;
}

/** ` (line L, column C)` when the engine says where parsing stopped; never the text itself. */
function jsonErrorPlace(error: unknown): string {
  // Stryker disable next-line StringLiteral: equivalent: JSON.parse throws only SyntaxErrors, and any text without a place gives none
  const message = error instanceof Error ? error.message : "";
  const place = /\(line (\d+) column (\d+)\)/.exec(message);
  if (place) return ` (line ${place[1]}, column ${place[2]})`;
  if (/end of JSON input/i.test(message)) return " (it ends too early)";
  return "";
}

function jsonKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return "a string";
  if (typeof value === "number") return "a number";
  // Stryker disable next-line ConditionalExpression: equivalent when true: only JSON values come here, and a boolean is the one kind left
  return typeof value === "boolean" ? "a boolean" : typeof value;
}

function describeType(type: unknown): string {
  if (typeof type === "string" && /^[A-Za-z0-9_.-]{1,64}$/.test(type)) return JSON.stringify(type);
  if (typeof type === "string") return "an unsupported string";
  return jsonKind(type);
}

function acceptedTypes(): string {
  return GOOGLE_CREDENTIALS.map((t) => JSON.stringify(t)).join(" or ");
}
