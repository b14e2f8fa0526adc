// Dispatch: the program's flags, then one command of the registry (./commands/index.ts), its words parsed as it
// declares them; a command's module is evaluated only when it runs or for the help (print-token pays for none).
import { VERSION } from "../version.js";
import { type Command, EXIT_CODES, NOT_SHOWN, UsageError, commandHelp, didYouMean, parse } from "./command.js";
import { COMMANDS } from "./commands/index.js";
import { EXIT, exitCodeFor, reportError, writeOut } from "./output.js";

/** Runs the command line `argv` (without `node` and the script) and returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    return await dispatch(argv);
  } catch (error) {
    reportError(error);
    return exitCodeFor(error);
  }
}

async function dispatch([first, ...rest]: readonly string[]): Promise<number> {
  if (first === undefined) {
    process.stderr.write(programHelp());
    return EXIT.usage;
  }
  if (first === "-h" || first === "--help") return writeOut(programHelp());
  if (first === "--version" || first === "-v" || first === "-V") return writeOut(`${VERSION}\n`);
  if (first === "help") return writeOut(helpFor(rest));
  if (first.startsWith("-")) throw new UsageError(`unknown option ${NOT_SHOWN}; options go after the command`);
  const command = commandNamed(first);
  try {
    // config's actions and the emulator's flags are their own to read; their help is ours.
    const input = command.ownWords ? { words: [...rest], flags: {}, help: rest.some(isHelp) } : parse(command, rest);
    return input.help ? writeOut(commandHelp(command)) : await command.run(input);
  } catch (error) {
    if (error instanceof UsageError) error.command ??= command.name;
    throw error;
  }
}

const isHelp = (word: string): boolean => word === "-h" || word === "--help";

/** The command `name` names; the word itself is never echoed (a secret typed in the wrong place). */
function commandNamed(name: string): Command {
  // Behind Object.hasOwn: "constructor" is no command (trust/own.ts's rule, without its module on print-token's path).
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (load) return load();
  const names = Object.keys(COMMANDS);
  throw new UsageError(
    `unknown command ${NOT_SHOWN}${didYouMean(name, names, 2)}; the commands are ${names.join(", ")}`,
  );
}

/** `cred-auth help [COMMAND]`. */
function helpFor(names: readonly string[]): string {
  if (names.length === 0) return programHelp();
  if (names.length > 1 || !Object.hasOwn(COMMANDS, names[0] ?? ""))
    throw new UsageError(`help takes one command name: ${Object.keys(COMMANDS).join(", ")}`);
  return commandHelp(commandNamed(names[0] ?? ""));
}

export function programHelp(): string {
  const commands = Object.values(COMMANDS).map((load) => load());
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    "Usage: cred-auth COMMAND [OPTIONS]",
    "",
    "Get, save and print OAuth 2.0 credentials for Google Cloud APIs.",
    "",
    "Commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Options:",
    "  -h, --help     show this help (or `cred-auth COMMAND --help` for a command's)",
    "  -v, --version  print the version",
    "",
    EXIT_CODES,
    "Environment: CRED_AUTH_EMULATOR_HOST, CRED_AUTH_TOKEN_CACHE, CRED_AUTH_DEBUG, ... (see docs/cli.md in the package).",
    "",
  ].join("\n");
}
