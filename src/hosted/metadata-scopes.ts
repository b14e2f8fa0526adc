// The scopes a VM's metadata token really has: on Compute Engine the server ignores `?scopes=`, so a
// token would fail later on the API call. The VM's scopes are read and a missing requested one refused.
import { canonicalScope, isWellFormedScope } from "../oauth/scopes.js";
import { printable } from "../trust/text.js";

export const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";
const AUTH = "https://www.googleapis.com/auth/";

/** Scopes cloud-platform does not cover (sign-in, Workspace, consumer APIs); any other googleapis scope is Cloud's. */
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

/** Why a VM's credentials are refused: the scopes they lack, the VM's, and what to change; one printable line. */
export function vmScopesReason({ vmScopes, missing }: VmScopesShortfall, advice: string): string {
  const list = (scopes: readonly string[]) => scopes.map((scope) => printable(scope.slice(0, 200))).join(", ");
  return `the metadata server's token lacks ${list(missing)}: this VM's service account has the access scopes ${list(vmScopes)}, and a VM's token carries those whatever is asked; ${advice}`;
}
