/** Public types of the emulator's AWS side (kept apart so types.ts imports no handler). */

/** The EC2 instance whose metadata service (IMDS) the emulator plays. */
export interface AwsInstance {
  /** Default `us-east-1a` (the region is the zone without its last letter). */
  availabilityZone?: string;
  /** The instance profile's role; null: no role attached (the credentials paths answer 404). Default `emu-ec2-role`. */
  roleName?: string | null;
  /** The AWS account (12 digits) the role and its credentials belong to. Default `111122223333`. */
  accountId?: string;
  /**
   * Answer IMDSv1 requests, without a session token (default false: IMDSv2 required, as
   * `HttpTokens=required` instances and new instance types default to).
   */
  imdsV1?: boolean;
}

/** AWS security credentials the emulator issued (IMDS, or `issueAwsCredentials` for the environment). */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** The session token of temporary credentials; absent for a long-term access key. */
  sessionToken?: string;
  /** RFC 3339, Zulu; absent for a long-term access key. */
  expiration?: string;
  /** Who signs with them, as GetCallerIdentity names it: an assumed role or an IAM user. */
  arn: string;
}

/** Options of an `external_account` file with an AWS source (`environment_id: "aws1"`). */
export interface AwsExternalAccountOptions {
  /** Default `DEFAULT_AWS_AUDIENCE`. */
  audience?: string;
  /** Name the IMDSv2 session-token URL (default true). */
  imdsv2?: boolean;
  /** Leave out `region_url` and `url`: the region and keys come from the environment (default false). */
  environmentOnly?: boolean;
  /** `service_account_impersonation_url`: impersonate this service account after the exchange. */
  impersonate?: string;
}

/** The AWS controls of the Emulator object (its `extends AwsControls`). */
export interface AwsControls {
  /**
   * Base URL of the emulator's EC2 instance metadata service, `http://127.0.0.1:PORT/aws-imds`:
   * `PUT {base}/latest/api/token`, `GET {base}/latest/meta-data/...`.
   */
  readonly awsImdsUrl: string;
  /**
   * AWS credentials STS will accept in a signed GetCallerIdentity request, e.g. for the
   * `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN` environment. `temporary`
   * (default true): an assumed role's keys with a session token; false: an IAM user's long-term key.
   * `lifetimeSec` (temporary only, default 21600; negative: already expired).
   */
  issueAwsCredentials(opts?: { temporary?: boolean; lifetimeSec?: number }): AwsCredentials;
  /** The JSON of an `external_account` file whose AWS source is this emulator's IMDS and whose STS is this emulator. */
  awsExternalAccountFile(opts?: AwsExternalAccountOptions): Record<string, unknown>;
}
