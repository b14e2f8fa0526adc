import { HOSTED_PLATFORM_VARIABLES } from "../shared/hosted-platforms.js";
import { messageOf } from "../util/thrown.js";
import { CredConnectionError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { platformClient } from "./clients.js";
import { askDevshell, DEVSHELL_TIMEOUT_MS, devshellPort } from "../os/devshell.js";
import { projectIdFromEnv, tokenCredentials } from "./http.js";
import { metadataCredentials, type MetadataPlatform } from "./metadata.js";
import type { HostedCredentials, HostedEnvironment } from "./types.js";

/** Cloud Shell (`CLOUD_SHELL=true`): its metadata server serves the signed-in user. */
export const cloudShellPlatform: MetadataPlatform = {
  name: "cloud-shell",
  label: "Cloud Shell",
  detect: (env) => env[HOSTED_PLATFORM_VARIABLES["cloud-shell"]] === "true" || devshellPort(env) !== undefined,
  whenNoToken: "sign in with `gcloud auth login` in Cloud Shell.",
};

/** Cloud Shell: the metadata server, then the devshell port (`DEVSHELL_CLIENT_PORT`) when set. */
export function cloudShellEnvironment(
  platform: MetadataPlatform = cloudShellPlatform,
  devshellTimeoutMs = DEVSHELL_TIMEOUT_MS,
): HostedEnvironment {
  return {
    name: platform.name,
    detect: platform.detect,
    async credentials(scopes, env) {
      const port = devshellPort(env);
      if (env.CLOUD_SHELL !== "true" && port !== undefined) return devshellCredentials(port, env, devshellTimeoutMs);
      try {
        return await metadataCredentials(platform, scopes, env);
      } catch (metadataError) {
        if (port === undefined) throw metadataError;
        try {
          return await devshellCredentials(port, env, devshellTimeoutMs);
        } catch (devshellError) {
          const bothUnreachable =
            metadataError instanceof CredConnectionError && devshellError instanceof CredConnectionError;
          const message = `${platform.label}: neither the metadata server nor the devshell port gave a token: ${reason(metadataError)} / ${reason(devshellError)}`;
          const cause = new AggregateError([metadataError, devshellError]);
          throw bothUnreachable
            ? new CredConnectionError(message, { cause, code: ERROR_CODES.UNREACHABLE })
            : new CredCredentialsError(message, { cause, code: ERROR_CODES.HOSTED_UNAVAILABLE });
        }
      }
    },
  };
}

export const cloudShell = cloudShellEnvironment();

async function devshellCredentials(
  port: number,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<HostedCredentials> {
  const token = async () => {
    const reply = await askDevshell(port, timeoutMs);
    return { reply, tokens: tokenCredentials(reply.accessToken, reply.expiresIn) };
  };
  const first = await token();
  const credentials = await platformClient(cloudShellPlatform.label, async () => (await token()).tokens);
  credentials.setCredentials(first.tokens);
  return { credentials, projectId: projectIdFromEnv(env) ?? first.reply.projectId };
}

function reason(error: unknown): string {
  const message = messageOf(error);
  return message.startsWith("Cloud Shell: ") ? message.slice("Cloud Shell: ".length) : message;
}
