// The subject token of an `external_account` file, read once per token asked: its file (file-trust rule),
// its URL (no redirect, bounded), or an AWS request signed now. It goes only to the judged STS URL.
import { codeOf } from "../../../util/thrown.js";
import { CredConnectionError, CredCredentialsError, ERROR_CODES } from "../../../errors.js";
import { isObject } from "../../../formats/fields.js";
import { awsIdentity, awsSecrets, awsSubjectToken } from "../../../protocols/aws.js";
import { SERVICE_TIMEOUT_MS } from "../../../protocols/service-request.js";
import { readTrustedFile } from "../../../trust/files.js";
import { boundedFetch } from "../../../trust/http.js";
import { own } from "../../../trust/own.js";
import { printable, quoted } from "../../../trust/text.js";
import type { AwsSource, AwsSourceUrls, ExternalAccountFile, SubjectTokenSource } from "./file.js";

/** Subject tokens (JWTs, SAML assertions) are a few kilobytes; anything this big is not one. */
export const MAX_SUBJECT_TOKEN_BYTES = 256 * 1024;

function pickToken(text: string, jsonField: string | undefined, fail: (what: string) => Error): string {
  let token = text;
  if (jsonField !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw fail("is not JSON");
    }
    const value = isObject(parsed) ? own(parsed, jsonField) : undefined;
    if (typeof value !== "string") throw fail(`has no string field ${quoted(jsonField.slice(0, 100))}`);
    token = value;
  }
  token = token.trim();
  if (token === "") throw fail("is empty");
  return token;
}

/** A subject token to hand STS, and what the token cache knows it by. */
export interface Subject {
  /** What tells this subject from any other (the token, or AWS's region and keys): only hashed into a key. */
  keyMaterial: string;
  /** The token STS gets: the one read, or (AWS) a request signed now, so its date is fresh. */
  token(): string;
  /** Every secret the token carries or was made from, taken out of STS's words. */
  secrets: string[];
}

/** The file's subject: its token read from a file or URL, or an AWS source's region and keys (`aws`: IMDS's judged URLs). */
export async function readSubject(
  file: ExternalAccountFile,
  aws: AwsSourceUrls | undefined,
  env: NodeJS.ProcessEnv,
): Promise<Subject> {
  const { source } = file;
  if (source.kind !== "aws") {
    const token = await readSubjectToken(source);
    return { keyMaterial: token, token: () => token, secrets: [token] };
  }
  const identity = await awsIdentity(aws ?? {}, env);
  const { region, keys } = identity;
  return {
    keyMaterial: JSON.stringify(["aws", region, keys.accessKeyId, keys.secretAccessKey, keys.sessionToken ?? ""]),
    token: () => awsSubjectToken(identity, { verificationUrl: source.verificationUrl, audience: file.audience }),
    secrets: awsSecrets(identity),
  };
}

/** The subject token, read once from its file or its URL. */
export async function readSubjectToken(source: Exclude<SubjectTokenSource, AwsSource>): Promise<string> {
  if (source.kind === "file") return readSubjectTokenFile(source.file, source.jsonField);
  const where = new URL(source.url);
  const shown = printable(`${where.origin}${where.pathname}`.slice(0, 200));
  const reply = await boundedFetch(
    source.url,
    { headers: source.headers, timeoutMs: SERVICE_TIMEOUT_MS, maxBytes: MAX_SUBJECT_TOKEN_BYTES },
    (cause) =>
      new CredConnectionError(`The subject-token URL ${shown} could not be reached; check it from here.`, {
        code: ERROR_CODES.SUBJECT_TOKEN_UNREACHABLE,
        cause,
      }),
  );
  const fail = (what: string, status?: number) =>
    new CredCredentialsError(`The subject-token URL ${shown} ${what}.`, {
      code: ERROR_CODES.SUBJECT_TOKEN_UNREACHABLE,
      status,
    });
  if (reply.redirect)
    throw fail(`answered with a redirect (HTTP ${reply.status}), which is never followed`, reply.status);
  if (!reply.ok) throw fail(`answered HTTP ${reply.status}; check the URL and its headers`, reply.status);
  if (reply.tooLarge) throw fail(`answered more than ${MAX_SUBJECT_TOKEN_BYTES / 1024} KiB, which is no subject token`);
  return pickToken(reply.text, source.jsonField, (what) => fail(`'s answer ${what}`));
}

async function readSubjectTokenFile(file: string, jsonField: string | undefined): Promise<string> {
  const shown = quoted(file);
  let text: string;
  try {
    text = (await readTrustedFile(file, { maxBytes: MAX_SUBJECT_TOKEN_BYTES, keeper: "anyone" })).toString("utf8");
  } catch (cause) {
    const code = codeOf(cause);
    const why = code === "ENOTFILE" ? "is not a regular file" : code === "EFBIG" ? "is too large" : "could not be read";
    throw new CredCredentialsError(
      `The subject-token file ${shown} ${why} (${code ?? "error"}); check that it is written there.`,
      { code: ERROR_CODES.SUBJECT_TOKEN_UNREADABLE, cause },
    );
  }
  return pickToken(
    text,
    jsonField,
    (what) =>
      new CredCredentialsError(`The subject-token file ${shown} ${what}.`, {
        code: ERROR_CODES.SUBJECT_TOKEN_UNREADABLE,
      }),
  );
}
