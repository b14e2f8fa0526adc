// A small exact argument parser: the options each command declares, `--name value`,
// `--name=value`, `--` to end options, and one-line usage errors that never echo a value
// (a mistyped `--client_secrt=SECRET` must not print the secret).
import { CredAuthError, ERROR_CODES } from "../errors.js";

/** One option of a command. Flags set `value`; options with a `metavar` take an argument. */
export interface OptionSpec {
  /** Where the parsed value goes in {@link ParsedArgs.options}. */
  key: string;
  /** Every spelling, e.g. `["--client_id", "--client-id"]`. The first one is shown in help. */
  names: readonly string[];
  /** Name of the option's argument (`SCOPES`); absent for flags. */
  metavar?: string;
  /** What a flag stores (default `true`). */
  value?: boolean;
  help: string;
  /** Spellings kept working but not listed in help. */
  hidden?: boolean;
}

/** A command: its positional arguments and options. */
export interface CommandSpec {
  name: string;
  summary: string;
  positionals: readonly { name: string; help: string }[];
  options: readonly OptionSpec[];
  /** Extra help text after the option list. */
  epilog?: string;
  /** The help's usage line, when the positionals do not make it. */
  usage?: string;
}

/** The result of {@link parseCommandArgs}. */
export interface ParsedArgs {
  positionals: string[];
  options: Record<string, string | boolean | undefined>;
  /** `-h`/`--help` was given. */
  help: boolean;
}

/** A mistake on the command line (exit code 2). `command` names the help to point to. */
export class UsageError extends CredAuthError {
  /** The command whose help the message points to. */
  command: string | undefined;
  constructor(message: string, command?: string) {
    super(message, { code: ERROR_CODES.USAGE });
    this.command = command;
  }
}

/** Parses `argv` (the words after the command name) against `spec`. Throws {@link UsageError}. */
export function parseCommandArgs(spec: CommandSpec, argv: readonly string[]): ParsedArgs {
  const byName = new Map<string, OptionSpec>();
  for (const option of spec.options) for (const name of option.names) byName.set(name, option);
  const parsed: ParsedArgs = { positionals: [], options: {}, help: false };
  let optionsEnded = false;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (optionsEnded || word === "-" || !word.startsWith("-")) {
      parsed.positionals.push(word);
      continue;
    }
    if (word === "--") {
      optionsEnded = true;
      continue;
    }
    if (word === "-h" || word === "--help") {
      parsed.help = true;
      continue;
    }
    const eq = word.indexOf("=");
    const name = eq === -1 ? word : word.slice(0, eq);
    const option = byName.get(name);
    if (!option) throw new UsageError(`unknown option ${safeName(name)}${suggestion(name, byName)}`, spec.name);
    if (option.metavar === undefined) {
      if (eq !== -1) throw new UsageError(`option ${name} takes no value`, spec.name);
      parsed.options[option.key] = option.value ?? true;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = word.slice(eq + 1);
    else if (i + 1 < argv.length && !(argv[i + 1] as string).startsWith("--")) value = argv[++i];
    if (value === undefined)
      throw new UsageError(`option ${name} needs a value (${name} ${option.metavar})`, spec.name);
    parsed.options[option.key] = value;
  }
  if (parsed.help) return parsed;
  const wanted = spec.positionals.length;
  if (parsed.positionals.length < wanted) {
    throw new UsageError(`missing ${spec.positionals[parsed.positionals.length]?.name}`, spec.name);
  }
  if (parsed.positionals.length > wanted) {
    // The word itself is not echoed: it may be a secret typed in the wrong place.
    throw new UsageError(`too many arguments: expected ${wanted}, got ${parsed.positionals.length}`, spec.name);
  }
  return parsed;
}

/**
 * The word as typed when it looks like an option or command name (short, letters, `-` and `_`,
 * no digits), else a placeholder: a secret typed in the wrong place must not be printed.
 */
export function safeName(word: string): string {
  return /^-{0,2}[A-Za-z][A-Za-z_-]{0,24}$/.test(word) ? word : "(unrecognised)";
}

function suggestion(name: string, byName: Map<string, OptionSpec>): string {
  const normalized = normalize(name);
  for (const known of byName.keys()) if (normalize(known) === normalized) return ` (did you mean ${known}?)`;
  return "";
}

function normalize(name: string): string {
  return name.replace(/^-+/, "").replace(/[-_]/g, "").toLowerCase();
}

/** Comma-separated scopes: trimmed, empties dropped, duplicates removed. */
export function parseScopes(text: string, optionName = "--scopes"): string[] {
  const scopes = [
    ...new Set(
      text
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== ""),
    ),
  ];
  if (scopes.length === 0) throw new UsageError(`${optionName} needs at least one scope`);
  return scopes;
}

/** A positive number of seconds, as milliseconds. */
export function parseSeconds(text: string, optionName: string): number {
  const seconds = Number(text);
  if (text.trim() === "" || !Number.isFinite(seconds) || seconds <= 0) {
    throw new UsageError(`${optionName} needs a positive number of seconds`);
  }
  return Math.round(seconds * 1000);
}
