import { ENV } from "../shared/constants.js";

/** Writes `cred-auth: LINE` on stderr when `CRED_AUTH_DEBUG=1` in `env`; nothing otherwise. Never pass it a secret. */
export function debug(env: NodeJS.ProcessEnv, line: string): void {
  if (env[ENV.debug] === "1") process.stderr.write(`cred-auth: ${line}\n`);
}
