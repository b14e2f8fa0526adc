import { HOSTED_PLATFORM_VARIABLES } from "../shared/hosted-platforms.js";
import { metadataEnvironment, type MetadataPlatform } from "./metadata.js";

/** Cloud Workstations (`GOOGLE_CLOUD_WORKSTATIONS=true`): the workstation's metadata server. */
export const cloudWorkstationsPlatform: MetadataPlatform = {
  name: "cloud-workstations",
  label: "Cloud Workstations",
  detect: (env) => env[HOSTED_PLATFORM_VARIABLES["cloud-workstations"]] === "true",
  whenNoToken:
    "set a service account in the workstation configuration, or run `gcloud auth application-default login` in the workstation.",
};

export const cloudWorkstations = metadataEnvironment(cloudWorkstationsPlatform);
