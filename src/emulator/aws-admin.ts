/**
 * The AWS controls of the Emulator object and their admin routes (spread into admin.ts's POST
 * actions): AWS keys for the environment, and `external_account` files with an AWS source.
 */
import { AWS_IMDS_PATH } from "./aws-imds.js";
import { awsOf, publicCredentials } from "./aws-state.js";
import { AWS_SUBJECT_TOKEN_TYPE } from "./aws-sigv4.js";
import type { AwsControls, AwsExternalAccountOptions } from "./aws-types.js";
import { HttpError } from "./http.js";
import type { EmulatorState } from "./state.js";
import { DEFAULT_AWS_AUDIENCE, STS_PATHS, stsOf } from "./sts.js";
import type { Emulator } from "./types.js";

/** What gcloud writes for an AWS source (`gcloud iam workload-identity-pools create-cred-config --aws`). */
const REGIONAL_VERIFICATION_URL = "https://sts.{region}.amazonaws.com?Action=GetCallerIdentity&Version=2011-06-15";
const EMAIL = /^[^\s@/:]+@[^\s@/:]+\.[^\s@/:]+$/;

function awsExternalAccountFile(state: EmulatorState, opts: AwsExternalAccountOptions = {}): Record<string, unknown> {
  const audience = opts.audience ?? DEFAULT_AWS_AUDIENCE;
  if (!stsOf(state).awsProviders.has(audience))
    throw new RangeError(
      'awsExternalAccountFile: give a registered AWS provider audience (addIdentityProvider(a, {type: "aws"})).',
    );
  if (opts.impersonate !== undefined && !EMAIL.test(opts.impersonate))
    throw new RangeError("awsExternalAccountFile: impersonate takes a service account's e-mail.");
  const imds = `${state.baseUrl}${AWS_IMDS_PATH}/latest`;
  return {
    type: "external_account",
    audience,
    subject_token_type: AWS_SUBJECT_TOKEN_TYPE,
    token_url: `${state.baseUrl}${STS_PATHS.token}`,
    credential_source: {
      environment_id: "aws1",
      ...(opts.environmentOnly
        ? {}
        : {
            region_url: `${imds}/meta-data/placement/availability-zone`,
            url: `${imds}/meta-data/iam/security-credentials`,
          }),
      regional_cred_verification_url: REGIONAL_VERIFICATION_URL,
      ...(opts.imdsv2 === false || opts.environmentOnly ? {} : { imdsv2_session_token_url: `${imds}/api/token` }),
    },
    ...(opts.impersonate
      ? {
          service_account_impersonation_url: `${state.baseUrl}/v1/projects/-/serviceAccounts/${opts.impersonate}:generateAccessToken`,
        }
      : {}),
  };
}

export function awsControls(state: EmulatorState): AwsControls {
  return {
    get awsImdsUrl() {
      return `${state.baseUrl}${AWS_IMDS_PATH}`;
    },
    issueAwsCredentials: (opts) => publicCredentials(awsOf(state).issue(opts)),
    awsExternalAccountFile: (opts) => awsExternalAccountFile(state, opts),
  };
}

type AwsAction = (emulator: Emulator, body: unknown) => unknown;

function input(body: unknown): Record<string, unknown> {
  return typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

function checked<T>(make: () => T): T {
  try {
    return make();
  } catch (error) {
    throw error instanceof RangeError ? new HttpError(400, error.message) : error;
  }
}

export const AWS_ADMIN_ACTIONS: Record<string, AwsAction> = {
  /** `{"temporary"?: boolean, "lifetimeSec"?: number}` → `{accessKeyId, secretAccessKey, sessionToken?, expiration?, arn}`. */
  "/aws-credentials": (emulator, body) => {
    const { temporary, lifetimeSec } = input(body);
    if (temporary !== undefined && typeof temporary !== "boolean")
      throw new HttpError(400, '"temporary" must be true or false.');
    if (lifetimeSec !== undefined && typeof lifetimeSec !== "number")
      throw new HttpError(400, '"lifetimeSec" must be a number.');
    return checked(() => emulator.issueAwsCredentials({ temporary, lifetimeSec }));
  },
  /** `{"audience"?, "imdsv2"?, "environmentOnly"?, "impersonate"?}` → a complete `external_account` file. */
  "/aws-external-account": (emulator, body) => {
    const { audience, imdsv2, environmentOnly, impersonate } = input(body);
    for (const [key, value, type] of [
      ["audience", audience, "string"],
      ["imdsv2", imdsv2, "boolean"],
      ["environmentOnly", environmentOnly, "boolean"],
      ["impersonate", impersonate, "string"],
    ] as const)
      if (value !== undefined && typeof value !== type) throw new HttpError(400, `"${key}" must be a ${type}.`);
    return checked(() =>
      emulator.awsExternalAccountFile({
        audience: audience as string | undefined,
        imdsv2: imdsv2 as boolean | undefined,
        environmentOnly: environmentOnly as boolean | undefined,
        impersonate: impersonate as string | undefined,
      }),
    );
  },
};
