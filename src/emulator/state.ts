/** Everything the emulator remembers: clients, pending sign-ins, codes, tokens, keys, counters, faults. */
import { createHash, generateKeyPairSync, randomBytes, randomUUID, type KeyObject } from "node:crypto";
import { CLOUD_PLATFORM_SCOPE, DEMO_CLIENT, DEMO_WEB_CLIENT, EMULATOR_PATHS } from "../shared/constants.js";
import type { AwsInstance } from "./aws-types.js";
import type { StsRefreshTokenRotation } from "./sts-types.js";
import { emptyIdTokenStats } from "./id-token-types.js";
import { ScopeRegistry } from "./scopes.js";
import type {
  AccessTokenInfo,
  EmulatorClient,
  EmulatorOptions,
  EmulatorStats,
  Fault,
  FaultTarget,
  MetadataIdentity,
  MetadataPlatform,
  RefreshGrantAudienceParameter,
} from "./types.js";

export const DEFAULT_ACCOUNTS = ["alice@example.com", "bob@example.com", "carol@example.com"];
export const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
const CODE_LIFETIME_MS = 10 * 60 * 1000;
const PENDING_LIFETIME_MS = 30 * 60 * 1000;
/** Refresh tokens of an app in "Testing" status expire after 7 days (Google: "Testing" publishing status). */
export const TESTING_REFRESH_TOKEN_LIFETIME_SEC = 7 * 24 * 3600;
/** Google's limit of refresh tokens per OAuth client and account; past it the oldest stops working. */
export const REFRESH_TOKENS_PER_CLIENT = 100;
/** Expired entries are swept once a map grows past this, so a long-running emulator stays small. */
const SWEEP_THRESHOLD = 10_000;
/** Beyond this even live entries go, oldest first: a request flood must not exhaust memory. */
const HARD_LIMIT = 100_000;

/** Who consented to what, for which client. */
export interface Grant {
  account: string;
  scopes: string[];
  clientId: string;
}

export interface PendingAuthorization {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state?: string;
  codeChallenge?: string;
  offline: boolean;
  promptConsent: boolean;
  loginHint?: string;
  expiresAt: number;
}

export interface AuthorizationCode {
  grant: Grant;
  redirectUri: string;
  codeChallenge?: string;
  /** Whether the exchange hands out a refresh token. */
  withRefreshToken: boolean;
  expiresAt: number;
}

/** A live refresh token. */
export interface RefreshRecord extends Grant {
  /** Epoch ms; Infinity for an app "In production". */
  expiresAt: number;
  /** Issue order, to tell tokens minted before a reauthentication demand from later ones. */
  serial: number;
}

interface AccessRecord extends Grant {
  expiresAt: number;
  refreshToken?: string;
  offline: boolean;
}

export interface ServiceAccountKey {
  email: string;
  clientId: string;
  keyId: string;
  publicKey: KeyObject;
}

export interface IssuedAccessToken {
  access_token: string;
  expires_in: number;
}

const token = (prefix: string): string => `${prefix}${randomBytes(32).toString("base64url")}`;

function sweep<V extends { expiresAt: number }>(map: Map<string, V>): void {
  if (map.size < SWEEP_THRESHOLD) return;
  const now = Date.now();
  for (const [key, value] of map) if (value.expiresAt <= now) map.delete(key);
  for (const key of map.keys()) {
    if (map.size < HARD_LIMIT) break;
    map.delete(key);
  }
}

export function emptyStats(): EmulatorStats {
  return {
    tokenRequests: 0,
    byGrant: {},
    authorizations: 0,
    revocations: 0,
    metadataTokenRequests: 0,
    apiRequests: 0,
    iamRequests: 0,
    awsImdsRequests: 0,
    ...emptyIdTokenStats(),
  };
}

function emptyFaultQueues(): Record<FaultTarget, Fault[]> {
  return { token: [], metadata: [], iam: [] };
}

export const METADATA_PLATFORMS: readonly MetadataPlatform[] = ["compute-engine", "cloud-run"];

/** The platform, or a RangeError naming the ones there are. */
export function checkMetadataPlatform(platform: unknown): MetadataPlatform {
  if (typeof platform === "string" && (METADATA_PLATFORMS as readonly string[]).includes(platform))
    return platform as MetadataPlatform;
  throw new RangeError(`The metadata platform must be one of ${METADATA_PLATFORMS.join(", ")}.`);
}

/** The parameters, or a RangeError naming the ones there are. */
function checkedAudienceParameters(parameters: unknown): RefreshGrantAudienceParameter[] {
  const known: readonly unknown[] = ["target_audience", "audience"];
  if (!Array.isArray(parameters) || !parameters.every((p) => known.includes(p)))
    throw new RangeError('refreshGrantAudienceParameters: give a list of "target_audience" and "audience".');
  return [...new Set(parameters as RefreshGrantAudienceParameter[])];
}

/** STS refresh-token rotations (sts-types.ts says what each does). */
export const STS_ROTATIONS: readonly StsRefreshTokenRotation[] = [true, false, "revoke-old"];

/** `rotate` when it is one of {@link STS_ROTATIONS}; else a RangeError naming `where`. */
export function checkedRotation(rotate: unknown, where: string): StsRefreshTokenRotation {
  if (!STS_ROTATIONS.includes(rotate as StsRefreshTokenRotation))
    throw new RangeError(`${where}: give true, false or "revoke-old".`);
  return rotate as StsRefreshTokenRotation;
}

export class EmulatorState {
  baseUrl = "";
  readonly accounts: string[];
  readonly lifetimeSec: number;
  readonly clients = new Map<string, EmulatorClient>();
  metadata: MetadataIdentity | null;
  metadataPlatform: MetadataPlatform;
  /** The EC2 instance the AWS metadata service plays (aws-state.ts reads it). */
  readonly awsInstance: AwsInstance | undefined;
  /** The initial STS refresh-token rotation (sts-refresh.ts keeps the live switch). */
  readonly stsRefreshTokenRotation: StsRefreshTokenRotation;
  stats: EmulatorStats = emptyStats();
  /** Queued faults per server (failNext). */
  faultQueues: Record<FaultTarget, Fault[]> = emptyFaultQueues();
  readonly scopes: ScopeRegistry;
  readonly granularConsent: boolean;
  readonly codePageEnabled: boolean;
  /** The refresh grant's ID-token audience parameters, in the order read. */
  readonly refreshGrantAudienceParameters: readonly RefreshGrantAudienceParameter[];
  /** null: refresh tokens live until revoked. */
  readonly refreshLifetimeMs: number | null;
  readonly refreshTokensPerClient: number;
  /** Per account ("*": every account), the last refresh-token serial that needs reauthentication. */
  private readonly reauth = new Map<string, number>();
  private refreshSerial = 0;
  tokenDelayMs = 0;
  readonly pending = new Map<string, PendingAuthorization>();
  readonly codes = new Map<string, AuthorizationCode>();
  readonly refreshTokens = new Map<string, RefreshRecord>();
  readonly accessTokens = new Map<string, AccessRecord>();
  readonly serviceAccounts = new Map<string, ServiceAccountKey[]>();
  /** client id + account pairs that already received a refresh token (Google only repeats it on prompt=consent). */
  private readonly offlineGrants = new Set<string>();
  private serviceAccountCount = 0;

  constructor(options: EmulatorOptions) {
    this.accounts = options.accounts && options.accounts.length > 0 ? [...options.accounts] : [...DEFAULT_ACCOUNTS];
    const lifetime = options.accessTokenLifetimeSec ?? 3600;
    if (!(lifetime > 0)) throw new RangeError("accessTokenLifetimeSec must be a positive number of seconds.");
    this.lifetimeSec = lifetime;
    this.metadata = options.metadata ?? null;
    this.metadataPlatform = checkMetadataPlatform(options.metadataPlatform ?? "compute-engine");
    this.stsRefreshTokenRotation = checkedRotation(options.stsRefreshTokenRotation ?? true, "stsRefreshTokenRotation");
    this.awsInstance = options.aws;
    this.scopes = new ScopeRegistry(options.extraScopes);
    this.granularConsent = options.granularConsent ?? true;
    this.codePageEnabled = options.codePage ?? true;
    this.refreshGrantAudienceParameters = checkedAudienceParameters(
      options.refreshGrantAudienceParameters ?? ["target_audience", "audience"],
    );
    const refreshLifetime =
      options.refreshTokenLifetimeSec === undefined
        ? TESTING_REFRESH_TOKEN_LIFETIME_SEC
        : options.refreshTokenLifetimeSec;
    if (refreshLifetime !== null && !(refreshLifetime > 0))
      throw new RangeError("refreshTokenLifetimeSec must be a positive number of seconds, or null.");
    this.refreshLifetimeMs = refreshLifetime === null ? null : refreshLifetime * 1000;
    const perClient = options.refreshTokensPerClient ?? REFRESH_TOKENS_PER_CLIENT;
    if (!Number.isInteger(perClient) || perClient < 1)
      throw new RangeError("refreshTokensPerClient must be a positive integer.");
    this.refreshTokensPerClient = perClient;
    this.clients.set(DEMO_CLIENT.clientId, { ...DEMO_CLIENT, type: "installed", name: "cred-auth demo (emulator)" });
    // The web client's redirect URI needs the port, known only once listening: see redirectUrisOf().
    if (this.codePageEnabled) {
      this.clients.set(DEMO_WEB_CLIENT.clientId, {
        ...DEMO_WEB_CLIENT,
        type: "web",
        name: "cred-auth demo web (emulator)",
      });
    }
    for (const client of options.clients ?? []) this.clients.set(client.clientId, { ...client });
  }

  get tokenUrl(): string {
    return `${this.baseUrl}${EMULATOR_PATHS.token}`;
  }

  redirectUrisOf(client: EmulatorClient): string[] {
    const registered = client.redirectUris ?? [];
    return client.clientId === DEMO_WEB_CLIENT.clientId
      ? [...registered, `${this.baseUrl}${EMULATOR_PATHS.codePage}`]
      : registered;
  }

  clientName(clientId: string): string {
    return this.clients.get(clientId)?.name ?? clientId;
  }

  // ---- authorization ----

  addPending(request: Omit<PendingAuthorization, "expiresAt">): string {
    sweep(this.pending);
    const id = randomUUID();
    this.pending.set(id, { ...request, expiresAt: Date.now() + PENDING_LIFETIME_MS });
    return id;
  }

  /** Single use: the consent form of a request can be submitted once. */
  takePending(id: string): PendingAuthorization | undefined {
    const request = this.pending.get(id);
    this.pending.delete(id);
    return request && request.expiresAt > Date.now() ? request : undefined;
  }

  issueCode(request: PendingAuthorization, account: string): string {
    sweep(this.codes);
    const grant: Grant = { account, scopes: request.scopes, clientId: request.clientId };
    const pairKey = `${request.clientId}\n${account}`;
    const withRefreshToken = request.offline && (request.promptConsent || !this.offlineGrants.has(pairKey));
    if (withRefreshToken) this.offlineGrants.add(pairKey);
    const code = token("4/emu.");
    this.codes.set(code, {
      grant,
      redirectUri: request.redirectUri,
      withRefreshToken,
      expiresAt: Date.now() + CODE_LIFETIME_MS,
      ...(request.codeChallenge ? { codeChallenge: request.codeChallenge } : {}),
    });
    return code;
  }

  /** Single use: a code is gone after its first exchange attempt, good or bad. */
  takeCode(code: string): AuthorizationCode | undefined {
    const record = this.codes.get(code);
    this.codes.delete(code);
    return record && record.expiresAt > Date.now() ? record : undefined;
  }

  // ---- tokens ----

  issueRefreshToken(grant: Grant): string {
    const refreshToken = token("1//emu.");
    const expiresAt = this.refreshLifetimeMs === null ? Number.POSITIVE_INFINITY : Date.now() + this.refreshLifetimeMs;
    this.refreshSerial += 1;
    this.refreshTokens.set(refreshToken, {
      ...grant,
      scopes: [...grant.scopes],
      expiresAt,
      serial: this.refreshSerial,
    });
    this.offlineGrants.add(`${grant.clientId}\n${grant.account}`);
    this.enforceRefreshTokenLimit(grant);
    return refreshToken;
  }

  /** Past the per-client, per-account limit, the oldest refresh token silently stops working. */
  private enforceRefreshTokenLimit(grant: Grant): void {
    const mine = [...this.refreshTokens].filter(
      ([, r]) => r.clientId === grant.clientId && r.account === grant.account,
    );
    for (const [oldest] of mine.slice(0, Math.max(0, mine.length - this.refreshTokensPerClient))) {
      this.revokeRefreshToken(oldest);
    }
  }

  /** A live refresh token's record; an expired one is dropped. */
  refreshRecord(refreshToken: string): RefreshRecord | undefined {
    const record = this.refreshTokens.get(refreshToken);
    if (record && record.expiresAt <= Date.now()) {
      this.revokeRefreshToken(refreshToken);
      return undefined;
    }
    return record;
  }

  /** Refresh tokens of `account` (default: all) minted so far need a new sign-in (invalid_rapt). */
  requireReauth(account?: string): void {
    this.reauth.set(account ?? "*", this.refreshSerial);
  }

  needsReauth(record: RefreshRecord): boolean {
    const limit = Math.max(this.reauth.get("*") ?? 0, this.reauth.get(record.account) ?? 0);
    return record.serial <= limit;
  }

  /** `expiresAt` (epoch ms) overrides the emulator's lifetime, e.g. for an impersonated token's requested lifetime. */
  issueAccessToken(
    grant: Grant,
    opts: { refreshToken?: string; offline?: boolean; expiresAt?: number } = {},
  ): IssuedAccessToken {
    sweep(this.accessTokens);
    const accessToken = token("ya29.emu.");
    const expiresAt = opts.expiresAt ?? Date.now() + this.lifetimeSec * 1000;
    this.accessTokens.set(accessToken, {
      ...grant,
      scopes: [...grant.scopes],
      expiresAt,
      offline: opts.offline ?? opts.refreshToken !== undefined,
      ...(opts.refreshToken ? { refreshToken: opts.refreshToken } : {}),
    });
    const expiresIn = opts.expiresAt === undefined ? this.lifetimeSec : Math.round((expiresAt - Date.now()) / 1000);
    return { access_token: accessToken, expires_in: expiresIn };
  }

  accessRecord(accessToken: string): AccessRecord | undefined {
    const record = this.accessTokens.get(accessToken);
    if (!record) return undefined;
    if (record.expiresAt <= Date.now()) {
      this.accessTokens.delete(accessToken);
      return undefined;
    }
    return record;
  }

  checkAccessToken(accessToken: string): AccessTokenInfo | null {
    const record = this.accessRecord(accessToken);
    return record
      ? { account: record.account, scopes: [...record.scopes], clientId: record.clientId, expiresAt: record.expiresAt }
      : null;
  }

  revokeRefreshToken(refreshToken: string): boolean {
    if (!this.refreshTokens.delete(refreshToken)) return false;
    for (const [accessToken, record] of this.accessTokens) {
      if (record.refreshToken === refreshToken) this.accessTokens.delete(accessToken);
    }
    return true;
  }

  /** After a revocation removed the grant, the next consent hands out a refresh token again (grants.ts). */
  forgetOfflineGrant(clientId: string, account: string): void {
    this.offlineGrants.delete(`${clientId}\n${account}`);
  }

  revokeAll(): void {
    this.refreshTokens.clear();
    this.accessTokens.clear();
    this.codes.clear();
  }

  /** A stable numeric subject id per account, like Google's `sub`. */
  subjectOf(account: string): string {
    const digest = createHash("sha256").update(account.toLowerCase()).digest();
    return `1${(digest.readBigUInt64BE(0) % 10n ** 20n).toString().padStart(20, "0")}`;
  }

  // ---- metadata ----

  metadataScopes(): string[] {
    return this.metadata?.scopes && this.metadata.scopes.length > 0
      ? [...this.metadata.scopes]
      : [CLOUD_PLATFORM_SCOPE];
  }

  // ---- service accounts ----

  createServiceAccountKey(opts: { projectId?: string; email?: string } = {}): Record<string, string> {
    const projectId = opts.projectId ?? "emulator-project";
    this.serviceAccountCount += 1;
    const email = opts.email ?? `emulator-sa-${this.serviceAccountCount}@${projectId}.iam.gserviceaccount.com`;
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const keyId = randomBytes(20).toString("hex");
    const existing = this.serviceAccounts.get(email);
    const clientId = existing?.[0]?.clientId ?? this.subjectOf(email);
    this.serviceAccounts.set(email, [...(existing ?? []), { email, clientId, keyId, publicKey }]);
    return {
      type: "service_account",
      project_id: projectId,
      private_key_id: keyId,
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      client_email: email,
      client_id: clientId,
      auth_uri: `${this.baseUrl}${EMULATOR_PATHS.auth}`,
      token_uri: this.tokenUrl,
      auth_provider_x509_cert_url: `${this.baseUrl}/oauth2/v1/certs`,
      client_x509_cert_url: `${this.baseUrl}/robot/v1/metadata/x509/${encodeURIComponent(email)}`,
      universe_domain: "googleapis.com",
    };
  }

  // ---- counters and faults ----

  countTokenRequest(grantType: string | undefined): void {
    const key = grantType || "(none)";
    this.stats.tokenRequests += 1;
    this.stats.byGrant[key] = (this.stats.byGrant[key] ?? 0) + 1;
  }

  /** The next queued fault of a server (default: the token endpoint), if any. */
  takeFault(target: FaultTarget = "token"): Fault | undefined {
    return this.faultQueues[target].shift();
  }

  takeMetadataFault(): Fault | undefined {
    return this.takeFault("metadata");
  }

  snapshotStats(): EmulatorStats {
    return {
      ...this.stats,
      byGrant: { ...this.stats.byGrant },
      idTokensBySource: { ...this.stats.idTokensBySource },
    };
  }

  resetCounters(): void {
    this.stats = emptyStats();
    this.faultQueues = emptyFaultQueues();
    this.tokenDelayMs = 0;
  }
}
