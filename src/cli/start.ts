// Runs the command line and exits. The entry of the bundle dist/cli-bundle.js (scripts/build.mjs),
// which dist/cli.js (src/cli.ts) loads.
import { main } from "./main.js";
import { stdoutPending } from "./output.js";

main(process.argv.slice(2)).then(
  (code) => exit(code),
  () => exit(1),
);

/** Exits once stdout has drained: a pending pipe write must not be cut off. */
function exit(code: number): void {
  process.exitCode = code;
  // Keep-alive sockets or timers of a refresh would otherwise hold the process open.
  // process.stdout is touched only if a command used it: creating it costs milliseconds.
  if (!stdoutPending()) process.exit(code);
  else process.stdout.once("drain", () => process.exit(code));
}
