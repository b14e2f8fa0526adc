/** Public types of the emulator. */
import type { AwsControls, AwsInstance } from "./aws-types.js";
import type { IamControls, ServiceAccountGrant } from "./iam-types.js";
import type { IdTokenControls, IdTokenOptions, IdTokenStats } from "./id-token-types.js";
import type { StsControls, StsRefreshTokenRotation } from "./sts-types.js";

/** An OAuth client the emulator accepts. */
export interface EmulatorClient {
  clientId: string;
  clientSecret: string;
  /** `installed` clients may redirect to any loopback URL; `web` clients only to their `redirectUris`. */
  type: "installed" | "web";
  redirectUris?: string[];
  /** Shown on the consent page (default: the client id). */
  name?: string;
  /** Its Google Cloud project (default `emulator-project`): ID tokens for another client need the same one. */
  project?: string;
}

/** The identity the GCE metadata server hands out. */
export interface MetadataIdentity {
  projectId: string;
  /** The default service account's e-mail. */
  email: string;
  /** Scopes of tokens when the request names none (default: cloud-platform). */
  scopes?: string[];
}

export interface EmulatorOptions extends IdTokenOptions {
  /** Port on 127.0.0.1 (default 0: a random free port). */
  port?: number;
  /** Lifetime of issued access tokens (default 3600). */
  accessTokenLifetimeSec?: number;
  /** Test accounts offered on the consent page (default alice, bob and carol at example.com). */
  accounts?: string[];
  /** Extra clients; DEMO_CLIENT (installed) and DEMO_WEB_CLIENT (web, redirecting to the code page) are always known. */
  clients?: EmulatorClient[];
  /** GCE metadata identity; null or absent: the metadata token, e-mail and project paths answer 404. */
  metadata?: MetadataIdentity | null;
  /**
   * Where the metadata server runs (default `compute-engine`: `?scopes=` is ignored and tokens
   * carry the identity's scopes; `cloud-run`: `?scopes=` is honoured).
   */
  metadataPlatform?: MetadataPlatform;
  /**
   * Scopes Google would know beyond the emulator's built-in list (cloud-platform, bigquery,
   * devstorage.*, drive, ...): any other scope gets Google's `invalid_scope` error page.
   */
  extraScopes?: string[];
  /**
   * Granular consent (default true, as Google shows it): one checkbox per scope, which the user
   * may untick; false: every scope asked is granted.
   */
  granularConsent?: boolean;
  /**
   * Lifetime of refresh tokens (default 604800: 7 days, an app whose publishing status is
   * "Testing"); null: they live until revoked (an app "In production").
   */
  refreshTokenLifetimeSec?: number | null;
  /** Refresh tokens per client and account (default 100, as Google); past it the oldest stops working. */
  refreshTokensPerClient?: number;
  /**
   * Serve the copy-paste code page and its web client (default true). false: only a Desktop
   * client exists, the code page answers 404, only loopback redirects work.
   */
  codePage?: boolean;
  /**
   * The refresh grant's parameters that ask for a user's ID token for another OAuth client, in
   * the order read (default `["target_audience", "audience"]`: google-auth-library 11 sends
   * `target_audience`, IAP's older desktop flow `audience`). `["target_audience"]` plays a server
   * that honours only google-auth-library's; `[]` one that honours neither (the signed-in client's
   * own token comes back).
   */
  refreshGrantAudienceParameters?: RefreshGrantAudienceParameter[];
  /**
   * Service accounts the IAM Credentials API knows, with the members holding
   * roles/iam.serviceAccountTokenCreator on each (see `addServiceAccount`).
   */
  serviceAccounts?: ServiceAccountGrant[];
  /**
   * How STS `/v1/oauthtoken` rotates refresh tokens (default true: each refresh answers a new
   * `refresh_token` and the presented one keeps working, as Google documents). false: no new
   * token. `"revoke-old"`: the fault that kills the presented token (see `StsRefreshTokenRotation`).
   */
  stsRefreshTokenRotation?: StsRefreshTokenRotation;
  /**
   * The EC2 instance the emulator's AWS instance metadata service (`/aws-imds`) plays: zone, role,
   * account, whether IMDSv1 is answered (default: us-east-1a, role emu-ec2-role, account
   * 111122223333, IMDSv2 required).
   */
  aws?: AwsInstance;
  /** Receives one line per request (method, path, status; never a query string or secret). */
  log?: (line: string) => void;
}

/**
 * How a faulted request is answered. `service-disabled` and `user-project-denied` are IAM
 * Credentials' own 403s (target "iam" only): the API is not enabled in the consumer project, or
 * the caller may not use that project.
 */
export type FaultKind =
  | "status"
  | "garbage"
  | "truncated"
  | "html"
  | "hang"
  | "reset"
  | "slow"
  | "service-disabled"
  | "user-project-denied";

/** A refresh-grant parameter that names another OAuth client as a user's ID-token audience. */
export type RefreshGrantAudienceParameter = "target_audience" | "audience";

/** Which server a fault is queued for. */
export type FaultTarget = "token" | "metadata" | "iam";

/**
 * Where the metadata server runs. `compute-engine` (default): a VM, whose token endpoint ignores
 * `?scopes=` and hands out the VM's access scopes. `cloud-run`: Cloud Run (also App Engine flex
 * and Cloud Functions), whose metadata server honours `?scopes=`.
 */
export type MetadataPlatform = "compute-engine" | "cloud-run";

/** How the token endpoint (or the metadata server, or IAM Credentials) misbehaves for a request. */
export interface Fault {
  /** Default "status". */
  kind?: FaultKind;
  /** HTTP status for "status" faults (default 503). */
  status?: number;
  /**
   * The OAuth `error` of a "status" fault (default: by status, e.g. 503 temporarily_unavailable).
   * Google also sends `internal_failure`, `server_error` or `temporarily_unavailable` inside a 400.
   */
  error?: string;
  /**
   * Which server misbehaves (default "token"); "metadata": the metadata server's token and
   * identity paths (errors in plain text); "iam": IAM Credentials (errors in Google's API JSON).
   */
  target?: FaultTarget;
  /**
   * The consumer project an IAM refusal names (`service-disabled`, `user-project-denied`); default:
   * the request's `x-goog-user-project`, else `123456789012`.
   */
  project?: string;
  /** Delay for "slow" faults (default 1000 ms); the request then succeeds normally. */
  delayMs?: number;
}

export interface EmulatorStats extends IdTokenStats {
  /** Every request to the token endpoint, faulted ones included. */
  tokenRequests: number;
  /** Token requests by `grant_type` ("(none)" when absent). */
  byGrant: Record<string, number>;
  /** Consent decisions (Allow or Deny) submitted on the consent page. */
  authorizations: number;
  /** Tokens revoked through the revoke endpoint. */
  revocations: number;
  /** Requests to the metadata server's token path (`.../service-accounts/default/token` or the e-mail), faulted ones included. */
  metadataTokenRequests: number;
  /** Requests to the fake Google APIs (storage, userinfo). */
  apiRequests: number;
  /** Requests to the IAM Credentials API (`generateAccessToken`, `generateIdToken`), refused ones included. */
  iamRequests: number;
  /** Requests to the AWS instance metadata service (`/aws-imds/...`), refused ones included. */
  awsImdsRequests: number;
}

/** What the emulator knows about an access token. */
export interface AccessTokenInfo {
  account: string;
  scopes: string[];
  clientId: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** What an admin does to an OAuth client on the Google Cloud console (docs/emulator.md, "A deleted or disabled client"). */
export interface ClientControls {
  /**
   * Deletes the client: its token requests answer 401 `deleted_client` and its sign-in page "Error 401:
   * deleted_client"; access tokens already issued keep working. A RangeError for an unknown client.
   */
  deleteClient(clientId: string): void;
  /** Disables the client: the same, with `disabled_client` and "The OAuth client was disabled." */
  disableClient(clientId: string): void;
  /** Undeletes or re-enables the client: its unexpired refresh tokens work again. */
  restoreClient(clientId: string): void;
}

export interface Emulator extends StsControls, IamControls, AwsControls, IdTokenControls, ClientControls {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  /** `127.0.0.1:PORT`: the value for CRED_AUTH_EMULATOR_HOST and GCE_METADATA_HOST. */
  readonly host: string;
  /** A snapshot of the counters. */
  stats(): EmulatorStats;
  /** Makes the next `count` token-endpoint (or metadata token, or IAM Credentials) requests fail with `fault` (default: 503). */
  failNext(count: number, fault?: Fault): void;
  /** Delays every token response by `ms` (0 = off). */
  setTokenDelay(ms: number): void;
  /** Revokes a refresh token and the access tokens issued from it. */
  revokeRefreshToken(refreshToken: string): void;
  /** Revokes every refresh and access token. */
  revokeAll(): void;
  /**
   * The organisation's reauthentication policy kicks in: refreshing a token of `account` (default:
   * every account) answers `invalid_grant` with `error_subtype: invalid_rapt` until it signs in again.
   */
  requireReauth(account?: string): void;
  setMetadata(identity: MetadataIdentity | null): void;
  /** Moves the metadata server to another platform (see {@link MetadataPlatform}). */
  setMetadataPlatform(platform: MetadataPlatform): void;
  /** Registers (or replaces) an OAuth client, e.g. an IAP resource's client named as a refresh grant's `audience`. */
  addClient(client: EmulatorClient): void;
  /** Mints a refresh token directly (no browser), e.g. to write test credential files. */
  issueRefreshToken(opts: { clientId?: string; scopes: string[]; account?: string }): string;
  /** Makes a service-account key JSON (real RSA key, token_uri = this emulator's /token) and registers its public key. */
  createServiceAccountKey(opts?: { projectId?: string; email?: string }): Record<string, string>;
  /** Who holds this access token, or null when unknown, revoked or expired. */
  checkAccessToken(token: string): AccessTokenInfo | null;
  /** Resets counters, pending faults and the token delay (tokens stay valid). */
  reset(): void;
  /** Stops listening and drops every connection, hung ones included. */
  close(): Promise<void>;
}
