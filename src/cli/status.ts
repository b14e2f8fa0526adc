// `cred-auth status [FILE] [--check] [--format text|json]`: which credentials default() would use
// (or FILE), why those, whose they are and how long the cached access token has left, from the
// files alone (credentials/status.ts); `--check` asks for a token. Exit 1 when nothing usable was
// found or the check failed.
import type { CredentialsStatus } from "../credentials/status.js";
import { printable, safeJson } from "../trust/text.js";
import { UsageError, type ParsedArgs } from "./args.js";
import { credentialsState } from "./lazy.js";
import { EXIT, writeOut } from "./output.js";

/** Prints the status of `args.positionals[0]`, or of the credentials default() would use. */
export async function status(args: ParsedArgs): Promise<number> {
  const format = args.options.format ?? "text";
  if (format !== "text" && format !== "json") throw new UsageError("--format must be text or json");
  const found = await credentialsState().credentialsStatus(args.positionals[0], { check: args.options.check === true });
  writeOut(format === "json" ? `${safeJson(asJson(found, Date.now()), 2)}\n` : asText(found, Date.now()));
  const usable = found.source.kind !== "none" && found.problem === undefined && found.check?.ok !== false;
  return usable ? EXIT.ok : EXIT.credentials;
}

/** The status as lines of `name: value`, every value from a file made printable. */
export function asText(found: CredentialsStatus, now: number): string {
  const rows: [string, string | undefined][] = [
    ["credentials", where(found)],
    ["found by", found.reasons.at(-1)],
    ...found.reasons.slice(0, -1).map((reason): [string, string] => ["passed over", reason]),
    ["hosted", found.hosted === undefined ? undefined : `${found.hosted} detected: default() asks it first`],
    ["problem", found.problem?.message],
    ["type", found.type],
    ["account", accountWords(found)],
    ["acts as", found.actsAs],
    ["delegates", found.delegates?.length ? found.delegates.join(", ") : undefined],
    ["audience", found.audience],
    ["project", found.projectId],
    ["scopes", scopesWords(found)],
    ["universe", found.universe],
    [
      "quota project",
      found.type === undefined || found.type === "metadata-server" ? undefined : (found.quotaProject ?? "(none)"),
    ],
    ["access token", tokenWords(found, now)],
    ["check", checkWords(found, now)],
  ];
  return rows
    .filter((row): row is [string, string] => row[1] !== undefined)
    .map(([name, value]) => `${`${name}:`.padEnd(15)}${printable(value)}\n`)
    .join("");
}

function where(found: CredentialsStatus): string {
  const { source } = found;
  if (source.kind === "file") return source.path;
  if (source.kind === "metadata") return `the metadata server at ${source.host}`;
  return "none found (default() would start a sign-in)";
}

function accountWords(found: CredentialsStatus): string | undefined {
  if (found.type === undefined) return undefined;
  if (found.account !== undefined) return found.account;
  if (found.check?.ok && found.check.account) return found.check.account;
  if (found.type === "metadata-server") return "the metadata server's (--check asks it)";
  if (found.type === "external_account" || found.type === "external_account_authorized_user")
    return "a federated identity (the file names none)";
  return "not recorded in the file (cred-auth asks no server for it; sign in again with cred-auth login to record it)";
}

function scopesWords(found: CredentialsStatus): string | undefined {
  if (found.type === undefined || found.type === "metadata-server") return undefined;
  if (found.scopes === undefined) return "not recorded in the file (gcloud records none)";
  const asked = found.type === "authorized_user" ? "" : " (the default; --scopes of print-token asks for others)";
  return `${found.scopes.join(", ")}${asked}`;
}

function tokenWords(found: CredentialsStatus, now: number): string | undefined {
  const token = found.accessToken;
  if (token === undefined) return undefined;
  if (token.state === "none") return "none cached";
  if (token.state === "unknown") return `not known without a request: ${token.why}`;
  return `cached, ${timeLeft(token.expiryDate, now)}`;
}

function checkWords(found: CredentialsStatus, now: number): string | undefined {
  const { check } = found;
  if (check === undefined) return undefined;
  return check.ok ? `ok: a token with ${timeLeft(check.expiryDate, now)}` : `failed (${check.code}): ${check.message}`;
}

function timeLeft(expiryDate: number, now: number): string {
  const seconds = Math.round((expiryDate - now) / 1000);
  if (seconds <= 0) return "expired";
  return seconds < 120 ? `${seconds} s left` : `${Math.floor(seconds / 60)} min left`;
}

/** The status as JSON: the same facts, times as ISO dates and seconds left. */
export function asJson(found: CredentialsStatus, now: number): Record<string, unknown> {
  const at = (ms: number) => ({
    expiry: new Date(ms).toISOString(),
    secondsLeft: Math.max(0, Math.round((ms - now) / 1000)),
  });
  const token = found.accessToken;
  return {
    source: found.source,
    reasons: found.reasons,
    ...(found.hosted === undefined ? {} : { hosted: found.hosted }),
    ...(found.problem === undefined ? {} : { problem: found.problem }),
    ...(found.type === undefined ? {} : { type: found.type, account: found.account ?? null }),
    ...(found.actsAs === undefined ? {} : { actsAs: found.actsAs }),
    ...(found.delegates === undefined ? {} : { delegates: found.delegates }),
    ...(found.audience === undefined ? {} : { audience: found.audience }),
    ...(found.projectId === undefined ? {} : { projectId: found.projectId }),
    ...(found.type === undefined || found.type === "metadata-server" ? {} : { scopes: found.scopes ?? null }),
    ...(found.universe === undefined ? {} : { universe: found.universe }),
    ...(found.type === undefined || found.type === "metadata-server"
      ? {}
      : { quotaProject: found.quotaProject ?? null }),
    ...(token === undefined
      ? {}
      : { accessToken: token.state === "cached" ? { state: "cached", ...at(token.expiryDate) } : token }),
    ...(found.check === undefined
      ? {}
      : {
          check: found.check.ok
            ? { ...found.check, ...at(found.check.expiryDate), expiryDate: undefined }
            : found.check,
        }),
  };
}
