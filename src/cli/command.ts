// What a command is (typed flags, help and run: one file each in commands/), its words' parser and its help. A usage
// error names what was typed by its place, never prints it: a secret may be pasted where an option belongs.
import { CredAuthError, ERROR_CODES } from "../errors.js";
import { editDistance } from "../oauth/known-scopes.js";

/** One flag: its spellings (the first is shown), the name of its value when it takes one, its help. */
export interface Flag {
  names: readonly string[];
  help: string;
  /** The value's name (`SECONDS`); absent: a switch, true when given. */
  value?: string;
  /** Spellings that turn the switch off (`--no-check`); shown with `help` of their own, else hidden. */
  off?: { names: readonly string[]; help?: string };
  /** Spellings kept working but not listed in help. */
  hidden?: boolean;
}

/** A flag of `names` (a switch, or with `value` a flag that takes one). */
export function flag(names: string | readonly string[], help: string): Flag;
export function flag(names: string | readonly string[], help: string, value: string): Flag & { value: string };
export function flag(names: string | readonly string[], help: string, value?: string): Flag {
  return { names: typeof names === "string" ? [names] : names, help, ...(value === undefined ? {} : { value }) };
}

export type Flags = Record<string, Flag>;

/** What a command's run gets: its words, and each flag given, typed by its declaration. */
export interface Input<F extends Flags> {
  words: string[];
  flags: { [K in keyof F]?: F[K] extends { value: string } ? string : boolean };
}

/** A command of `cred-auth`: typed flags, help and run together. */
export interface Command<F extends Flags = Flags> {
  name: string;
  summary: string;
  /** Its words after the name, each with its help: `[FILE]` may be left out. */
  words: readonly (readonly [name: string, help: string])[];
  flags: F;
  /** Help after the flags (a function: some read a table only then). */
  more?: () => string;
  /** The usage line, when the words do not make it. */
  usage?: string;
  /** Words it reads itself (config's actions, the emulator's own parser): handed over unparsed. */
  ownWords?: true;
  run(input: Input<F>): Promise<number>;
}

/** `command`, its flags' types kept. */
export const defineCommand = <F extends Flags>(command: Command<F>): Command<F> => command;

/** A mistake on the command line (exit code 2). `command` names the help to point to. */
export class UsageError extends CredAuthError {
  command: string | undefined;
  constructor(message: string, command?: string) {
    super(message, { code: ERROR_CODES.USAGE });
    this.command = command;
  }
}

/** What a usage error says instead of a word the user typed. */
export const NOT_SHOWN = "(not shown: it may be a secret)";

/** Parses `argv` (the words after the command's name) as `command` declares them. Throws {@link UsageError}. */
export function parse<F extends Flags>(command: Command<F>, argv: readonly string[]): Input<F> & { help: boolean } {
  const spellings = new Map<string, [string, boolean]>();
  for (const [key, flag] of Object.entries(command.flags)) {
    for (const name of flag.names) spellings.set(name, [key, true]);
    for (const name of flag.off?.names ?? []) spellings.set(name, [key, false]);
  }
  const flags: Record<string, string | boolean> = {};
  const words: string[] = [];
  let help = false;
  for (let i = 0, ended = false; i < argv.length; i++) {
    const word = argv[i] as string;
    if (ended || word === "-" || !word.startsWith("-")) words.push(word);
    else if (word === "--") ended = true;
    else if (word === "-h" || word === "--help") help = true;
    else {
      const eq = word.indexOf("=");
      const name = eq === -1 ? word : word.slice(0, eq);
      const [key, on] = spellings.get(name) ?? [];
      if (key === undefined)
        throw new UsageError(
          `unknown option at argument ${i + 1} ${NOT_SHOWN}${didYouMean(name, [...spellings.keys()])}`,
        );
      const flag = command.flags[key] as Flag;
      if (flag.value === undefined || !on) {
        if (eq !== -1) throw new UsageError(`option ${name} takes no value`);
        flags[key] = on as boolean;
        continue;
      }
      const value = eq !== -1 ? word.slice(eq + 1) : argv[i + 1]?.startsWith("--") ? undefined : argv[++i];
      if (value === undefined) throw new UsageError(`option ${name} needs a value (${name} ${flag.value})`);
      flags[key] = value;
    }
  }
  const given = words.length;
  const required = command.words.filter(([name]) => !name.startsWith("[")).length;
  const most = command.words.length;
  if (!help && given < required) throw new UsageError(`missing ${command.words[given]?.[0]}`);
  // The words themselves are not echoed: one may be a secret typed in the wrong place.
  if (!help && given > most)
    throw new UsageError(`too many arguments: expected ${required === most ? most : `at most ${most}`}, got ${given}`);
  return { words, flags: flags as Input<F>["flags"], help };
}

/** ` (did you mean NAME?)`: a known name (ours: safe to print) `typed` differs from in case, dashes or `edits` letters. */
export function didYouMean(typed: string, known: readonly string[], edits = 1): string {
  const plain = (name: string) => name.replace(/^-+/, "").replace(/[-_]/g, "").toLowerCase();
  const near =
    known.find((name) => plain(name) === plain(typed)) ??
    (plain(typed).length >= 4 ? known.find((n) => editDistance(plain(n), plain(typed), edits) <= edits) : undefined);
  return near === undefined ? "" : ` (did you mean ${near}?)`;
}

/** Comma-separated scopes: trimmed, empties dropped, duplicates removed. */
export function parseScopes(text: string): string[] {
  const scopes = [...new Set(text.split(",").map((s) => s.trim()))].filter((s) => s !== "");
  if (scopes.length === 0) throw new UsageError("--scopes needs at least one scope");
  return scopes;
}

/** A positive number of seconds, as milliseconds. */
export function parseSeconds(text: string, flag: string): number {
  const seconds = Number(text);
  if (text.trim() === "" || !Number.isFinite(seconds) || seconds <= 0)
    throw new UsageError(`${flag} needs a positive number of seconds`);
  return Math.round(seconds * 1000);
}

/** One of `choices`, or a usage error naming them. */
export function oneOf<T extends string>(text: string | undefined, choices: readonly T[], flag: string): T | undefined {
  if (text === undefined || (choices as readonly string[]).includes(text)) return text as T | undefined;
  throw new UsageError(
    `${flag} must be ${choices.length > 2 ? "one of " : ""}${choices.join(choices.length > 2 ? ", " : " or ")}`,
  );
}

export const EXIT_CODES =
  "Exit codes: 0 success, 1 credentials error, 2 usage error, 3 connection error, 130 cancelled.";

/** A command's help: usage, summary, words and flags in two columns, more, exit codes. */
export function commandHelp(command: Command): string {
  const label = (names: readonly string[], value?: string) => {
    const kebab = names.slice(1).find((n) => n.includes("-", 2));
    const shown = kebab && names[0]?.includes("_") ? `${names[0]}, ${kebab}` : String(names[0]);
    return value ? `${shown} ${value}` : shown;
  };
  const rows: (readonly [string, string])[] = [
    ...command.words,
    ...Object.values(command.flags)
      .filter((f) => !f.hidden)
      .flatMap((f) => [
        [label(f.names, f.value), f.help] as const,
        ...(f.off?.help ? [[label(f.off.names), f.off.help] as const] : []),
      ]),
    ["-h, --help", "show this help"],
  ];
  const width = Math.min(34, Math.max(...rows.map(([name]) => name.length)));
  const usage = command.usage ?? [command.name, ...command.words.map(([w]) => w), "[OPTIONS]"].join(" ");
  return [
    `Usage: cred-auth ${usage}`,
    "",
    command.summary,
    "",
    ...rows.map(([name, help]) =>
      name.length > width ? `  ${name}\n  ${"".padEnd(width)}  ${help}` : `  ${name.padEnd(width)}  ${help}`,
    ),
    "",
    ...(command.more ? [command.more(), ""] : []),
    EXIT_CODES,
    "",
  ].join("\n");
}

/** `message` with each argument of 4+ characters not in `known` replaced by {@link NOT_SHOWN} (for others' parsers). */
export function withoutArguments(message: string, args: readonly string[], known: readonly string[]): string {
  const words = args
    .flatMap((arg) => (arg.startsWith("--") && arg.includes("=") ? [arg, arg.slice(0, arg.indexOf("="))] : [arg]))
    // Shorter words are no secret, and replacing them would garble the message.
    .filter((word) => word.length >= 4 && !known.includes(word))
    .sort((a, b) => b.length - a.length);
  return words.reduce((out, word) => out.split(word).join(NOT_SHOWN), message);
}
