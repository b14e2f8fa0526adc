/** Public types of the emulator's IAM Credentials side (kept apart so types.ts imports no handler). */

/** A service account and who may mint its access tokens. */
export interface ServiceAccountGrant {
  /** The account's e-mail, e.g. `deployer@my-project.iam.gserviceaccount.com`. */
  email: string;
  /**
   * IAM members holding roles/iam.serviceAccountTokenCreator on this account: `user:EMAIL`,
   * `serviceAccount:EMAIL`, a federated `principal://iam.googleapis.com/<pool>/subject/<sub>`, or
   * `principalSet://iam.googleapis.com/<pool>/*` (every identity of a pool). Default: none.
   */
  tokenCreators?: string[];
}

/** The IAM controls of the Emulator object (its `extends IamControls`). */
export interface IamControls {
  /** Adds a service account, or replaces its token creators when it exists. */
  addServiceAccount(grant: ServiceAccountGrant): void;
}
