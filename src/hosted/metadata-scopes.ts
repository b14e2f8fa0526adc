/**
 * The scopes a VM's metadata token really has. On Compute Engine (and the VMs behind Vertex AI
 * Workbench and Cloud Workstations) the metadata server ignores `?scopes=`: its tokens carry the
 * VM's access scopes whatever is asked (google-auth-library-python compute_engine/credentials.py:
 * "On Compute Engine the metadata server ignores requested scopes. On Cloud Run, Flex and App Engine
 * the server honours requested scopes."). A token without a scope the caller needs fails later, on
 * the API call, with an error that does not say why; so the VM's scopes are read from
 * `instance/service-accounts/default/scopes` (Compute Engine's own list: a local request, no token
 * sent anywhere) and credentials that lack a requested scope are refused here, as a sign-in that
 * granted less than asked is (docs/hosted-notebooks.md).
 */
import { canonicalScope, isWellFormedScope } from "../oauth/scopes.js";
import { printable } from "../trust/text.js";

export const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";
const AUTH = "https://www.googleapis.com/auth/";

/**
 * Scopes cloud-platform does not cover: sign-in (userinfo), Google Workspace and consumer APIs. Any
 * other `https://www.googleapis.com/auth/...` scope names a Google Cloud API, which accepts a
 * cloud-platform token (BigQuery, Cloud Storage, Pub/Sub, ...).
 */
const BEYOND_CLOUD_PLATFORM =
  /^(?:userinfo|drive|documents|spreadsheets|presentations|forms|gmail|calendar|contacts|tasks|chat|classroom|admin|apps|script|keep|photoslibrary|youtube|yt-analytics|fitness|blogger|books|directory|plus)(?:[._]|$)/;

/** Whether a token with the `granted` scopes may be used where `scope` is asked for. */
function covers(granted: ReadonlySet<string>, scope: string): boolean {
  const wanted = canonicalScope(scope);
  if (granted.has(wanted)) return true;
  if (!granted.has(CLOUD_PLATFORM) || !wanted.startsWith(AUTH)) return false;
  return !BEYOND_CLOUD_PLATFORM.test(wanted.slice(AUTH.length));
}

/** The requested scopes a token with the `granted` scopes lacks (cloud-platform covers Google Cloud's). */
export function scopesBeyond(granted: readonly string[], requested: readonly string[]): string[] {
  const have = new Set(granted.map(canonicalScope));
  return requested.filter((scope) => !covers(have, scope));
}

/** The VM's access scopes from the metadata server's `.../default/scopes` text (one per line), or undefined when it is not such a list. */
export function parseVmScopes(text: string): string[] | undefined {
  const scopes = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  return scopes.length > 0 && scopes.length <= 100 && scopes.every(isWellFormedScope) ? scopes : undefined;
}

/** A VM's access scopes and the requested scopes they lack. */
export interface VmScopesShortfall {
  vmScopes: readonly string[];
  missing: readonly string[];
}

/**
 * Why a VM's credentials are refused: the scopes they lack, the VM's own, and what to change
 * (`advice`, the platform's words). One line, every scope printable.
 */
export function vmScopesReason({ vmScopes, missing }: VmScopesShortfall, advice: string): string {
  const list = (scopes: readonly string[]) => scopes.map((scope) => printable(scope.slice(0, 200))).join(", ");
  return `the metadata server's token lacks ${list(missing)}: this VM's service account has the access scopes ${list(vmScopes)}, and a VM's token carries those whatever is asked; ${advice}`;
}
