// Dispatch: the program's own flags, then one command, loaded only when it runs (print-token's
// cached path must not pay for login's imports, let alone google-auth-library's).
import { VERSION } from "../version.js";
import { UsageError, parseCommandArgs, safeName, type CommandSpec } from "./args.js";
import { COMMANDS, commandHelp, programHelp } from "./commands.js";
import { EXIT, exitCodeFor, noteStdoutStream, reportError, writeOut } from "./output.js";

/** Runs the command line `argv` (without `node` and the script) and returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    return await dispatch(argv);
  } catch (error) {
    reportError(error);
    return exitCodeFor(error);
  }
}

async function dispatch(argv: readonly string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    process.stderr.write(programHelp());
    return EXIT.usage;
  }
  if (first === "-h" || first === "--help") return writeOut(programHelp());
  if (first === "--version" || first === "-v" || first === "-V") return writeOut(`${VERSION}\n`);
  if (first === "help") return writeOut(helpFor(rest));
  if (first.startsWith("-")) throw new UsageError(`unknown option ${safeWord(first)}; options go after the command`);
  const spec = COMMANDS.find((c) => c.name === first);
  if (!spec)
    throw new UsageError(
      `unknown command ${safeWord(first)}; the commands are ${COMMANDS.map((c) => c.name).join(", ")}`,
    );
  try {
    return await runCommand(spec, rest);
  } catch (error) {
    if (error instanceof UsageError) error.command ??= spec.name;
    throw error;
  }
}

// Each command is loaded when it runs, through a typed getter: print-token's cached path must not
// pay for login's or config's imports. They live here, in the dispatcher, not in cli/lazy.ts: the
// commands import lazy.ts themselves, and a getter there would make a circle of types.
const emulatorCommand = (): typeof import("./emulator.js") => require("./emulator.js");
const configCommand = (): typeof import("./config.js") => require("./config.js");
const printTokenCommand = (): typeof import("./print-token.js") => require("./print-token.js");
const loginCommand = (): typeof import("./login.js") => require("./login.js");
const printIdentityTokenCommand = (): typeof import("./print-identity-token.js") =>
  require("./print-identity-token.js");
const statusCommand = (): typeof import("./status.js") => require("./status.js");
const revokeCommand = (): typeof import("./revoke.js") => require("./revoke.js");

async function runCommand(spec: CommandSpec, argv: readonly string[]): Promise<number> {
  if (spec.name === "emulator") {
    // The emulator parses its own flags; its help is ours.
    if (argv.includes("-h") || argv.includes("--help")) return writeOut(commandHelp(spec));
    noteStdoutStream();
    return emulatorCommand().runEmulator(argv);
  }
  if (spec.name === "config") {
    // config's words depend on its action (set KEY VALUE..., get KEY, list); it parses them itself.
    if (argv.includes("-h") || argv.includes("--help")) return writeOut(commandHelp(spec));
    return configCommand().config(argv);
  }
  const args = parseCommandArgs(spec, argv);
  if (args.help) return writeOut(commandHelp(spec));
  if (spec.name === "print-token") return printTokenCommand().printToken(args);
  if (spec.name === "print-identity-token") return printIdentityTokenCommand().printIdentityToken(args);
  if (spec.name === "status") return statusCommand().status(args);
  if (spec.name === "revoke") return revokeCommand().revoke(args);
  noteStdoutStream();
  return loginCommand().login(args);
}

/** `cred-auth help [COMMAND]`. */
function helpFor(names: readonly string[]): string {
  if (names.length === 0) return programHelp();
  const spec = COMMANDS.find((c) => c.name === names[0]);
  if (!spec || names.length > 1)
    throw new UsageError(`help takes one command name: ${COMMANDS.map((c) => c.name).join(", ")}`);
  return commandHelp(spec);
}

function safeWord(word: string): string {
  const safe = safeName(word);
  return safe === word ? JSON.stringify(word) : safe;
}
