// `cred-auth status [FILE] [--check] [--format text|json]`: which credentials default() would use, why, whose, the
// cached token's time left (credentials/status/status.ts); exit 1 with a `next step` line, as `gh auth status`.
import { type CredentialsStatus, credentialsStatus } from "../../credentials/status/status.js";
import { printable, safeJson } from "../../trust/text.js";
import { breakAtSpaces } from "../../ui/terminal/permanent-text.js";
import { defineCommand, flag, oneOf } from "../command.js";
import { EXIT, writeOut } from "../output.js";
import { SEARCHED_FILE } from "./print-token.js";

export const status = defineCommand({
  name: "status",
  summary: "Say which credentials default() would use and why, whose they are, and whether they still work.",
  words: [SEARCHED_FILE("describes the credentials default() would use")],
  flags: {
    check: {
      ...flag("--check", "ask for a new token to prove the credentials work (every request it takes: 5 s in all)"),
      off: { names: ["--no-check"] },
    },
    format: flag(
      "--format",
      "text: one `name: value` line each (default); json: the same as one JSON object",
      "text|json",
    ),
  },
  more: () =>
    [
      "status reads the files and asks no server: the account is the one the file records (or it names none). --check asks",
      "for a new token: one request for a user's file or a key, two for an impersonated file or a metadata server, and for",
      "a federated file its subject token's URL or AWS's metadata service, STS, then IAM; 5 s for all of them together.",
      "Exit code 1 when nothing usable is found or the check fails; the last line then says what to do.",
    ].join("\n"),
  async run({ words: [path], flags }) {
    const format = oneOf(flags.format, ["text", "json"] as const, "--format") ?? "text";
    const found = await credentialsStatus(path, { check: flags.check === true });
    const columns = process.stdout.isTTY ? process.stdout.columns : undefined;
    writeOut(format === "json" ? `${safeJson(asJson(found, Date.now()), 2)}\n` : asText(found, Date.now(), columns));
    const usable = found.source.kind !== "none" && found.problem === undefined && found.check?.ok !== false;
    return usable ? EXIT.ok : EXIT.credentials;
  },
});

const NAME_WIDTH = 15;

/** The status as `name: value` lines, every value made printable and wrapped to `columns` (a terminal's width). */
export function asText(found: CredentialsStatus, now: number, columns?: number): string {
  const rows: [string, string | undefined][] = [
    ["credentials", where(found)],
    ["found by", foundBy(found)],
    ...passedOver(found).map((reason): [string, string] => ["passed over", reason]),
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
    ["refresh token", found.secrets],
    [
      "quota project",
      found.type === undefined || found.type === "metadata-server" ? undefined : (found.quotaProject ?? "(none)"),
    ],
    ["access token", tokenWords(found, now)],
    ["check", checkWords(found, now)],
    ["next step", nextStep(found)],
  ];
  return rows
    .filter((row): row is [string, string] => row[1] !== undefined)
    .map(([name, value]) => `${`${name}:`.padEnd(NAME_WIDTH)}${wrapped(printable(value), columns)}\n`)
    .join("");
}

/** `value` broken at spaces to fit `columns` after the names' column (a longer word stays whole on its own line). */
export function wrapped(value: string, columns: number | undefined): string {
  const width = columns === undefined ? Number.POSITIVE_INFINITY : columns - NAME_WIDTH;
  if (value.length <= width || width < 10) return value;
  return breakAtSpaces(value, width).join(`\n${" ".repeat(NAME_WIDTH)}`);
}

function where(found: CredentialsStatus): string {
  const { source } = found;
  if (source.kind === "file") return source.path;
  if (source.kind === "metadata") return `the metadata server at ${source.host}`;
  return "none found (a program would ask you to sign in)";
}

/** The places looked at before these credentials were found: every one, when none were. */
function passedOver(found: CredentialsStatus): readonly string[] {
  return found.source.kind === "none" ? found.reasons : found.reasons.slice(0, -1);
}

/** Why these credentials, in the user's words (the search's own reasons name functions). */
function foundBy(found: CredentialsStatus): string | undefined {
  const { source } = found;
  if (source.kind === "none") return undefined;
  if (source.kind === "file" && source.foundBy === "credentials-cache")
    return "your last sign-in, which cred-auth saved for your programs";
  return found.reasons.at(-1);
}

/** What to do when nothing works: sign in (again), as `gh auth status` ends. */
function nextStep(found: CredentialsStatus): string | undefined {
  const { source } = found;
  if (source.kind === "none") return "to sign in, run: cred-auth login credentials.json";
  const code = found.check?.ok === false ? found.check.code : undefined;
  const login = source.kind === "file" && found.signedIn ? `cred-auth login ${source.path}` : undefined;
  // The token server refused the OAuth client itself (deleted, disabled, unknown): no sign-in with it can work.
  if (code === "ERR_INVALID_CLIENT")
    return `to create or pick another OAuth client, run: cred-auth config init${login ? `, then: ${login}` : ""}`;
  if ((code === "ERR_INVALID_GRANT" || code === "ERR_REAUTH_REQUIRED") && login)
    return `to sign in again, run: ${login}`;
  return undefined;
}

function accountWords(found: CredentialsStatus): string | undefined {
  if (found.type === undefined) return undefined;
  if (found.account !== undefined) return found.account;
  if (found.check?.ok && found.check.account) return found.check.account;
  if (found.type === "metadata-server") return "the metadata server's (--check asks it)";
  if (found.noAccount !== undefined) return found.noAccount;
  return "not recorded in the file (cred-auth asks no server for it; sign in again with cred-auth login to record it)";
}

function scopesWords(found: CredentialsStatus): string | undefined {
  if (found.type === undefined || found.type === "metadata-server") return undefined;
  if (found.scopes === undefined) return "not recorded in the file (gcloud records none)";
  const asked = found.signedIn ? "" : " (the default; --scopes of print-token asks for others)";
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

/** The status as JSON: the same facts, times as ISO dates and seconds left (undefined members are left out). */
export function asJson(found: CredentialsStatus, now: number): Record<string, unknown> {
  const at = (ms: number) => ({
    expiry: new Date(ms).toISOString(),
    secondsLeft: Math.max(0, Math.round((ms - now) / 1000)),
  });
  const { accessToken: token, check, type } = found;
  const file = type !== undefined && type !== "metadata-server";
  return {
    source: found.source,
    reasons: found.reasons,
    nextStep: nextStep(found),
    hosted: found.hosted,
    problem: found.problem,
    type,
    account: type === undefined ? undefined : (found.account ?? null),
    actsAs: found.actsAs,
    delegates: found.delegates,
    audience: found.audience,
    projectId: found.projectId,
    scopes: file ? (found.scopes ?? null) : undefined,
    universe: found.universe,
    secrets: found.secrets,
    quotaProject: file ? (found.quotaProject ?? null) : undefined,
    accessToken: token?.state === "cached" ? { state: "cached", ...at(token.expiryDate) } : token,
    check: check?.ok ? { ...check, ...at(check.expiryDate), expiryDate: undefined } : check,
  };
}
