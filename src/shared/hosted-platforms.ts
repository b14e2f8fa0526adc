// The variable that marks each built-in hosted platform: hosted/ detects the platform by it, and
// runtime/detect.ts reads it as "the user's browser is elsewhere".
export const HOSTED_PLATFORM_VARIABLES = {
  colab: "COLAB_RELEASE_TAG",
  "colab-enterprise": "VERTEX_PRODUCT",
  "vertex-workbench": "VERTEX_PRODUCT",
  kaggle: "KAGGLE_KERNEL_RUN_TYPE",
  "cloud-shell": "CLOUD_SHELL",
  "cloud-workstations": "GOOGLE_CLOUD_WORKSTATIONS",
} as const;

export type HostedPlatformName = keyof typeof HOSTED_PLATFORM_VARIABLES;

/** Cloud workspaces without credentials of their own, where the browser is elsewhere too. */
const OTHER_REMOTE_WORKSPACE_VARIABLES = ["CODESPACES", "GITPOD_WORKSPACE_ID", "JUPYTERHUB_API_URL", "JUPYTERHUB_USER"];

/** Hosted or cloud workspaces whose browser is always elsewhere (runtime/detect.ts). */
export const REMOTE_WORKSPACE_VARIABLES: readonly string[] = [
  ...new Set<string>([...Object.values(HOSTED_PLATFORM_VARIABLES), ...OTHER_REMOTE_WORKSPACE_VARIABLES]),
];
