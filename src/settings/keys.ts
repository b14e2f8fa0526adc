// The settings `cred-auth config` keeps, one table: how each is typed on the command line, how it
// is checked when read back from the file, and the JSON schema conf validates writes with.

/** The settings a user can keep (`cred-auth config set KEY VALUE`), each described by its {@link SETTINGS} entry. */
export interface Settings {
  "client-secret-file"?: string;
  "client-id"?: string;
  "client-secret"?: string;
  scopes?: string[];
  ui?: "auto" | "plain" | "terminal";
  "loopback-ports"?: string;
  remote?: boolean;
  "account-note"?: boolean;
  "secret-store"?: "auto" | "keychain" | "file";
}

export type SettingKey = keyof Settings;

/** How one setting is parsed, checked and described. */
export interface SettingSpec {
  key: SettingKey;
  /** What `cred-auth config` says the value looks like. */
  metavar: string;
  help: string;
  /** Never printed by `config get`/`list`. */
  secret?: boolean;
  /** The JSON schema of the stored value (for conf). */
  schema: Record<string, unknown>;
  /** The stored value from the command line's text; undefined when it is not valid. */
  parse(text: string): Settings[SettingKey] | undefined;
  /** The stored value, checked again when read (the file may have been edited by hand). */
  check(value: unknown): boolean;
}

const UI_VALUES = ["auto", "plain", "terminal"] as const;
/** Where the credentials cache keeps its refresh token and client secret (docs/caching.md). */
export const SECRET_STORES = ["auto", "keychain", "file"] as const;
const PORTS = /^(\d{1,5})(?:\s*-\s*(\d{1,5}))?$/;

const text = (value: string): string | undefined => value.trim() || undefined;
const isText = (value: unknown): boolean => typeof value === "string" && value.trim() !== "";

/** `20000-20009` or `20000` (within 1-65535, first <= last) as a range; undefined for anything else. */
export function parsePortRange(value: string): { first: number; last: number } | undefined {
  const match = PORTS.exec(value.trim());
  if (!match) return undefined;
  const first = Number(match[1]);
  const last = Number(match[2] ?? match[1]);
  return first >= 1 && last <= 65535 && first <= last ? { first, last } : undefined;
}

const YES = /^(1|true|yes|on)$/i;
const NO = /^(0|false|no|off)$/i;

export const SETTINGS: readonly SettingSpec[] = [
  textSetting(
    "client-secret-file",
    "PATH",
    "a client-secret JSON file from the Google Cloud console: the OAuth client of sign-ins",
  ),
  textSetting("client-id", "ID", "an OAuth client id (set together with client-secret, instead of client-secret-file)"),
  {
    ...textSetting("client-secret", "SECRET", "the OAuth client's secret (set together with client-id; never printed)"),
    secret: true,
  },
  {
    key: "scopes",
    metavar: "S1,S2",
    help: "default scopes of cred-auth login",
    schema: { type: "array", items: { type: "string", minLength: 1 }, minItems: 1 },
    parse: (value) => {
      const scopes = value
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      return scopes.length > 0 && scopes.every((s) => !/\s/.test(s)) ? scopes : undefined;
    },
    check: (value) => Array.isArray(value) && value.length > 0 && value.every(isText),
  },
  {
    key: "ui",
    metavar: UI_VALUES.join("|"),
    help: "how a sign-in is shown when neither --ui nor the presenter option says",
    schema: { type: "string", enum: [...UI_VALUES] },
    parse: (value) => UI_VALUES.find((v) => v === value.trim()),
    check: (value) => UI_VALUES.some((v) => v === value),
  },
  {
    key: "loopback-ports",
    metavar: "FIRST-LAST",
    help: "ports of the sign-in's local web server instead of 8080-8089",
    schema: { type: "string", pattern: PORTS.source },
    parse: (value) => (parsePortRange(value) ? value.trim() : undefined),
    check: (value) => typeof value === "string" && parsePortRange(value) !== undefined,
  },
  {
    key: "secret-store",
    metavar: SECRET_STORES.join("|"),
    help: "where the credentials cache keeps its refresh token: the OS keychain when usable (auto), the keychain or an error, the file",
    schema: { type: "string", enum: [...SECRET_STORES] },
    parse: (value) => SECRET_STORES.find((v) => v === value.trim()),
    check: (value) => SECRET_STORES.some((v) => v === value),
  },
  yesNo("remote", "true: the browser is on another machine (copy-paste sign-in); false: on this one"),
  yesNo(
    "account-note",
    "in a notebook, a small note naming the account when cached credentials are used (default true)",
  ),
];

/** A setting of text: a path, an id, a secret. */
function textSetting(key: SettingKey, metavar: string, help: string): SettingSpec {
  return { key, metavar, help, schema: { type: "string", minLength: 1 }, parse: text, check: isText };
}

/** A true/false setting (`1|true|yes|on`, `0|false|no|off` on the command line). */
function yesNo(key: "remote" | "account-note", help: string): SettingSpec {
  return {
    key,
    metavar: "true|false",
    help,
    schema: { type: "boolean" },
    parse: (value) => (YES.test(value.trim()) ? true : NO.test(value.trim()) ? false : undefined),
    check: (value) => typeof value === "boolean",
  };
}

export function settingSpec(key: string): SettingSpec | undefined {
  return SETTINGS.find((s) => s.key === key);
}

/** The keys that hold the OAuth client: one way or the other, never both. */
export const CLIENT_PAIR = ["client-id", "client-secret"] as const satisfies readonly SettingKey[];
