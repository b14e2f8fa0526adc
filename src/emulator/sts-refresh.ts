/**
 * STS `POST /v1/oauthtoken`: the refresh grant of `external_account_authorized_user` files
 * (workforce users who signed in with `gcloud auth application-default login --login-config`),
 * client authenticated by HTTP Basic. As Google documents it, a reply may carry a new
 * `refresh_token`, and nothing says the presented one dies: it keeps working (gcloud never writes
 * the new one back, and its own workforce ADC works after a refresh). A rotation that kills the old
 * token (RFC 6749 section 6, RFC 9700 section 4.14.2: presenting a rotated one again revokes the
 * whole line) exists only as the fault `"revoke-old"`, for tests of a client's write-back.
 */
import { randomBytes } from "node:crypto";
import type { RequestContext } from "./context.js";
import { perState } from "./per-state.js";
import type { EmulatorState } from "./state.js";
import type { StsRefreshTokenRotation } from "./sts-types.js";

const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";

export interface StsReply {
  status: number;
  body: Record<string, unknown>;
}

export const oauthError = (error: string, description: string, status = 400): StsReply => ({
  status,
  body: { error, error_description: description },
});

interface ExternalRefresh {
  audience: string;
  clientId: string;
  clientSecret: string;
  account: string;
  /** The line of tokens rotated from one sign-in: under "revoke-old", reuse of a rotated one revokes all of them. */
  line: string;
  /** Set once rotated under "revoke-old": the token no longer works, and presenting it again is a replay. */
  rotated: boolean;
}

/** The refresh tokens STS has issued, and how it rotates them; one per emulator state. */
export class StsRefreshTokens {
  readonly tokens = new Map<string, ExternalRefresh>();
  rotate: StsRefreshTokenRotation;

  constructor(state: EmulatorState) {
    this.rotate = state.stsRefreshTokenRotation;
  }

  issue(record: Omit<ExternalRefresh, "line" | "rotated">, line = randomBytes(8).toString("hex")): string {
    const refreshToken = `1//emu.sts.${randomBytes(32).toString("base64url")}`;
    this.tokens.set(refreshToken, { ...record, line, rotated: false });
    return refreshToken;
  }

  /** Every token of a line stops working (a rotated token was presented again). */
  revokeLine(line: string): void {
    for (const [token, record] of this.tokens) if (record.line === line) this.tokens.delete(token);
  }
}

export const stsRefreshOf = perState((state) => new StsRefreshTokens(state));

/** The federated principal, as IAM names it. */
export function principalOf(audience: string, subject: string): string {
  const pool = audience.replace(/^\/\/iam\.googleapis\.com\//, "").replace(/\/providers\/[^/]+$/, "");
  return `principal://iam.googleapis.com/${pool}/subject/${subject}`;
}

export function refresh(ctx: RequestContext, p: Map<string, string>): StsReply {
  const tokens = stsRefreshOf(ctx.state);
  if (p.get("grant_type") !== "refresh_token")
    return oauthError(
      "unsupported_grant_type",
      `Invalid value for "grant_type": ${(p.get("grant_type") ?? "").slice(0, 100)}`,
    );
  const presented = p.get("refresh_token") ?? "";
  const record = tokens.tokens.get(presented);
  const client = rawBasic(ctx.req.headers.authorization);
  if (!client) return oauthError("invalid_client", "The client must authenticate with HTTP Basic.", 401);
  if (!record) return oauthError("invalid_grant", "The refresh token is invalid or has been revoked.");
  if (!basicMatches(client, record)) return oauthError("invalid_client", "The OAuth client was not found.", 401);
  if (record.rotated) {
    // A rotated token used again: someone holds a copy. The whole line goes (RFC 9700 4.14.2).
    tokens.revokeLine(record.line);
    return oauthError("invalid_grant", "The refresh token is invalid or has been revoked.");
  }
  const issued = ctx.state.issueAccessToken({
    account: principalOf(record.audience, record.account),
    scopes: [CLOUD_PLATFORM],
    clientId: record.clientId,
  });
  const body: Record<string, unknown> = {
    access_token: issued.access_token,
    expires_in: issued.expires_in,
    token_type: "Bearer",
  };
  if (tokens.rotate !== false) {
    record.rotated = tokens.rotate === "revoke-old";
    const { audience, clientId, clientSecret, account, line } = record;
    body.refresh_token = tokens.issue({ audience, clientId, clientSecret, account }, line);
  }
  return { status: 200, body };
}

/** `id:secret` of a Basic header, undecoded: google-auth-library sends them raw, RFC 6749 form-encoded. */
export function rawBasic(header: string | undefined): { id: string; secret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? undefined : { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

function formDecoded(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, " "));
  } catch {
    return undefined;
  }
}

export function basicMatches(
  client: { id: string; secret: string },
  record: { clientId: string; clientSecret: string },
): boolean {
  const raw = client.id === record.clientId && client.secret === record.clientSecret;
  const encoded = formDecoded(client.id) === record.clientId && formDecoded(client.secret) === record.clientSecret;
  return raw || encoded;
}
