import { HOSTED_PLATFORM_VARIABLES } from "../shared/hosted-platforms.js";
import { metadataEnvironment, type MetadataPlatform } from "./metadata.js";

/** Cloud Workstations (`GOOGLE_CLOUD_WORKSTATIONS=true`): the workstation's metadata server. */
export const cloudWorkstationsPlatform: MetadataPlatform = {
  name: "cloud-workstations",
  label: "Cloud Workstations",
  detect: (env) => env[HOSTED_PLATFORM_VARIABLES["cloud-workstations"]] === "true",
  whenNoToken:
    "set a service account in the workstation configuration, or run `gcloud auth application-default login` in the workstation.",
  // A Compute Engine VM: its metadata server ignores ?scopes= (hosted/metadata-scopes.ts).
  vm: {
    whenScopesMissing:
      "add them to the workstation configuration (gcloud workstations configs update CONFIG --service-account-scopes SCOPES) and start the workstation again; or ask for fewer scopes.",
  },
};

export const cloudWorkstations = metadataEnvironment(cloudWorkstationsPlatform);
