// The settings file as a conf store, for `cred-auth config` (the only writer); conf loads only then.
import { chmodSync, lstatSync, mkdirSync, renameSync, statSync } from "node:fs";
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { ownershipProblem } from "../trust/files.js";
import { printable } from "../trust/text.js";
import { SETTINGS, type SettingKey, type Settings } from "./keys.js";
import { SETTINGS_FILE_NAME, settingsDirectory, settingsFile, type SettingsEnv } from "./paths.js";

/** What `cred-auth config` needs of the store. */
export interface SettingsStore {
  readonly path: string;
  get<K extends SettingKey>(key: K): Settings[K];
  set<K extends SettingKey>(key: K, value: NonNullable<Settings[K]>): void;
  delete(key: SettingKey): void;
  all(): Settings;
}

/**
 * Opens the settings file with conf, its directory 0700 (conf makes it 0755) and the file 0600; a bad
 * file is moved aside to `config.json.corrupt` with a warning, and the store starts empty.
 * @throws CredCredentialsError (`ERR_FILE_UNWRITABLE`) for a directory or file not the user's own and private.
 */
export async function openSettingsStore(env: SettingsEnv = process.env): Promise<SettingsStore> {
  const directory = settingsDirectory(env);
  privateDirectory(directory);
  checkOwnFile(settingsFile(env));
  const { default: Conf } = await import("conf");
  const options = {
    cwd: directory,
    configName: SETTINGS_FILE_NAME,
    projectName: "cred-auth",
    configFileMode: 0o600,
    accessPropertiesByDotNotation: false,
    watch: false,
    schema: Object.fromEntries(SETTINGS.map((s) => [s.key, s.schema])),
  };
  let conf: InstanceType<typeof Conf<Settings>>;
  try {
    conf = new Conf<Settings>(options as ConstructorParameters<typeof Conf<Settings>>[0]);
    conf.store; // reads and validates the file now, not on the first get
  } catch (error) {
    // A file conf cannot parse, or whose values its schema rejects, is moved aside; anything else is thrown.
    const damaged = error instanceof SyntaxError || (error as Error)?.constructor?.name === "SchemaViolationError";
    if (!damaged) throw error;
    const path = settingsFile(env);
    const aside = `${path}.corrupt`;
    renameSync(path, aside);
    process.stderr.write(
      `cred-auth: warning: the settings file ${path} was not valid (${error instanceof SyntaxError ? "not JSON" : "a value the schema rejects"}); it was moved to ${aside} and the settings start empty\n`,
    );
    conf = new Conf<Settings>(options as ConstructorParameters<typeof Conf<Settings>>[0]);
  }
  return {
    path: conf.path,
    get: (key) => conf.get(key),
    set: (key, value) => conf.set(key, value as never),
    delete: (key) => conf.delete(key),
    all: () => ({ ...conf.store }),
  };
}

/** Creates `directory` 0700 or tightens ours; refuses another user's, or one behind their link (they could swap files). */
function privateDirectory(directory: string): void {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  if (process.platform === "win32") return;
  const link = foreignLink(directory);
  const stat = statSync(directory);
  const problem = link ?? (stat.uid !== process.getuid?.() ? `belongs to another user (uid ${stat.uid})` : undefined);
  if (problem !== undefined) throw untrusted(`the settings directory ${printable(directory)} ${problem}`);
  if ((stat.mode & 0o077) !== 0) chmodSync(directory, 0o700);
}

/** Refuses a settings file that is not a regular file of the user's own (or is reached through another user's link), or that others may write. */
function checkOwnFile(path: string): void {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch {
    return; // none yet: conf creates it, 0600
  }
  // conf would block on a FIFO (or read a device forever): only a regular file is opened.
  const problem = foreignLink(path) ?? (stat.isFile() ? ownershipProblem(stat) : "is not a regular file");
  if (problem !== undefined)
    throw untrusted(`the settings file ${printable(path)} ${problem}; remove it, then set again`);
}

/** "is a symbolic link of another user (uid N)" when `path` is one (root's and ours are followed), else undefined. */
function foreignLink(path: string): string | undefined {
  const stat = lstatSync(path);
  if (!stat.isSymbolicLink() || stat.uid === process.getuid?.() || stat.uid === 0) return undefined;
  return `is a symbolic link of another user (uid ${stat.uid})`;
}

function untrusted(what: string): CredCredentialsError {
  return new CredCredentialsError(`Cannot keep settings: ${what}; cred-auth writes no secret there.`, {
    code: ERROR_CODES.FILE_UNWRITABLE,
  });
}
