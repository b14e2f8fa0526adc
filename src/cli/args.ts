// A small exact argument parser: the options each command declares, `--name value`,
// `--name=value`, `--` to end options, and one-line usage errors that never echo what was typed
// (a mistyped `--client_secrt=SECRET`, or a secret pasted where a command or an option belongs,
// must not be printed): they name the argument's place, and only names of our own.
import { CredAuthError, ERROR_CODES } from "../errors.js";
import { editDistance } from "../oauth/known-scopes.js";

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
  positionals: readonly {
    name: string;
    help: string;
    /** May be left out (only after the required ones). */
    optional?: boolean;
  }[];
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
    if (!option)
      throw new UsageError(`unknown option at argument ${i + 1} ${NOT_SHOWN}${suggestion(name, byName)}`, spec.name);
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
  const required = spec.positionals.filter((p) => !p.optional).length;
  if (parsed.positionals.length < required) {
    throw new UsageError(`missing ${spec.positionals[parsed.positionals.length]?.name}`, spec.name);
  }
  if (parsed.positionals.length > wanted) {
    // The word itself is not echoed: it may be a secret typed in the wrong place.
    const expected = required === wanted ? `${wanted}` : `at most ${wanted}`;
    throw new UsageError(`too many arguments: expected ${expected}, got ${parsed.positionals.length}`, spec.name);
  }
  return parsed;
}

/** What a usage error says instead of a word the user typed. */
export const NOT_SHOWN = "(not shown: it may be a secret)";

/**
 * What to print for an unknown word the user typed (a command, an action, a setting's name): never
 * the word, which may be a secret pasted in the wrong place, however much it looks like a name.
 */
export function safeName(_word: string): string {
  return NOT_SHOWN;
}

/**
 * `message` with every argument in `args` (of 4 characters or more) that is not one of `known`
 * replaced by {@link NOT_SHOWN}: for messages of parsers that are not ours (the emulator's own).
 */
export function withoutArguments(message: string, args: readonly string[], known: readonly string[]): string {
  const words = args
    .flatMap((arg) => (arg.startsWith("--") && arg.includes("=") ? [arg, arg.slice(0, arg.indexOf("="))] : [arg]))
    // Shorter words are no secret, and replacing them would garble the message.
    .filter((word) => word.length >= 4 && !known.includes(word))
    .sort((a, b) => b.length - a.length);
  let out = message;
  for (const word of words) out = out.split(word).join(NOT_SHOWN);
  return out;
}

/** A known spelling the typed name differs from only in case, dashes and underscores (ours: safe to print). */
function suggestion(name: string, byName: Map<string, OptionSpec>): string {
  const normalized = normalize(name);
  for (const known of byName.keys()) if (normalize(known) === normalized) return ` (did you mean ${known}?)`;
  // A letter missing, extra or wrong (--scope for --scopes): the option is named, the word still is not.
  if (normalized.length >= 4)
    for (const known of byName.keys())
      if (editDistance(normalize(known), normalized, 1) <= 1) return ` (did you mean ${known}?)`;
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
