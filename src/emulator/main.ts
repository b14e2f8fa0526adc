/**
 * `cred-auth emulator [--port N] [--metadata-project ID --metadata-email E] [--metadata-platform P]
 * [--service-account EMAIL[=MEMBERS]] [--run-service NAME[=AUDIENCE,...]] [--no-code-page]`: runs until SIGINT/SIGTERM.
 */
import { checkServiceAccountGrant } from "./iam-state.js";
import type { ServiceAccountGrant } from "./iam-types.js";
import type { RunService } from "./id-token-types.js";
import { checkRunService } from "./run-service.js";
import { startEmulator } from "./server.js";
import { checkMetadataPlatform } from "./state.js";
import type { MetadataIdentity, MetadataPlatform } from "./types.js";

export const DEFAULT_EMULATOR_PORT = 9099;

export interface EmulatorCommandOptions {
  port: number;
  metadata: MetadataIdentity | null;
  /** `--metadata-platform compute-engine|cloud-run` (default compute-engine: `?scopes=` ignored). */
  metadataPlatform: MetadataPlatform;
  quiet: boolean;
  /** false (`--no-code-page`): serve as Google serves a Desktop client, no web client or code page. */
  codePage: boolean;
  /** `--service-account EMAIL[=MEMBER,...]` (repeatable): IAM Credentials accounts and their token creators. */
  serviceAccounts: ServiceAccountGrant[];
  /** `--run-service NAME[=AUDIENCE,...]` (repeatable): protected services and their custom audiences. */
  runServices: RunService[];
}

const USAGE =
  "Usage: cred-auth emulator [--port N] [--metadata-project ID --metadata-email EMAIL] [--metadata-platform compute-engine|cloud-run] [--service-account EMAIL[=MEMBER,...]] [--run-service NAME[=AUDIENCE,...]] [--no-code-page] [--quiet]";

function flagValue(args: string[], i: number, flag: string): string {
  const value = args[i + 1];
  if (value === undefined || value.startsWith("--")) throw new Error(`${flag} needs a value.`);
  return value;
}

/** Parses the command's arguments; throws an Error with a one-line message on bad input. */
export function parseEmulatorArgs(args: string[]): EmulatorCommandOptions {
  let port = DEFAULT_EMULATOR_PORT;
  let project: string | undefined;
  let email: string | undefined;
  let metadataPlatform: MetadataPlatform = "compute-engine";
  let quiet = false;
  let codePage = true;
  const serviceAccounts: ServiceAccountGrant[] = [];
  const runServices: RunService[] = [];
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] =
      args[i].startsWith("--") && args[i].includes("=") ? args[i].split(/=(.*)/s, 2) : [args[i], undefined];
    const take = (): string => {
      if (inline !== undefined) return inline;
      const value = flagValue(args, i, flag);
      i += 1;
      return value;
    };
    switch (flag) {
      case "--port": {
        const text = take();
        const n = Number(text);
        if (!/^\d+$/.test(text) || n > 65535)
          // The value is not echoed: a secret pasted in the wrong place must not be printed.
          throw new Error("--port must be a number from 0 to 65535.");
        port = n;
        break;
      }
      case "--metadata-project":
        project = take();
        break;
      case "--metadata-email":
        email = take();
        break;
      case "--metadata-platform":
        try {
          metadataPlatform = checkMetadataPlatform(take());
        } catch {
          throw new Error("--metadata-platform must be compute-engine or cloud-run.");
        }
        break;
      case "--service-account":
        serviceAccounts.push(parseServiceAccount(take()));
        break;
      case "--run-service":
        runServices.push(parseRunService(take()));
        break;
      case "--quiet":
        quiet = true;
        break;
      case "--no-code-page":
        codePage = false;
        break;
      default:
        throw new Error(
          `Unknown option ${/^-{0,2}[A-Za-z][A-Za-z_-]{0,24}$/.test(flag) ? `"${flag}"` : "(unrecognised)"}. ${USAGE}`,
        );
    }
  }
  if ((project === undefined) !== (email === undefined)) {
    throw new Error("Give both --metadata-project and --metadata-email (or neither).");
  }
  return {
    port,
    metadata: project && email ? { projectId: project, email } : null,
    metadataPlatform,
    quiet,
    codePage,
    serviceAccounts,
    runServices,
  };
}

/** `EMAIL` or `EMAIL=MEMBER,MEMBER` (members such as user:alice@example.com hold the token-creator role). */
function parseServiceAccount(value: string): ServiceAccountGrant {
  const [email, members = ""] = value.split(/=(.*)/s, 2);
  const grant = { email, tokenCreators: members.split(",").filter(Boolean) };
  checkServiceAccountGrant(grant);
  return grant;
}

/** `NAME` or `NAME=AUDIENCE,AUDIENCE` (custom audiences besides the service's URL). */
function parseRunService(value: string): RunService {
  const [name, audiences = ""] = value.split(/=(.*)/s, 2);
  const service = { name, customAudiences: audiences.split(",").filter(Boolean) };
  checkRunService(service);
  return service;
}

/**
 * Starts the emulator, prints where it listens and the environment to point cred-auth at it,
 * and resolves once SIGINT or SIGTERM closed it.
 */
export async function runEmulatorCommand(args: string[]): Promise<void> {
  const options = parseEmulatorArgs(args);
  const emulator = await startEmulator({
    port: options.port,
    metadata: options.metadata,
    metadataPlatform: options.metadataPlatform,
    codePage: options.codePage,
    serviceAccounts: options.serviceAccounts,
    runServices: options.runServices,
    ...(options.quiet ? {} : { log: (line: string) => process.stderr.write(`emulator: ${line}\n`) }),
  });
  process.stdout.write(`cred-auth emulator listening on ${emulator.url}\n`);
  process.stdout.write(`export CRED_AUTH_EMULATOR_HOST=${emulator.host}\n`);
  if (options.metadata) process.stdout.write(`export GCE_METADATA_HOST=${emulator.host}\n`);
  for (const { name } of options.runServices) process.stdout.write(`protected service: ${emulator.url}/run/${name}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      emulator.close().then(resolve, resolve);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
