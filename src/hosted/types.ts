import type { AuthClient } from "google-auth-library";

/** Credentials given by a hosted notebook platform. */
export interface HostedCredentials {
  /** A google-auth-library client that refreshes its own token (e.g. `Compute`, `OAuth2Client`). */
  credentials: AuthClient;
  /** The platform's project id, when it tells one. */
  projectId: string | null;
}

/** A hosted notebook environment (Colab, Kaggle, Vertex AI Workbench, ...) handing out its user's credentials. */
export interface HostedEnvironment {
  /** A short name used in debug lines and error messages, e.g. `colab`. */
  readonly name: string;
  /** Cheap detection from environment variables and files only: no network. */
  detect(env: NodeJS.ProcessEnv): boolean;
  /** Credentials that refresh themselves. Any error makes `default()` move on to ADC. */
  credentials(scopes: readonly string[], env: NodeJS.ProcessEnv): Promise<HostedCredentials>;
}
