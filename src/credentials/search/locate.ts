// Which credentials default() would use, found without asking any server, in its order (for status,
// revoke and print-identity-token without a file); default() itself also proves what it finds.
import { READ_WRITE } from "../../credentials-cache/index.js";
import { CredCredentialsError, ERROR_CODES } from "../../errors.js";
import { detectedHostedEnvironment } from "../../hosted/registry.js";
import { metadataBaseUrl } from "../../hosted/metadata.js";
import { ENV } from "../../shared/constants.js";
import { isOnGoogleCloud } from "../../util/lazy.js";
import { readCredentialsBytesSync } from "../../stores/credentials-file.js";
import { UntrustedFileError } from "../../trust/files.js";
import { isFile, wellKnownFile } from "./adc.js";

export type CredentialsSource =
  | {
      kind: "file";
      path: string;
      /** How it was found: named on the command line, by `GOOGLE_APPLICATION_CREDENTIALS`, gcloud's ADC file, cred-auth's credentials cache. */
      foundBy: "argument" | "environment" | "gcloud" | "credentials-cache";
      /** Read only when it is the user's own and private (the credentials cache, as its load() reads it). */
      privateOnly?: true;
    }
  | { kind: "metadata"; host: string }
  | { kind: "none" };

/** What {@link locateCredentials} found, and why. */
export interface LocatedCredentials {
  source: CredentialsSource;
  /** A hosted notebook platform that detects itself: default() asks it before any of these. */
  hosted?: string;
  /** Why this source: one line per place looked at first, then the place itself. */
  reasons: string[];
}

/** The credentials default() would use, in its order, without asking any server; a hosted platform is named apart. */
export async function locateCredentials(env: NodeJS.ProcessEnv = process.env): Promise<LocatedCredentials> {
  const hosted = detectedHostedEnvironment(env);
  const withHosted = <T extends object>(found: T): T & { hosted?: string } =>
    hosted === undefined ? found : { ...found, hosted };
  const named = env[ENV.googleApplicationCredentials]?.trim();
  if (named)
    return withHosted({
      source: { kind: "file", path: named, foundBy: "environment" },
      reasons: [`${ENV.googleApplicationCredentials} names it (when set, the only file default() reads)`],
    });
  const reasons = [`${ENV.googleApplicationCredentials} is not set`];
  const gcloud = wellKnownFile(env);
  if (isFile(gcloud))
    return withHosted({
      source: { kind: "file", path: gcloud, foundBy: "gcloud" },
      reasons: [...reasons, "gcloud's ADC file"],
    });
  reasons.push(`no gcloud ADC file at ${gcloud}`);
  const metadata = await metadataServerExpected(env);
  if (metadata.expected) {
    const host = new URL(metadataBaseUrl(env)).host;
    return withHosted({ source: { kind: "metadata", host }, reasons: [...reasons, metadata.why] });
  }
  reasons.push(metadata.why);
  const cached = READ_WRITE.path;
  const foreign = isFile(cached) ? notYours(cached) : undefined;
  if (isFile(cached) && foreign === undefined)
    return withHosted({
      source: { kind: "file", path: cached, foundBy: "credentials-cache", privateOnly: true },
      reasons: [...reasons, "the credentials cache of getUserCredentials() (default()'s sign-in step)"],
    });
  reasons.push(foreign ?? `no cached sign-in at ${cached}`);
  return withHosted({ source: { kind: "none" }, reasons });
}

/** Whether default() asks the metadata server, by its own rules (./adc.ts), without asking it. */
async function metadataServerExpected(env: NodeJS.ProcessEnv): Promise<{ expected: boolean; why: string }> {
  const detection = env.METADATA_SERVER_DETECTION?.trim().toLowerCase();
  if (detection === "none")
    return { expected: false, why: "the metadata server is off (METADATA_SERVER_DETECTION=none)" };
  if (env.GCE_METADATA_HOST || env.GCE_METADATA_IP)
    return { expected: true, why: "the metadata server GCE_METADATA_HOST names" };
  if (detection === "assume-present")
    return { expected: true, why: "the metadata server (METADATA_SERVER_DETECTION=assume-present)" };
  if (await isOnGoogleCloud()) return { expected: true, why: "the metadata server of this Google Cloud machine" };
  return { expected: false, why: "no metadata server (not on Google Cloud, GCE_METADATA_HOST not set)" };
}

/** Why the credentials cache at `path` is skipped, as READ_WRITE.load() skips it (another user's, or others may write). */
function notYours(path: string): string | undefined {
  try {
    readCredentialsBytesSync(path, { privateOnly: true });
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof UntrustedFileError) return `the cached sign-in at ${path} ${cause.problem}: skipped`;
  }
  return undefined;
}

/** What a command that never signs in says when the search found nothing: where it looked, and what to run. */
export function noCredentialsFound(located: LocatedCredentials): CredCredentialsError {
  return new CredCredentialsError(
    `No credentials found (${whereLooked(located.reasons)}): run \`cred-auth login FILE\` and give FILE, or \`gcloud auth application-default login\`.`,
    { code: ERROR_CODES.NO_CREDENTIALS },
  );
}

/** Where the search looked, short: each place that held something wrong, else the four it found empty. */
export function whereLooked(reasons: readonly string[]): string {
  const told = reasons.filter(
    (reason) => !/^(GOOGLE_APPLICATION_CREDENTIALS is not set|no |the metadata server is off)/.test(reason),
  );
  return told.length > 0
    ? told.join("; ")
    : "no GOOGLE_APPLICATION_CREDENTIALS, gcloud ADC file, metadata server or cached sign-in";
}
