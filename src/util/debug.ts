import { debugEnabled } from "../shared/constants.js";
import { debugText } from "../trust/text.js";

/** `cred-auth: LINE` on stderr when debugging, terminal-safe and without a URL's user info; never pass a secret. */
export function debug(env: NodeJS.ProcessEnv, line: string): void {
  if (debugEnabled(env)) process.stderr.write(`cred-auth: ${debugText(line)}\n`);
}
