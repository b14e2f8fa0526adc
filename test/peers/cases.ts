// The ADC file types the peers support, each as the emulator issues it, with what a peer must get:
// the account its token belongs to and the Google hosts it must have reached (through the proxy).
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_WORKFORCE_AUDIENCE, DEFAULT_WORKLOAD_AUDIENCE, DEMO_CLIENT } from "cred-auth/emulator";
import type { Emulator, EmulatorOptions } from "cred-auth/emulator";
import type { PeerName } from "../support/peers.ts";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
/** gcloud's scopes for `gcloud auth application-default login`: what a real authorized_user file was granted. */
const GCLOUD_ADC_SCOPES = [
  "openid",
  "https://www.googleapis.com/auth/userinfo.email",
  CLOUD,
  "https://www.googleapis.com/auth/sqlservice.login",
];
const WORKLOAD_POOL = "projects/123456789012/locations/global/workloadIdentityPools/emu-pool";
const WORKFORCE_POOL = "locations/global/workforcePools/emu-workforce";
export const IMPERSONATED = "peer-target@emu-project.iam.gserviceaccount.com";
const IMPERSONATION_URL = `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${IMPERSONATED}:generateAccessToken`;
const STS_URL = "https://sts.googleapis.com/v1/token";

/** The emulator the peers run against: the impersonation target lets a user and both pools mint its tokens. */
export const PEER_EMULATOR: EmulatorOptions = {
  serviceAccounts: [
    {
      email: IMPERSONATED,
      tokenCreators: [
        "user:alice@example.com",
        `principalSet://iam.googleapis.com/${WORKLOAD_POOL}/*`,
        `principalSet://iam.googleapis.com/${WORKFORCE_POOL}/*`,
      ],
    },
  ],
};

export interface AdcCase {
  name: string;
  peers: PeerName[];
  /**
   * The file's JSON; `dir` holds files it points at (a subject token) for as long as the test file
   * runs. null: no file at all (GOOGLE_APPLICATION_CREDENTIALS unset), ADC's last step, the metadata server.
   */
  file(emulator: Emulator, dir: string): Promise<Record<string, unknown> | null>;
  /** Whose token the peer must print. */
  account: RegExp;
  /** Google hosts the peer must have gone to, through the proxy. */
  hosts: string[];
  /** The class Python's google.auth.default() must choose. */
  pythonClass: string;
  /** The scopes the token must carry, when the case is about them. */
  scopes?: string[];
}

const ALL: PeerName[] = ["gcloud", "python", "google-auth-library"];
const exactly = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`);
const principal = (pool: string, subject: string) =>
  exactly(`principal://iam.googleapis.com/${pool}/subject/${subject}`);

function authorizedUser(emulator: Emulator): Record<string, unknown> {
  return {
    type: "authorized_user",
    client_id: DEMO_CLIENT.clientId,
    client_secret: DEMO_CLIENT.clientSecret,
    refresh_token: emulator.issueRefreshToken({ scopes: GCLOUD_ADC_SCOPES, account: "alice@example.com" }),
    // The emulator's own token URL: Python 2.39 and gcloud post to oauth2.googleapis.com whatever it says.
    token_uri: `${emulator.url}/token`,
  };
}

async function subjectTokenFile(emulator: Emulator, dir: string, audience: string, subject: string): Promise<string> {
  const file = join(dir, `${subject}.jwt`);
  await writeFile(file, emulator.issueSubjectToken({ audience, subject }), { mode: 0o600 });
  return file;
}

async function workloadFile(emulator: Emulator, dir: string, subject: string): Promise<Record<string, unknown>> {
  return {
    type: "external_account",
    audience: DEFAULT_WORKLOAD_AUDIENCE,
    subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
    token_url: STS_URL,
    credential_source: { file: await subjectTokenFile(emulator, dir, DEFAULT_WORKLOAD_AUDIENCE, subject) },
  };
}

async function workforceFile(emulator: Emulator, dir: string, subject: string): Promise<Record<string, unknown>> {
  return {
    type: "external_account",
    audience: DEFAULT_WORKFORCE_AUDIENCE,
    subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
    token_url: STS_URL,
    workforce_pool_user_project: "emu-project",
    credential_source: { file: await subjectTokenFile(emulator, dir, DEFAULT_WORKFORCE_AUDIENCE, subject) },
  };
}

function workforceUser(
  emulator: Emulator,
  file = emulator.issueExternalAccountAuthorizedUser({ account: "alice@example.com" }),
): Record<string, unknown> {
  return {
    ...file,
    token_url: "https://sts.googleapis.com/v1/oauthtoken",
    token_info_url: "https://sts.googleapis.com/v1/introspect",
  };
}

/**
 * A workforce user's file whose refresh token something else (cred-auth, another library) has
 * already refreshed, keeping the new token STS answered to itself: Google documents the new token
 * as optional and says nothing of the old one dying, so the file must keep working for every peer.
 */
async function refreshedWorkforceUser(emulator: Emulator): Promise<Record<string, unknown>> {
  const file = emulator.issueExternalAccountAuthorizedUser({ account: "alice@example.com" });
  const basic = Buffer.from(`${file.client_id}:${file.client_secret}`).toString("base64");
  const reply = await fetch(String(file.token_url), {
    method: "POST",
    headers: { Authorization: `Basic ${basic}`, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: String(file.refresh_token) }),
  });
  const body = (await reply.json()) as { refresh_token?: unknown };
  if (reply.status !== 200 || typeof body.refresh_token !== "string" || body.refresh_token === file.refresh_token)
    throw new Error(`the first refresh did not answer a new refresh token (${reply.status})`);
  return workforceUser(emulator, file);
}

function awsFile(emulator: Emulator, impersonate: boolean): Record<string, unknown> {
  return {
    ...emulator.awsExternalAccountFile(),
    token_url: STS_URL,
    ...(impersonate ? { service_account_impersonation_url: IMPERSONATION_URL } : {}),
  };
}

const impersonating = (source: Record<string, unknown>) => ({
  type: "impersonated_service_account",
  service_account_impersonation_url: IMPERSONATION_URL,
  source_credentials: source,
  delegates: [],
});

const AWS_ROLE_ARN = "arn:aws:sts::111122223333:assumed-role/emu-ec2-role/i-0[0-9a-f]{16}";

/** The VM's service account when a case turns the metadata server on (Compute Engine: ?scopes= ignored). */
export const VM_IDENTITY = {
  projectId: "emu-project",
  email: "vm-default@emu-project.iam.gserviceaccount.com",
  // A VM's scopes, not what the peers ask for (Python asks for cloud-platform): a VM ignores ?scopes=.
  scopes: ["https://www.googleapis.com/auth/devstorage.read_only", "https://www.googleapis.com/auth/logging.write"],
};

export const ADC_CASES: AdcCase[] = [
  {
    name: "authorized_user",
    peers: [...ALL, "debian-python"],
    file: async (emulator) => authorizedUser(emulator),
    account: exactly("alice@example.com"),
    hosts: ["oauth2.googleapis.com"],
    pythonClass: "google.oauth2.credentials.Credentials",
  },
  {
    name: "service_account",
    peers: [...ALL, "debian-python"],
    file: async (emulator) => ({
      ...emulator.createServiceAccountKey({
        email: "peer-key@emu-project.iam.gserviceaccount.com",
        projectId: "emu-project",
      }),
      token_uri: "https://oauth2.googleapis.com/token",
    }),
    account: exactly("peer-key@emu-project.iam.gserviceaccount.com"),
    hosts: ["oauth2.googleapis.com"],
    pythonClass: "google.oauth2.service_account.Credentials",
  },
  {
    name: "impersonated_service_account (authorized_user source)",
    peers: ALL,
    file: async (emulator) => impersonating(authorizedUser(emulator)),
    account: exactly(IMPERSONATED),
    hosts: ["oauth2.googleapis.com", "iamcredentials.googleapis.com"],
    pythonClass: "google.auth.impersonated_credentials.Credentials",
  },
  {
    name: "impersonated_service_account (external_account_authorized_user source: a workforce user)",
    peers: ALL,
    file: async (emulator) => impersonating(workforceUser(emulator)),
    account: exactly(IMPERSONATED),
    hosts: ["sts.googleapis.com", "iamcredentials.googleapis.com"],
    pythonClass: "google.auth.impersonated_credentials.Credentials",
  },
  {
    name: "external_account (workload pool, file source)",
    peers: ALL,
    file: (emulator, dir) => workloadFile(emulator, dir, "ci-file"),
    account: principal(WORKLOAD_POOL, "ci-file"),
    hosts: ["sts.googleapis.com"],
    pythonClass: "google.auth.identity_pool.Credentials",
  },
  {
    name: "external_account (workload pool, URL source)",
    peers: ALL,
    file: async (emulator) => ({
      type: "external_account",
      audience: DEFAULT_WORKLOAD_AUDIENCE,
      subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
      token_url: STS_URL,
      credential_source: {
        url: emulator.serveSubjectToken({
          token: emulator.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, subject: "ci-url" }),
          format: "json",
          field: "value",
          requiredHeader: { name: "Metadata", value: "True" },
        }),
        headers: { Metadata: "True" },
        format: { type: "json", subject_token_field_name: "value" },
      },
    }),
    account: principal(WORKLOAD_POOL, "ci-url"),
    hosts: ["sts.googleapis.com"],
    pythonClass: "google.auth.identity_pool.Credentials",
  },
  {
    name: "external_account (workforce pool with workforce_pool_user_project)",
    peers: ALL,
    file: (emulator, dir) => workforceFile(emulator, dir, "bob"),
    account: principal(WORKFORCE_POOL, "bob"),
    hosts: ["sts.googleapis.com"],
    pythonClass: "google.auth.identity_pool.Credentials",
  },
  {
    name: "external_account (workload pool) with service-account impersonation",
    peers: ALL,
    file: async (emulator, dir) => ({
      ...(await workloadFile(emulator, dir, "ci-impersonating")),
      service_account_impersonation_url: IMPERSONATION_URL,
    }),
    account: exactly(IMPERSONATED),
    hosts: ["sts.googleapis.com", "iamcredentials.googleapis.com"],
    pythonClass: "google.auth.identity_pool.Credentials",
  },
  {
    name: "external_account (workforce pool) with service-account impersonation",
    peers: ALL,
    file: async (emulator, dir) => ({
      ...(await workforceFile(emulator, dir, "carol")),
      service_account_impersonation_url: IMPERSONATION_URL,
    }),
    account: exactly(IMPERSONATED),
    hosts: ["sts.googleapis.com", "iamcredentials.googleapis.com"],
    pythonClass: "google.auth.identity_pool.Credentials",
  },
  {
    name: "external_account_authorized_user (workforce user)",
    peers: ALL,
    file: async (emulator) => workforceUser(emulator),
    account: principal(WORKFORCE_POOL, "alice@example.com"),
    hosts: ["sts.googleapis.com"],
    pythonClass: "google.auth.external_account_authorized_user.Credentials",
  },
  {
    name: "external_account_authorized_user (workforce user) refreshed first by another client",
    peers: ALL,
    file: refreshedWorkforceUser,
    account: principal(WORKFORCE_POOL, "alice@example.com"),
    hosts: ["sts.googleapis.com"],
    pythonClass: "google.auth.external_account_authorized_user.Credentials",
  },
  {
    name: "impersonated_service_account (a workforce user source refreshed first by another client)",
    peers: ALL,
    file: async (emulator) => impersonating(await refreshedWorkforceUser(emulator)),
    account: exactly(IMPERSONATED),
    hosts: ["sts.googleapis.com", "iamcredentials.googleapis.com"],
    pythonClass: "google.auth.impersonated_credentials.Credentials",
  },
  {
    name: "external_account (AWS, IMDSv2)",
    peers: ALL,
    file: async (emulator) => awsFile(emulator, false),
    account: new RegExp(`^principal://iam\\.googleapis\\.com/${WORKLOAD_POOL}/subject/${AWS_ROLE_ARN}$`),
    hosts: ["sts.googleapis.com"],
    pythonClass: "google.auth.aws.Credentials",
  },
  {
    name: "external_account (AWS, IMDSv2) with service-account impersonation",
    peers: ALL,
    file: async (emulator) => awsFile(emulator, true),
    account: exactly(IMPERSONATED),
    hosts: ["sts.googleapis.com", "iamcredentials.googleapis.com"],
    pythonClass: "google.auth.aws.Credentials",
  },
  {
    name: "no file: the GCE metadata server (Compute Engine)",
    peers: ALL,
    file: async (emulator) => {
      emulator.setMetadata(VM_IDENTITY);
      return null;
    },
    account: exactly(VM_IDENTITY.email),
    hosts: [],
    scopes: VM_IDENTITY.scopes,
    pythonClass: "google.auth.compute_engine.credentials.Credentials",
  },
];
