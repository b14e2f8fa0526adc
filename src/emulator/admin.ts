/**
 * The admin API under EMULATOR_PATHS.admin, for tests that run the emulator in another process.
 * JSON in, JSON out. Refused to browsers of other origins and to other Host names (DNS rebinding).
 */
import { DEMO_CLIENT, EMULATOR_PATHS } from "../shared/constants.js";
import { AWS_ADMIN_ACTIONS } from "./aws-admin.js";
import { CLIENT_ADMIN_ACTIONS } from "./client-status.js";
import { awsOf } from "./aws-state.js";
import type { RequestContext } from "./context.js";
import { HttpError, parseJson, readBody, sendJson } from "./http.js";
import { IAM_ADMIN_ACTIONS } from "./iam-admin.js";
import { ID_TOKEN_ADMIN_ACTIONS } from "./id-token-admin.js";
import type { EmulatorState } from "./state.js";
import { STS_ADMIN_ACTIONS } from "./sts-admin.js";
import { stsRefreshOf } from "./sts-refresh.js";
import type { Emulator, Fault, MetadataIdentity, MetadataPlatform } from "./types.js";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new HttpError(400, `"${key}" must be a string.`);
  return value;
}

function stringList(value: unknown, key: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string"))
    throw new HttpError(400, `"${key}" must be an array of strings.`);
  return value as string[];
}

function parseIdentity(value: unknown): MetadataIdentity | null {
  if (value === null || value === undefined) return null;
  if (!isObject(value) || typeof value.projectId !== "string" || typeof value.email !== "string") {
    throw new HttpError(
      400,
      'Metadata identity must be null or {"projectId": string, "email": string, "scopes"?: string[]}.',
    );
  }
  return {
    projectId: value.projectId,
    email: value.email,
    ...(value.scopes !== undefined ? { scopes: stringList(value.scopes, "scopes") } : {}),
  };
}

/** Only our own loopback name: a DNS-rebinding page would send its own host name. */
function trustedRequest(ctx: RequestContext): boolean {
  const port = new URL(ctx.state.baseUrl).port;
  const host = ctx.req.headers.host ?? "";
  const origin = ctx.req.headers.origin;
  const hostOk = host === `127.0.0.1:${port}` || host === `localhost:${port}`;
  const originOk =
    origin === undefined || origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`;
  return hostOk && originOk;
}

type AdminAction = (emulator: Emulator, body: unknown, state: EmulatorState) => unknown;

const POST_ACTIONS: Record<string, AdminAction> = {
  "/fail": (emulator, body) => {
    const input = isObject(body) ? body : {};
    const count = input.count ?? 1;
    if (typeof count !== "number" || !Number.isInteger(count) || count < 0)
      throw new HttpError(400, '"count" must be a non-negative integer.');
    const fault: Fault = {};
    if (input.kind !== undefined) fault.kind = input.kind as Fault["kind"];
    if (input.status !== undefined) fault.status = input.status as number;
    if (input.delayMs !== undefined) fault.delayMs = input.delayMs as number;
    if (input.error !== undefined) fault.error = input.error as string;
    if (input.target !== undefined) fault.target = input.target as Fault["target"];
    if (input.project !== undefined) fault.project = input.project as string;
    emulator.failNext(count, fault);
    return { ok: true, count };
  },
  "/reset": (emulator) => {
    emulator.reset();
    return { ok: true };
  },
  "/token-delay": (emulator, body) => {
    const ms = isObject(body) ? body.ms : undefined;
    if (typeof ms !== "number" || !(ms >= 0)) throw new HttpError(400, '"ms" must be a non-negative number.');
    emulator.setTokenDelay(ms);
    return { ok: true };
  },
  "/revoke": (emulator, body) => {
    if (!isObject(body)) throw new HttpError(400, 'Send {"refresh_token": "..."} or {"all": true}.');
    if (body.all === true) {
      emulator.revokeAll();
      return { ok: true };
    }
    const token = optionalString(body, "refresh_token");
    if (!token) throw new HttpError(400, 'Send {"refresh_token": "..."} or {"all": true}.');
    emulator.revokeRefreshToken(token);
    return { ok: true };
  },
  "/reauth": (emulator, body) => {
    const account = isObject(body) ? optionalString(body, "account") : undefined;
    emulator.requireReauth(account);
    return { ok: true };
  },
  "/metadata": (emulator, body) => {
    emulator.setMetadata(parseIdentity(body));
    return { ok: true };
  },
  /** `{"platform": "compute-engine" | "cloud-run"}`: whether the metadata token path honours `?scopes=`. */
  "/metadata-platform": (emulator, body) => {
    const platform = isObject(body) ? body.platform : undefined;
    emulator.setMetadataPlatform(platform as MetadataPlatform);
    return { ok: true, platform };
  },
  // The reply is a complete `authorized_user` credentials file: `curl ... > credentials.json` works.
  "/refresh-token": (emulator, body, state) => {
    if (!isObject(body)) throw new HttpError(400, 'Send {"scopes": [...], "clientId"?: string, "account"?: string}.');
    const clientId = optionalString(body, "clientId") ?? DEMO_CLIENT.clientId;
    const account = optionalString(body, "account");
    const scopes = stringList(body.scopes, "scopes");
    const refreshToken = emulator.issueRefreshToken({ scopes, clientId, ...(account ? { account } : {}) });
    return {
      type: "authorized_user",
      client_id: clientId,
      client_secret: state.clients.get(clientId)?.clientSecret,
      refresh_token: refreshToken,
      token_uri: state.tokenUrl,
    };
  },
  "/service-account-key": (emulator, body) => {
    const input = isObject(body) ? body : {};
    const projectId = optionalString(input, "projectId");
    const email = optionalString(input, "email");
    return emulator.createServiceAccountKey({ ...(projectId ? { projectId } : {}), ...(email ? { email } : {}) });
  },
  "/check-access-token": (emulator, body) => {
    const token = isObject(body) ? optionalString(body, "token") : undefined;
    if (!token) throw new HttpError(400, 'Send {"token": "..."}.');
    return { info: emulator.checkAccessToken(token) };
  },
  ...STS_ADMIN_ACTIONS,
  ...IAM_ADMIN_ACTIONS,
  ...AWS_ADMIN_ACTIONS,
  ...ID_TOKEN_ADMIN_ACTIONS,
  ...CLIENT_ADMIN_ACTIONS,
};

/** The EC2 instance the IMDS plays, as `GET /__emulator` shows it. */
function awsInstanceOf(state: EmulatorState, emulator: Emulator): Record<string, unknown> {
  const aws = awsOf(state);
  return {
    imdsUrl: emulator.awsImdsUrl,
    availabilityZone: aws.availabilityZone,
    roleName: aws.roleName,
    accountId: aws.accountId,
    imdsV1: aws.imdsV1,
  };
}

export async function handleAdmin(ctx: RequestContext, emulator: Emulator): Promise<void> {
  const { req, res, state } = ctx;
  if (!trustedRequest(ctx)) {
    sendJson(res, 403, {
      error: "forbidden",
      error_description: "The admin API answers only same-origin loopback requests.",
    });
    return;
  }
  const sub = ctx.url.pathname.slice(EMULATOR_PATHS.admin.length).replace(/\/+$/, "");
  if (req.method === "GET" && sub === "/stats") {
    sendJson(res, 200, emulator.stats());
    return;
  }
  if (req.method === "GET" && sub === "") {
    sendJson(res, 200, {
      url: emulator.url,
      host: emulator.host,
      accounts: state.accounts,
      clients: [...state.clients.values()].map((c) => ({ clientId: c.clientId, type: c.type })),
      metadata: state.metadata,
      metadataPlatform: state.metadataPlatform,
      accessTokenLifetimeSec: state.lifetimeSec,
      refreshTokenLifetimeSec: state.refreshLifetimeMs === null ? null : state.refreshLifetimeMs / 1000,
      refreshTokensPerClient: state.refreshTokensPerClient,
      granularConsent: state.granularConsent,
      codePage: state.codePageEnabled,
      refreshGrantAudienceParameters: state.refreshGrantAudienceParameters,
      stsRefreshTokenRotation: stsRefreshOf(state).rotate,
      aws: awsInstanceOf(state, emulator),
    });
    return;
  }
  const action = POST_ACTIONS[sub];
  if (!action) {
    sendJson(res, 404, { error: "not_found", error_description: `No admin endpoint ${sub || "/"}.` });
    return;
  }
  if (req.method !== "POST") {
    sendJson(res, 405, { error: "method_not_allowed", error_description: "Use POST." }, { Allow: "POST" });
    return;
  }
  const body = parseJson(await readBody(req));
  try {
    sendJson(res, 200, action(emulator, body, state));
  } catch (error) {
    if (error instanceof HttpError) throw error;
    // RangeError and friends from the Emulator methods are caller mistakes.
    throw new HttpError(400, error instanceof Error ? error.message : String(error));
  }
}
