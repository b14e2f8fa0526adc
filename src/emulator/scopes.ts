/**
 * Scopes as Google's authorization server treats them: which it knows, how it spells and orders
 * the granted ones, which the user may untick (granular consent).
 */

const AUTH = "https://www.googleapis.com/auth/";
export const EMAIL_SCOPE = `${AUTH}userinfo.email`;
export const PROFILE_SCOPE = `${AUTH}userinfo.profile`;
export const OPENID = "openid";

/** The OpenID Connect short names Google accepts, and what it grants for them. */
const SIGN_IN_ALIASES: Record<string, string> = { email: EMAIL_SCOPE, profile: PROFILE_SCOPE, openid: OPENID };

/**
 * Scopes Google knows, after `https://www.googleapis.com/auth/` (a sample of its list at
 * developers.google.com/identity/protocols/oauth2/scopes; extend with the `extraScopes` option).
 */
const KNOWN_SCOPE_NAMES = [
  "cloud-platform",
  "cloud-platform.read-only",
  "bigquery",
  "bigquery.readonly",
  "bigquery.insertdata",
  "devstorage.read_only",
  "devstorage.read_write",
  "devstorage.full_control",
  "drive",
  "drive.readonly",
  "drive.file",
  "drive.metadata.readonly",
  "spreadsheets",
  "spreadsheets.readonly",
  "gmail.readonly",
  "gmail.send",
  "calendar",
  "calendar.readonly",
  "compute",
  "compute.readonly",
  "sqlservice.admin",
  // gcloud's default application-default scopes include it (googlecloudsdk/core/config.py CLOUDSDK_SCOPES).
  "sqlservice.login",
  // Python google-auth and gcloud ask for it on the STS step before impersonating (google/auth/impersonated_credentials.py).
  "iam",
  "pubsub",
  "datastore",
  "logging.read",
  "logging.write",
  "monitoring",
  "monitoring.read",
  "appengine.admin",
  "cloud-bigtable.admin",
  "userinfo.email",
  "userinfo.profile",
];

/** Which scopes this emulator accepts: Google's known ones plus the app's extra ones. */
export class ScopeRegistry {
  private readonly known: Set<string>;

  constructor(extra: readonly string[] = []) {
    this.known = new Set([...KNOWN_SCOPE_NAMES.map((name) => AUTH + name), ...extra]);
  }

  /** Google's spelling of `scope`, or undefined when Google would answer `invalid_scope`. */
  canonical(scope: string): string | undefined {
    if (Object.hasOwn(SIGN_IN_ALIASES, scope)) return SIGN_IN_ALIASES[scope];
    return this.known.has(scope) ? scope : undefined;
  }

  /** The scopes Google would refuse, as asked. */
  invalid(scopes: readonly string[]): string[] {
    return scopes.filter((scope) => this.canonical(scope) === undefined);
  }

  /**
   * The scopes as Google grants them: its spelling, `openid` added with email or profile, no
   * duplicates, and its own order (e-mail, openid, profile, then the rest): never the asked order.
   */
  granted(scopes: readonly string[]): string[] {
    const set = new Set(scopes.map((s) => this.canonical(s) ?? s));
    if (set.has(EMAIL_SCOPE) || set.has(PROFILE_SCOPE)) set.add(OPENID);
    const head = [EMAIL_SCOPE, OPENID, PROFILE_SCOPE].filter((s) => set.has(s));
    const rest = [...set].filter((s) => !head.includes(s)).sort();
    return [...head, ...rest];
  }
}

/** Sign-in scopes are granted with the account itself: granular consent offers no checkbox for them. */
export function isSignInScope(canonicalScope: string): boolean {
  return canonicalScope === OPENID || canonicalScope === EMAIL_SCOPE || canonicalScope === PROFILE_SCOPE;
}

/** The `{invalid=[a, b]}` text of Google's invalid_scope page. */
export function invalidScopeDescription(invalid: readonly string[]): string {
  return `Some requested scopes were invalid. {invalid=[${invalid.join(", ")}]}`;
}
