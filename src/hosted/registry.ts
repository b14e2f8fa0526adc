import type { HostedCredentials, HostedEnvironment } from "./types.js";

/** What one hosted environment said when asked. */
export interface HostedAttempt {
  name: string;
  error: Error;
}

/** The hosted environments tried before ADC (filled by src/hosted/*). */
const builtIns: HostedEnvironment[] = [];

/**
 * Asks the first hosted environment that detects itself for credentials.
 * `choice`: `true` built-ins, `false` none, an array: these first, then the built-ins.
 * Never throws: failures are returned as attempts so `default()` can report them.
 */
export async function tryHosted(
  scopes: readonly string[],
  choice: boolean | readonly HostedEnvironment[] = true,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ result?: HostedCredentials & { name: string }; attempts: HostedAttempt[] }> {
  const attempts: HostedAttempt[] = [];
  if (choice === false || env.CRED_AUTH_HOSTED === "off") return { attempts };
  const candidates = [...(Array.isArray(choice) ? choice : []), ...builtIns];
  for (const environment of candidates) {
    if (!environment.detect(env)) continue;
    try {
      return { result: { ...(await environment.credentials(scopes, env)), name: environment.name }, attempts };
    } catch (error) {
      attempts.push({ name: environment.name, error: error instanceof Error ? error : new Error(String(error)) });
    }
  }
  return { attempts };
}
