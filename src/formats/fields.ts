// Reading a file's JSON fields, each checked for its type, with errors that name the file and never
// quote a value (it may be a secret).
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { quoted } from "../trust/text.js";

/** Field readers whose errors name the file being parsed, and end with `advice`. */
export function fieldsOf(
  path: string | undefined,
  advice = "; write it again with gcloud or your administrator's config",
) {
  const named = path === undefined ? "" : ` ${quoted(path)}`;
  const invalid = (what: string) =>
    new CredCredentialsError(`Credentials file${named} ${what}${advice}.`, { code: ERROR_CODES.FILE_INVALID });
  function str(json: Record<string, unknown>, key: string, required: true): string;
  function str(json: Record<string, unknown>, key: string, required: false): string | undefined;
  function str(json: Record<string, unknown>, key: string, required: boolean): string | undefined {
    const value = json[key];
    if ((value === undefined || value === null) && !required) return undefined;
    if (typeof value !== "string" || value === "") throw invalid(`has no "${key}" string`);
    return value;
  }
  return { invalid, str };
}

export type Fields = ReturnType<typeof fieldsOf>;

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The JSON object `text` holds, or undefined (not JSON, or not an object). */
export function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const json: unknown = JSON.parse(text);
    return isObject(json) ? json : undefined;
  } catch {
    return undefined;
  }
}

/** The entries of `fields` that hold a value. */
export function present<T extends Record<string, string | undefined>>(fields: T): Partial<Record<keyof T, string>> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<
    Record<keyof T, string>
  >;
}
