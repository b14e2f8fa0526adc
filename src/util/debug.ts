import { ENV } from "../shared/constants.js";
import { debugText } from "../trust/text.js";

/** True when `CRED_AUTH_DEBUG` (1, true or yes) asks for details. */
export function debugEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(1|true|yes)$/i.test(env[ENV.debug]?.trim() ?? "");
}

/**
 * Writes `cred-auth: LINE` on stderr when {@link debugEnabled}; nothing otherwise. Never pass it a
 * secret; the line is made terminal-safe and a URL's user info taken out, as every message is.
 */
export function debug(env: NodeJS.ProcessEnv, line: string): void {
  if (debugEnabled(env)) process.stderr.write(`cred-auth: ${debugText(line)}\n`);
}
