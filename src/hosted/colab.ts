import { HOSTED_PLATFORM_VARIABLES } from "../shared/hosted-platforms.js";
import { metadataEnvironment, type MetadataPlatform } from "./metadata.js";

/** Google Colab: once the user authorized in Python, the runtime's metadata server serves their token (before, 404). */
export const colabPlatform: MetadataPlatform = {
  name: "colab",
  label: "Colab",
  detect: (env) => Boolean(env[HOSTED_PLATFORM_VARIABLES.colab]),
  whenNoToken:
    "authorize first: in a Python cell run `from google.colab import auth; auth.authenticate_user()`, or give Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, e.g. a key kept in Colab secrets).",
};

export const colab = metadataEnvironment(colabPlatform);
