import { HOSTED_PLATFORM_VARIABLES } from "../shared/hosted-platforms.js";
import { metadataEnvironment, type MetadataPlatform } from "./metadata.js";

/** Colab Enterprise (`VERTEX_PRODUCT=COLAB_ENTERPRISE`): the runtime's metadata server. */
export const colabEnterprisePlatform: MetadataPlatform = {
  name: "colab-enterprise",
  label: "Colab Enterprise",
  detect: (env) => env[HOSTED_PLATFORM_VARIABLES["colab-enterprise"]] === "COLAB_ENTERPRISE",
  whenNoToken: "give the runtime an identity: end-user credentials or a service account in its runtime template.",
};

export const colabEnterprise = metadataEnvironment(colabEnterprisePlatform);
