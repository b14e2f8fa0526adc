import { HOSTED_PLATFORM_VARIABLES } from "../shared/hosted-platforms.js";
import { metadataEnvironment, type MetadataPlatform } from "./metadata.js";

/** Vertex AI Workbench instances (`VERTEX_PRODUCT=WORKBENCH_INSTANCE`): the instance's metadata server. */
export const vertexWorkbenchPlatform: MetadataPlatform = {
  name: "vertex-workbench",
  label: "Vertex AI Workbench",
  detect: (env) => env[HOSTED_PLATFORM_VARIABLES["vertex-workbench"]] === "WORKBENCH_INSTANCE",
  whenNoToken:
    "attach a service account to the instance, or run `gcloud auth application-default login` in its terminal.",
};

export const vertexWorkbench = metadataEnvironment(vertexWorkbenchPlatform);
