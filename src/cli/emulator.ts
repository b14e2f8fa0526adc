// `cred-auth emulator`: the emulator's own command (src/emulator/main.ts), with its argument
// mistakes reported as usage errors.
import { parseEmulatorArgs, runEmulatorCommand } from "../emulator/main.js";
import { UsageError } from "./args.js";
import { EXIT } from "./output.js";

/** Runs the emulator until SIGINT or SIGTERM. */
export async function runEmulator(args: readonly string[]): Promise<number> {
  try {
    parseEmulatorArgs([...args]);
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/\s*Usage:.*$/s, ""), "emulator");
  }
  await runEmulatorCommand([...args]);
  return EXIT.ok;
}
