import { CredAuthError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { ENV } from "../shared/constants.js";
import type { HostedPlatformName } from "../shared/hosted-platforms.js";
import { debug } from "../util/debug.js";
import { cloudShell } from "./cloud-shell.js";
import { cloudWorkstations } from "./cloud-workstations.js";
import { colab } from "./colab.js";
import { colabEnterprise } from "./colab-enterprise.js";
import { kaggle } from "./kaggle.js";
import type { HostedCredentials, HostedEnvironment } from "./types.js";
import { vertexWorkbench } from "./vertex-workbench.js";

export interface HostedAttempt {
  name: string;
  error: Error;
}

/** One environment per platform of shared/hosted-platforms.ts: the compiler keeps the two in step. */
export const builtInEnvironmentsByName: Readonly<Record<HostedPlatformName, HostedEnvironment>> = {
  colab,
  "colab-enterprise": colabEnterprise,
  "vertex-workbench": vertexWorkbench,
  kaggle,
  "cloud-workstations": cloudWorkstations,
  "cloud-shell": cloudShell,
};

/** The hosted environments tried before ADC, in order. */
export const builtInEnvironments: readonly HostedEnvironment[] = Object.values(builtInEnvironmentsByName);

/** Environments added by {@link registerHostedEnvironment}, newest first. */
const registered: HostedEnvironment[] = [];

/**
 * Adds a hosted environment that `default()` asks before the built-in ones and those registered earlier; returns
 * a function that removes it.
 *
 * ```ts
 * import { registerHostedEnvironment } from "cred-auth";
 * registerHostedEnvironment({
 *   name: "my-platform",
 *   detect: (env) => env.MY_PLATFORM === "1",
 *   async credentials(scopes, env) {
 *     return { credentials: await myPlatformClient(scopes), projectId: env.MY_PLATFORM_PROJECT ?? null };
 *   },
 * });
 * ```
 */
export function registerHostedEnvironment(environment: HostedEnvironment): () => void {
  const { name, detect, credentials } = environment ?? {};
  if (
    typeof name !== "string" ||
    name.trim() === "" ||
    typeof detect !== "function" ||
    typeof credentials !== "function"
  ) {
    throw new TypeError("registerHostedEnvironment() needs { name: string, detect(env), credentials(scopes, env) }.");
  }
  if (!registered.includes(environment)) registered.unshift(environment);
  return () => {
    const index = registered.indexOf(environment);
    if (index !== -1) registered.splice(index, 1);
  };
}

/** Whether `CRED_AUTH_HOSTED` turns the hosted layer off. */
export function hostedDisabledByEnv(env: NodeJS.ProcessEnv): boolean {
  return ["off", "false", "0", "no"].includes(env[ENV.hosted]?.trim().toLowerCase() ?? "");
}

/** Asks each hosted environment that detects itself until one gives credentials; never throws (failures are attempts). */
export async function tryHosted(
  scopes: readonly string[],
  choice: boolean | readonly HostedEnvironment[] = true,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ result?: HostedCredentials & { name: string }; attempts: HostedAttempt[] }> {
  const attempts: HostedAttempt[] = [];
  for (const environment of candidatesFor(choice, env)) {
    try {
      if (!environment.detect(env)) continue;
      const given = await environment.credentials(scopes, env);
      if (!given || typeof given.credentials?.getAccessToken !== "function") {
        throw new CredCredentialsError(`${environment.name}: credentials() gave no google-auth-library client.`, {
          code: ERROR_CODES.HOSTED_UNAVAILABLE,
        });
      }
      debug(
        env,
        `hosted environment ${environment.name}: credentials obtained${given.projectId ? ` (project ${given.projectId})` : ""}`,
      );
      return {
        result: { credentials: given.credentials, projectId: given.projectId ?? null, name: environment.name },
        attempts,
      };
    } catch (thrown) {
      const error = asNamedError(environment.name, thrown);
      attempts.push({ name: environment.name, error });
      debug(env, `hosted environment ${environment.name} failed, moving on: ${error.message}`);
    }
  }
  return { attempts };
}

/** The environments {@link tryHosted} asks, in order: none when `choice` is false or `CRED_AUTH_HOSTED` is off. */
function candidatesFor(choice: boolean | readonly HostedEnvironment[], env: NodeJS.ProcessEnv): HostedEnvironment[] {
  if (choice === false || hostedDisabledByEnv(env)) return [];
  return [...new Set([...(Array.isArray(choice) ? choice : []), ...registered, ...builtInEnvironments])];
}

/** The first hosted environment that detects itself (variables only), or undefined. */
export function detectedHostedEnvironment(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const environment of candidatesFor(true, env)) {
    try {
      if (environment.detect(env)) return environment.name;
    } catch {
      // a registered environment whose detect() throws is passed over, as tryHosted does
    }
  }
  return undefined;
}

/** The error as thrown when it is ours; anything else becomes a one-line error naming the environment. */
function asNamedError(name: string, thrown: unknown): Error {
  if (thrown instanceof CredAuthError) return thrown;
  const kind = thrown instanceof Error ? thrown.name : typeof thrown;
  const firstLine = thrown instanceof Error ? thrown.message.split("\n")[0].trim().slice(0, 200) : "";
  return new CredCredentialsError(`${name}: ${kind}${firstLine ? `: ${firstLine}` : ""}`, {
    cause: thrown,
    code: ERROR_CODES.HOSTED_UNAVAILABLE,
  });
}
