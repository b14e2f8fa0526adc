// `cred-auth config init|set|get|unset|list|path`: the user's settings, read as the library reads them (`list`
// shows what a sign-in sees), written through conf (settings/store.ts), loaded only here.
import { resolve } from "node:path";
import { CredAuthError, CredCredentialsError, ERROR_CODES } from "../../errors.js";
import { fromSecretFile } from "../../oauth/client.js";
import { CLIENT_PAIR, SETTINGS, settingSpec, type SettingKey, type Settings } from "../../settings/keys.js";
import { settingsFile } from "../../settings/paths.js";
import { readSettings } from "../../settings/read.js";
import { openSettingsStore } from "../../settings/store.js";
import { NOT_SHOWN, UsageError, defineCommand } from "../command.js";
import { configInit } from "../config-init.js";
import { EXIT, writeOut } from "../output.js";

const ACTIONS = ["init", "set", "get", "unset", "list", "path"] as const;

export const config = defineCommand({
  name: "config",
  summary: "Keep settings once: your OAuth client (`config init` sets one up, guided), scopes, ui, ports, remote.",
  usage: "config init [CLIENT_FILE] | set|get|unset|list|path [KEY [VALUE]]",
  words: [
    [
      "init [CLIENT_FILE]",
      'set up your own OAuth client: the three console steps, then the "Desktop app" JSON they download',
    ],
    ["set KEY VALUE [KEY VALUE]", "store settings (client-id and client-secret go together)"],
    ["get KEY", "print one setting (exit 1 when it is not set; client-secret is never printed)"],
    ["unset KEY...", "remove settings"],
    ["list", "print every setting kept, KEY = VALUE (secrets hidden)"],
    ["path", "print where the settings file is"],
  ],
  flags: {},
  ownWords: true,
  more: () =>
    [
      "Keys:",
      ...SETTINGS.map((s) => `  ${`${s.key} ${s.metavar}`.padEnd(31)}  ${s.help}`),
      "Options and environment variables win over settings. See docs/cli.md in the package.",
    ].join("\n"),
  run: ({ words }) => runConfig(words),
});

async function runConfig(argv: readonly string[]): Promise<number> {
  const words = argv[0] === "--" ? argv.slice(1) : [...argv];
  if (argv[0] !== "--" && words.some((w) => w.startsWith("-") && w !== "-"))
    throw new UsageError(`unknown option ${NOT_SHOWN}`);
  const [action, ...rest] = words;
  switch (action) {
    case "init":
      return configInit(rest, writeSettings);
    case "path":
      return noMore(rest, () => writeOut(`${settingsFile()}\n`));
    case "list":
      return noMore(rest, () => writeOut(listing(readSettings())));
    case "get":
      return get(rest);
    case "set":
      return set(rest);
    case "unset":
      return unset(rest);
    default:
      throw new UsageError(
        action === undefined
          ? `missing ACTION: ${ACTIONS.join(", ")}`
          : `unknown action ${NOT_SHOWN}; the actions are ${ACTIONS.join(", ")}`,
      );
  }
}

function noMore(rest: readonly string[], run: () => number): number {
  if (rest.length > 0) throw new UsageError(`too many arguments: expected none, got ${rest.length}`);
  return run();
}

/** `KEY = VALUE` lines, secrets hidden; nothing when no setting is kept. */
function listing(settings: Settings): string {
  return SETTINGS.filter((s) => settings[s.key] !== undefined)
    .map((s) => `${s.key} = ${s.secret ? "(hidden)" : shown(settings[s.key])}\n`)
    .join("");
}

function shown(value: Settings[SettingKey]): string {
  return Array.isArray(value) ? value.join(",") : String(value);
}

function get(rest: readonly string[]): number {
  const [key, ...more] = rest;
  if (key === undefined || more.length > 0) throw new UsageError("config get takes one KEY");
  const spec = known(key);
  if (spec.secret) throw new UsageError(`${spec.key} is never printed; config list shows whether it is set`);
  const value = readSettings()[spec.key];
  if (value === undefined) {
    process.stderr.write(`cred-auth: ${spec.key} is not set\n`);
    return EXIT.credentials;
  }
  return writeOut(`${shown(value)}\n`);
}

async function set(rest: readonly string[]): Promise<number> {
  if (rest.length === 0 || rest.length % 2 !== 0)
    throw new UsageError("config set takes KEY VALUE pairs, e.g. config set client-secret-file PATH");
  const changes: Settings = {};
  for (let i = 0; i + 1 < rest.length; i += 2) {
    const spec = known(rest[i] ?? "");
    const value = spec.parse(rest[i + 1] ?? "");
    // The value is not echoed: it may be a client secret.
    if (value === undefined) throw new UsageError(`${spec.key} needs ${spec.metavar}`);
    (changes as Record<string, unknown>)[spec.key] = value;
  }
  const file = changes["client-secret-file"];
  if (file !== undefined) changes["client-secret-file"] = checkedSecretFile(file);
  const pair = CLIENT_PAIR.filter((k) => changes[k] !== undefined);
  if (pair.length === 1)
    throw new UsageError("client-id and client-secret go together: config set client-id ID client-secret SECRET");
  if (file !== undefined && pair.length > 0)
    throw new UsageError("give either client-secret-file or client-id with client-secret, not both");
  await writeSettings(changes, file !== undefined ? [...CLIENT_PAIR] : pair.length > 0 ? ["client-secret-file"] : []);
  return EXIT.ok;
}

async function unset(rest: readonly string[]): Promise<number> {
  if (rest.length === 0) throw new UsageError("config unset takes one or more KEYs");
  const keys = new Set<SettingKey>(rest.map((k) => known(k).key));
  // Half a client is no client: the id and the secret go together.
  if (CLIENT_PAIR.some((k) => keys.has(k))) for (const k of CLIENT_PAIR) keys.add(k);
  await writeSettings({}, [...keys]);
  return EXIT.ok;
}

/** Stores `changes` and removes `removed` in the settings file, saying so on stderr (`config set|unset`, `login`). */
export async function writeSettings(changes: Settings, removed: readonly SettingKey[] = []): Promise<string> {
  const path = settingsFile();
  let kept: SettingKey[] = [];
  try {
    const store = await openSettingsStore();
    kept = removed.filter((key) => store.get(key) !== undefined);
    for (const key of kept) store.delete(key);
    for (const [key, value] of Object.entries(changes)) store.set(key as SettingKey, value as never);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!code || error instanceof CredAuthError) throw error;
    throw new CredCredentialsError(
      `Cannot write the settings file ${path} (${code}); make its directory writable, or use options or environment variables instead.`,
      { cause: error, code: ERROR_CODES.FILE_INVALID },
    );
  }
  const what = [
    ...Object.keys(changes).map((k) => `set ${k}`),
    ...kept.filter((k) => !(k in changes)).map((k) => `unset ${k}`),
  ];
  if (what.length > 0) process.stderr.write(`cred-auth: ${what.join(", ")} in ${path}\n`);
  return path;
}

function known(key: string) {
  const spec = settingSpec(key);
  if (!spec)
    throw new UsageError(`unknown setting ${NOT_SHOWN}; the settings are ${SETTINGS.map((s) => s.key).join(", ")}`);
  return spec;
}

/** An absolute path to a readable Google client-secret JSON file; else the reason, as an error. */
function checkedSecretFile(path: string): string {
  const absolute = resolve(path);
  fromSecretFile(absolute, "config set client-secret-file");
  return absolute;
}
