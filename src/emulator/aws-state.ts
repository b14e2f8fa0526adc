/**
 * What the AWS side remembers: the EC2 instance the IMDS plays, its IMDSv2 session tokens, and
 * every AWS credential the emulator handed out (so STS can check a signature made with one).
 * One per emulator state.
 */
import { randomBytes } from "node:crypto";
import type { AwsCredentials, AwsInstance } from "./aws-types.js";
import { perState } from "./per-state.js";
import type { EmulatorState } from "./state.js";

/** IMDS instance-profile credentials last 6 hours (AWS, "Retrieve security credentials from instance metadata"). */
const INSTANCE_CREDENTIALS_SEC = 6 * 3600;
/** IMDS hands out fresh credentials at least 5 minutes before the old ones expire. */
const RENEW_BEFORE_MS = 5 * 60 * 1000;
const ZONE = /^[a-z]{2}(-[a-z]+)+-\d[a-z]$/;
const ACCOUNT = /^\d{12}$/;
const ROLE = /^[\w+=,.@-]{1,64}$/;

export interface IssuedAwsCredentials extends AwsCredentials {
  /** Epoch ms; Infinity for a long-term key. */
  expiresAt: number;
}

const upper = (bytes: number): string =>
  randomBytes(bytes)
    .toString("base64")
    .replace(/[^A-Za-z0-9]/g, "")
    .toUpperCase();

export class AwsState {
  readonly availabilityZone: string;
  readonly region: string;
  readonly roleName: string | null;
  readonly accountId: string;
  readonly imdsV1: boolean;
  readonly instanceId = `i-0${randomBytes(8).toString("hex").slice(0, 16)}`;
  /** IMDSv2 session tokens and when each expires (epoch ms). */
  readonly sessions = new Map<string, number>();
  /** Access key id -> the credentials. */
  readonly credentials = new Map<string, IssuedAwsCredentials>();
  private instanceCredentials: IssuedAwsCredentials | undefined;

  constructor(instance: AwsInstance = {}) {
    this.availabilityZone = instance.availabilityZone ?? "us-east-1a";
    if (!ZONE.test(this.availabilityZone))
      throw new RangeError("aws.availabilityZone must be an availability zone such as us-east-1a.");
    this.region = this.availabilityZone.slice(0, -1);
    this.roleName = instance.roleName === undefined ? "emu-ec2-role" : instance.roleName;
    if (this.roleName !== null && !ROLE.test(this.roleName))
      throw new RangeError("aws.roleName must be an IAM role name (1-64 of letters, digits and +=,.@_-), or null.");
    this.accountId = instance.accountId ?? "111122223333";
    if (!ACCOUNT.test(this.accountId)) throw new RangeError("aws.accountId must be 12 digits.");
    this.imdsV1 = instance.imdsV1 ?? false;
  }

  /** Temporary credentials of an assumed role (`ASIA...` with a session token) or an IAM user's key (`AKIA...`). */
  issue(opts: { temporary?: boolean; lifetimeSec?: number; arn?: string } = {}): IssuedAwsCredentials {
    const temporary = opts.temporary ?? true;
    const lifetimeSec = opts.lifetimeSec ?? INSTANCE_CREDENTIALS_SEC;
    if (!Number.isFinite(lifetimeSec)) throw new RangeError("issueAwsCredentials: lifetimeSec must be a number.");
    const expiresAt = temporary ? Date.now() + lifetimeSec * 1000 : Number.POSITIVE_INFINITY;
    const role = this.roleName ?? "emu-role";
    const issued: IssuedAwsCredentials = {
      accessKeyId: `${temporary ? "ASIA" : "AKIA"}${upper(16).padEnd(16, "X").slice(0, 16)}`,
      secretAccessKey: randomBytes(30).toString("base64"),
      arn:
        opts.arn ??
        (temporary
          ? `arn:aws:sts::${this.accountId}:assumed-role/${role}/${this.instanceId}`
          : `arn:aws:iam::${this.accountId}:user/emu-user`),
      expiresAt,
      ...(temporary
        ? {
            sessionToken: `IQoJb3JpZ2luX2VjE${randomBytes(96).toString("base64")}`,
            expiration: new Date(expiresAt).toISOString().replace(/\.\d+Z$/, "Z"),
          }
        : {}),
    };
    this.credentials.set(issued.accessKeyId, issued);
    return issued;
  }

  /** The instance profile's current credentials, renewed before they expire. */
  instanceRoleCredentials(): IssuedAwsCredentials {
    const current = this.instanceCredentials;
    if (current && current.expiresAt - Date.now() > RENEW_BEFORE_MS) return current;
    this.instanceCredentials = this.issue();
    return this.instanceCredentials;
  }

  /** A new IMDSv2 session token valid for `ttlSec` seconds. */
  openSession(ttlSec: number): string {
    const now = Date.now();
    for (const [token, expiresAt] of this.sessions) if (expiresAt <= now) this.sessions.delete(token);
    const token = randomBytes(42).toString("base64");
    this.sessions.set(token, now + ttlSec * 1000);
    return token;
  }

  sessionValid(token: string): boolean {
    const expiresAt = this.sessions.get(token);
    return expiresAt !== undefined && expiresAt > Date.now();
  }
}

/** The AWS side of an emulator state (made on first use, from the `aws` option). */
export const awsOf = perState((state: EmulatorState) => new AwsState(state.awsInstance));

/** Credentials as the public API shows them (without the internal expiry). */
export function publicCredentials(issued: IssuedAwsCredentials): AwsCredentials {
  const { accessKeyId, secretAccessKey, arn, sessionToken, expiration } = issued;
  return { accessKeyId, secretAccessKey, arn, ...(sessionToken ? { sessionToken, expiration } : {}) };
}
