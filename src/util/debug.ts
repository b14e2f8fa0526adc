import { ENV } from "../shared/constants.js";
import { debugText } from "../trust/text.js";

/** True when `CRED_AUTH_DEBUG` (1, true or yes) asks for details. */
export function debugEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(1|true|yes)$/i.test(env[ENV.debug]?.trim() ?? "");
}

/** `cred-auth: LINE` on stderr when debugging, terminal-safe and without a URL's user info; never pass a secret. */
export function debug(env: NodeJS.ProcessEnv, line: string): void {
  if (debugEnabled(env)) process.stderr.write(`cred-auth: ${debugText(line)}\n`);
}
