// ID tokens in tests: checked by google-auth-library itself against the emulator's published keys.
import { type JWT, OAuth2Client, type TokenPayload, UserRefreshClient } from "google-auth-library";
import { DEMO_CLIENT, type Emulator } from "cred-auth/emulator";

/** The emulator's equivalents of Google's cert URLs (www.googleapis.com/oauth2/v1/certs and v3/certs). */
export function certEndpoints(emu: Emulator): {
  oauth2FederatedSignonPemCertsUrl: string;
  oauth2FederatedSignonJwkCertsUrl: string;
} {
  return {
    oauth2FederatedSignonPemCertsUrl: `${emu.url}/oauth2/v1/certs`,
    oauth2FederatedSignonJwkCertsUrl: `${emu.url}/oauth2/v3/certs`,
  };
}

/**
 * The payload of `idToken` once google-auth-library's `OAuth2Client.verifyIdToken` accepted it for
 * `audience` (signature against the emulator's certificates, Google's issuer, iat/exp); it throws
 * otherwise. A fresh client each time, so no certificate is cached between calls.
 */
export async function verifyIdToken(emu: Emulator, idToken: string, audience: string): Promise<TokenPayload> {
  const client = new OAuth2Client({ endpoints: certEndpoints(emu) });
  const ticket = await client.verifyIdToken({ idToken, audience });
  const payload = ticket.getPayload();
  if (!payload) throw new Error("verifyIdToken returned no payload");
  return payload;
}

/** A JWT's parts decoded without any check (to look at what a refused token holds, or its header). */
export function decodeJwtParts(token: string): { header: Record<string, unknown>; claims: Record<string, unknown> } {
  const [header, claims] = token
    .split(".")
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, "base64url").toString()));
  return { header, claims };
}

/**
 * google-auth-library's JWT always posts to Google's token URL: a request interceptor on its
 * transporter points it at `tokenUrl`, dropping the agent gaxios chose for Google's https URL
 * (docs/emulator.md, "With google-auth-library directly").
 */
export function pointJwtAt(client: JWT, tokenUrl: string): void {
  client.transporter.interceptors.request.add({
    resolved: async (options) => {
      if (options.url?.toString() === "https://oauth2.googleapis.com/token") {
        options.url = new URL(tokenUrl);
        delete options.agent;
      }
      return options;
    },
  });
}

/** google-auth-library's UserRefreshClient for a fresh refresh token of `account` (DEMO_CLIENT), on the emulator. */
export function emulatorUserClient(emu: Emulator, account: string, scopes: string[]): UserRefreshClient {
  return new UserRefreshClient({
    clientId: DEMO_CLIENT.clientId,
    clientSecret: DEMO_CLIENT.clientSecret,
    refreshToken: emu.issueRefreshToken({ scopes, account }),
    endpoints: { oauth2TokenUrl: `${emu.url}/token`, oauth2RevokeUrl: `${emu.url}/revoke` },
  });
}

export interface RefreshGrantOptions {
  scopes: string[];
  /** Default: DEMO_CLIENT. */
  client?: { clientId: string; clientSecret: string };
  account?: string;
  /** The refresh grant's `audience` (IAP's desktop flow). */
  audience?: string;
}

/** The token endpoint's reply to a refresh grant of a fresh refresh token (status and JSON). */
export async function refreshGrant(
  emu: Emulator,
  options: RefreshGrantOptions,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const client = options.client ?? DEMO_CLIENT;
  const refreshToken = emu.issueRefreshToken({
    clientId: client.clientId,
    scopes: options.scopes,
    ...(options.account ? { account: options.account } : {}),
  });
  const res = await fetch(`${emu.url}/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: client.clientId,
      client_secret: client.clientSecret,
      ...(options.audience !== undefined ? { audience: options.audience } : {}),
    }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}
