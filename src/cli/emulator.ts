// `cred-auth emulator`: the emulator's own command (src/emulator/main.ts), with its argument
// mistakes reported as usage errors.
import { parseEmulatorArgs, runEmulatorCommand } from "../emulator/main.js";
import { UsageError, withoutArguments } from "./args.js";
import { EMULATOR } from "./commands.js";
import { EXIT } from "./output.js";

/** Runs the emulator until SIGINT or SIGTERM. */
export async function runEmulator(args: readonly string[]): Promise<number> {
  try {
    parseEmulatorArgs([...args]);
  } catch (error) {
    // The emulator's own parser may quote what was typed: only our option names are printed.
    const message = (error as Error).message.replace(/\s*Usage:.*$/s, "");
    throw new UsageError(
      withoutArguments(
        message,
        args,
        EMULATOR.options.flatMap((o) => o.names),
      ),
      "emulator",
    );
  }
  await runEmulatorCommand([...args]);
  return EXIT.ok;
}
