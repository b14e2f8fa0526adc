// `cred-auth emulator`: the emulator's own command (src/emulator/main.ts), which reads its own flags:
// their mistakes are usage errors here (no typed word echoed), a port it cannot listen on one line.
import { parseEmulatorArgs, runEmulatorCommand } from "../../emulator/main.js";
import { CredConnectionError } from "../../errors.js";
import { UsageError, defineCommand, flag, withoutArguments } from "../command.js";
import { EXIT, noteStdoutStream } from "../output.js";

export const emulator = defineCommand({
  name: "emulator",
  summary: "Run the local Google-compatible sign-in and token emulator (for tests, CI and trying things out).",
  words: [],
  ownWords: true,
  flags: {
    port: flag("--port", "port to listen on, on 127.0.0.1 (default 9099; 0 picks a free one)", "N"),
    metadataProject: flag(
      "--metadata-project",
      "also serve a metadata server with this project id (with --metadata-email)",
      "ID",
    ),
    metadataEmail: flag("--metadata-email", "the metadata server's account e-mail", "EMAIL"),
    metadataPlatform: flag(
      "--metadata-platform",
      "compute-engine (default: token ?scopes= ignored, the VM's scopes given) or cloud-run (?scopes= honoured)",
      "P",
    ),
    serviceAccount: flag(
      "--service-account",
      "a service account the IAM Credentials API knows, and who may mint its tokens (repeatable)",
      "EMAIL[=MEMBER,...]",
    ),
    runService: flag(
      "--run-service",
      "a protected service at /run/NAME that needs an ID token, with its custom audiences (repeatable)",
      "NAME[=AUDIENCE,...]",
    ),
    noCodePage: flag(
      "--no-code-page",
      "serve as Google serves a Desktop client: no web client, the code page answers 404",
    ),
    quiet: flag("--quiet", "do not log requests"),
  },
  more: () =>
    "It prints `export CRED_AUTH_EMULATOR_HOST=...`: set that and every cred-auth command talks to the emulator.",
  run: ({ words }) => runEmulator(words),
});

/** Runs the emulator until SIGINT or SIGTERM. */
async function runEmulator(args: readonly string[]): Promise<number> {
  let port: number;
  try {
    port = parseEmulatorArgs([...args]).port;
  } catch (error) {
    // The emulator's own parser may quote what was typed: only our option names are printed.
    const message = (error as Error).message.replace(/\s*Usage:.*$/s, "");
    const ours = Object.values(emulator.flags).flatMap((f) => f.names);
    throw new UsageError(withoutArguments(message, args, ours), "emulator");
  }
  noteStdoutStream();
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
