// `cred-auth emulator`: the emulator's own command (src/emulator/main.ts), with its argument
// mistakes reported as usage errors and a port it cannot listen on as a one-line connection error.
import { parseEmulatorArgs, runEmulatorCommand } from "../emulator/main.js";
import { CredConnectionError } from "../errors.js";
import { UsageError, withoutArguments } from "./args.js";
import { EMULATOR } from "./commands.js";
import { EXIT } from "./output.js";

/** Runs the emulator until SIGINT or SIGTERM. */
export async function runEmulator(args: readonly string[]): Promise<number> {
  let port: number;
  try {
    port = parseEmulatorArgs([...args]).port;
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
  try {
    await runEmulatorCommand([...args]);
  } catch (error) {
    throw listenFailure(error, port) ?? error;
  }
  return EXIT.ok;
}

/** The emulator could not listen on `port`: what to do, on one line (undefined for other errors). */
function listenFailure(error: unknown, port: number): CredConnectionError | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "EADDRINUSE")
    return new CredConnectionError(
      `port ${port} on 127.0.0.1 is already in use: stop what holds it, or choose another port with --port N (--port 0 picks a free one)`,
      { cause: error },
    );
  if (code === "EACCES")
    return new CredConnectionError(
      `this user may not listen on port ${port} of 127.0.0.1 (EACCES): choose a port above 1023 with --port N`,
      { cause: error },
    );
  return undefined;
}
