// Test helpers around the emulator: one per test file, closed after the file's tests.
import { after } from "node:test";
import { mkdir, open, rename } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_WORKLOAD_AUDIENCE, DEMO_CLIENT, startEmulator } from "cred-auth/emulator";
import type { Emulator, EmulatorOptions } from "cred-auth/emulator";

/** The emulator's workload identity pool (its STS audiences name it), as IAM's member identifiers write it. */
export const WORKLOAD_POOL = "projects/123456789012/locations/global/workloadIdentityPools/emu-pool";

/** IAM's identifier of one subject of the emulator's workload pool, as a Token Creator binding names it. */
export const workloadPrincipal = (subject: string): string =>
  `principal://iam.googleapis.com/${WORKLOAD_POOL}/subject/${subject}`;

/** Starts an emulator on a random loopback port and closes it after the current file (or suite). */
export async function withEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const emulator = await startEmulator(options);
  after(() => emulator.close());
  return emulator;
}

export interface TestCredentialsOptions {
  scopes: string[];
  /** Default: the first test account. */
  account?: string;
  /** Default: DEMO_CLIENT (its secret is known to the emulator). */
  client?: { clientId: string; clientSecret: string };
  /** File name inside `dir` (default "credentials.json"). */
  filename?: string;
}

/**
 * Writes an ADC `authorized_user` file whose refresh token the emulator accepts (mode 0600, atomic)
 * and returns its path.
 */
export async function testCredentialsFile(
  emulator: Emulator,
  dir: string,
  options: TestCredentialsOptions,
): Promise<string> {
  const client = options.client ?? DEMO_CLIENT;
  const refreshToken = emulator.issueRefreshToken({
    clientId: client.clientId,
    scopes: options.scopes,
    ...(options.account ? { account: options.account } : {}),
  });
  const file = {
    type: "authorized_user",
    client_id: client.clientId,
    client_secret: client.clientSecret,
    refresh_token: refreshToken,
    token_uri: `${emulator.url}/token`,
    scopes: options.scopes,
  };
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, options.filename ?? "credentials.json");
  const temp = `${path}.${process.pid}.tmp`;
  const handle = await open(temp, "w", 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(file, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
  return path;
}

/** An `external_account` file's JSON reading its subject token from `tokenFile`, for the emulator's workload pool. */
export function workloadFileJson(tokenFile: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: "external_account",
    audience: DEFAULT_WORKLOAD_AUDIENCE,
    subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
    token_url: "https://sts.googleapis.com/v1/token",
    credential_source: { file: tokenFile },
    ...extra,
  };
}
