#!/usr/bin/env node
// The cred-auth command line (`bin`). Kept tiny at load: print-token's cached path loads only
// the dispatcher, the token cache and the credentials-file reader (see src/cli/main.ts).
import { main } from "./cli/main.js";

main(process.argv.slice(2)).then(
  (code) => exit(code),
  () => exit(1),
);

/** Exits once stdout has drained: a pending pipe write must not be cut off. */
function exit(code: number): void {
  process.exitCode = code;
  // Keep-alive sockets or timers of a refresh would otherwise hold the process open.
  if (process.stdout.writableLength === 0) process.exit(code);
  else process.stdout.once("drain", () => process.exit(code));
}
