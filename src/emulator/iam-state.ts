/**
 * What the IAM Credentials side knows: service accounts, who holds
 * roles/iam.serviceAccountTokenCreator on each, and who the holder of an access token is as an IAM
 * member. One per emulator state.
 */
import type { IamControls, ServiceAccountGrant } from "./iam-types.js";
import { perState } from "./per-state.js";
import type { EmulatorState } from "./state.js";
import type { AccessTokenInfo } from "./types.js";

const EMAIL = /^[^\s@/:]+@[^\s@/:]+\.[^\s@/:]+$/;
/** Google's service-account unique ids: 21 digits. */
const UNIQUE_ID = /^\d{1,32}$/;
const EMAIL_MEMBER = /^(user|serviceAccount):(.+)$/;
const PRINCIPAL = /^principal:\/\/iam\.googleapis\.com\/\S+\/subject\/\S+$/;
const PRINCIPAL_SET = /^principalSet:\/\/iam\.googleapis\.com\/(\S+)\/\*$/;

export interface KnownAccount {
  email: string;
  tokenCreators: Set<string>;
}

/** True when `id` has a form Google accepts for an account: an e-mail or a numeric unique id. */
export function isAccountId(id: string): boolean {
  return EMAIL.test(id) || UNIQUE_ID.test(id);
}

function normalizeMember(member: unknown): string {
  const text = typeof member === "string" ? member : "";
  const match = EMAIL_MEMBER.exec(text);
  if (match && EMAIL.test(match[2])) return `${match[1]}:${match[2].toLowerCase()}`;
  if (PRINCIPAL.test(text) || PRINCIPAL_SET.test(text)) return text;
  throw new RangeError(
    `"${text.slice(0, 100)}" is not an IAM member: give user:EMAIL, serviceAccount:EMAIL, principal://iam.googleapis.com/... or principalSet://iam.googleapis.com/.../*.`,
  );
}

/** The grant, checked and with its members normalized; a RangeError says what is wrong. */
export function checkServiceAccountGrant(grant: ServiceAccountGrant): KnownAccount {
  const email = grant?.email;
  if (typeof email !== "string" || !EMAIL.test(email))
    throw new RangeError("A service account needs its e-mail address (NAME@PROJECT.iam.gserviceaccount.com).");
  if (grant.tokenCreators !== undefined && !Array.isArray(grant.tokenCreators))
    throw new RangeError(`Service account ${email}: tokenCreators must be an array of IAM members.`);
  return { email, tokenCreators: new Set((grant.tokenCreators ?? []).map(normalizeMember)) };
}

export class IamState {
  private readonly accounts = new Map<string, KnownAccount>();

  constructor(private readonly state: EmulatorState) {}

  /** Adds a service account, or replaces its token creators. */
  add(grant: ServiceAccountGrant): void {
    const account = checkServiceAccountGrant(grant);
    this.accounts.set(account.email.toLowerCase(), account);
  }

  /**
   * The e-mail of the service account an id (e-mail or unique id) names, when the emulator knows it:
   * added here, holding a key (createServiceAccountKey), or the metadata server's identity.
   */
  find(id: string): string | undefined {
    const emails = [
      ...[...this.accounts.values()].map((a) => a.email),
      ...this.state.serviceAccounts.keys(),
      ...(this.state.metadata ? [this.state.metadata.email] : []),
    ];
    const wanted = id.toLowerCase();
    return emails.find((email) => email.toLowerCase() === wanted || this.state.subjectOf(email) === id);
  }

  /** Whether `member` holds roles/iam.serviceAccountTokenCreator on the account `email`. */
  mayMint(member: string, email: string): boolean {
    const creators = this.accounts.get(email.toLowerCase())?.tokenCreators;
    if (!creators) return false;
    if (creators.has(member)) return true;
    return [...creators].some((creator) => {
      const pool = PRINCIPAL_SET.exec(creator)?.[1];
      return pool !== undefined && member.startsWith(`principal://iam.googleapis.com/${pool}/subject/`);
    });
  }

  /**
   * The IAM member an access token acts as: a federated principal as STS named it; a service
   * account for key (JWT bearer), metadata-server and impersonated tokens (their client is the
   * account itself or its unique id); otherwise the signed-in user.
   */
  memberOf(caller: AccessTokenInfo): string {
    const account = caller.account;
    if (account.startsWith("principal://")) return account;
    const serviceAccount =
      caller.clientId === account ||
      caller.clientId === this.state.subjectOf(account) ||
      account.toLowerCase().endsWith(".gserviceaccount.com");
    return `${serviceAccount ? "serviceAccount" : "user"}:${account.toLowerCase()}`;
  }
}

/** The IAM side of an emulator state (made on first use). */
export const iamOf = perState((state) => new IamState(state));

export function iamControls(iam: () => IamState): IamControls {
  return { addServiceAccount: (grant) => iam().add(grant) };
}
