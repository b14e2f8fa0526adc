import { HOSTED_PLATFORM_VARIABLES } from "../shared/hosted-platforms.js";
import { metadataEnvironment, type MetadataPlatform } from "./metadata.js";

/** Vertex AI Workbench instances (`VERTEX_PRODUCT=WORKBENCH_INSTANCE`): the instance's metadata server. */
export const vertexWorkbenchPlatform: MetadataPlatform = {
  name: "vertex-workbench",
  label: "Vertex AI Workbench",
  detect: (env) => env[HOSTED_PLATFORM_VARIABLES["vertex-workbench"]] === "WORKBENCH_INSTANCE",
  whenNoToken:
    "attach a service account to the instance, or run `gcloud auth application-default login` in its terminal.",
  // A Compute Engine VM: its metadata server ignores ?scopes= (hosted/metadata-scopes.ts).
  vm: {
    whenScopesMissing:
      "stop the instance, give its VM these scopes (gcloud compute instances set-service-account INSTANCE --zone ZONE --service-account SA --scopes SCOPES) and start it again; or ask for fewer scopes.",
  },
};

export const vertexWorkbench = metadataEnvironment(vertexWorkbenchPlatform);
