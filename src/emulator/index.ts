/**
 * cred-auth's local Google-compatible identity provider: OAuth consent page, token, revoke and
 * tokeninfo endpoints, ID tokens with published keys, a GCE metadata server, protected services and
 * a few fake APIs, on 127.0.0.1 only. For tests,
 * CI and the quick start; it imports nothing from the library but its shared constants.
 *
 * @packageDocumentation
 */
export { startEmulator } from "./server.js";
export { approveSignIn } from "./browser.js";
export type { ApproveOptions, BrowserResult } from "./browser.js";
export { parseEmulatorArgs, runEmulatorCommand, DEFAULT_EMULATOR_PORT } from "./main.js";
export type { EmulatorCommandOptions } from "./main.js";
export { API_ROUTES } from "./apis.js";
export type { ApiRoute } from "./api-route.js";
export type {
  AccessTokenInfo,
  ClientControls,
  Emulator,
  EmulatorClient,
  EmulatorOptions,
  EmulatorStats,
  Fault,
  FaultKind,
  FaultTarget,
  MetadataIdentity,
  MetadataPlatform,
  RefreshGrantAudienceParameter,
} from "./types.js";
export { DEFAULT_ACCOUNTS } from "./state.js";
export { DEFAULT_AWS_AUDIENCE, DEFAULT_WORKFORCE_AUDIENCE, DEFAULT_WORKLOAD_AUDIENCE, STS_PATHS } from "./sts.js";
export type {
  ProviderType,
  ServedSubjectToken,
  StsControls,
  StsRefreshTokenRotation,
  SubjectTokenRequest,
} from "./sts-types.js";
export { AWS_IMDS_PATH } from "./aws-imds.js";
export type { AwsControls, AwsCredentials, AwsExternalAccountOptions, AwsInstance } from "./aws-types.js";
export type { IamControls, ServiceAccountGrant } from "./iam-types.js";
export type { IdTokenControls, IdTokenKeyIds, IdTokenOptions, IdTokenStats, RunService } from "./id-token-types.js";
export { DEMO_CLIENT, DEMO_WEB_CLIENT, EMULATOR_PATHS } from "../shared/constants.js";
