// `cred-auth revoke [FILE]`: a user's grant ended at Google, then the file and its cached tokens removed.
// Nothing removed unless revoked (or `force`), a found file only with a person's yes, only the very file read.
import { type Stats, lstatSync, statSync, unlinkSync } from "node:fs";
import { deleteCachedToken, deleteCachedTokensOf, tokenCacheDir } from "../../token-cache/index.js";
import { forgetStoredSecrets } from "../../stores/index.js";
import { revokeToken } from "../../protocols/revoke.js";
import {
  CredAuthError,
  CredCancelledError,
  CredConnectionError,
  CredCredentialsError,
  ERROR_CODES,
} from "../../errors.js";
import { present } from "../../formats/fields.js";
import { ENV } from "../../shared/constants.js";
import { codeOf } from "../../util/thrown.js";
import { quoted } from "../../trust/text.js";
import { type Universe, trustedUniverse } from "../../trust/urls.js";
import type { CachedTokenKeys } from "../kinds/kind.js";
import { type AdcFile, kindOf, readAdcFile } from "../kinds/table.js";
import { type CredentialsSource, locateCredentials, whereLooked } from "../search/locate.js";

export interface RevokeOptions {
  /** Remove the file and its cached tokens even when nothing could be revoked. */
  force?: boolean;
  /** Where the search's variables, the emulator and the cache's place are read. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /**
   * Asked before a file the search found (no path given) is revoked: true goes on; without it, `ERR_NOT_CONFIRMED`
   * (always for the file `GOOGLE_APPLICATION_CREDENTIALS` names).
   */
  confirm?: (found: FoundToRevoke) => Promise<boolean>;
}

/** The file the search found (or the one named), as {@link RevokeOptions.confirm} is asked about it. */
export interface FoundToRevoke {
  path: string;
  foundBy: Extract<CredentialsSource, { kind: "file" }>["foundBy"];
  type: AdcFile["type"];
  /** The account of the grant, when the file names it. */
  account?: string;
  /** Where the grant is revoked: "Google", "the emulator at HOST", "the token server at HOST"; undefined when it cannot be. */
  revokedAt?: string;
}

export interface RevokeOutcome extends FoundToRevoke {
  /** Whether Google (or the emulator, {@link revokedAt}) revoked a grant. */
  revoked: boolean;
  /** Why nothing was revoked (with `force`): the refusal, or why this type cannot be. */
  notRevoked?: string;
  /** Cached access and ID tokens removed. */
  cacheEntriesRemoved: number;
}

/**
 * Revokes the user grant in `path` (or the file default() would use; an impersonated file's user source) at Google,
 * then removes the file and its cached tokens.
 *
 * @throws CredCredentialsError `ERR_NOT_REVOCABLE`, `ERR_REVOKE_REFUSED` (nothing removed, unless `force`),
 * `ERR_NO_CREDENTIALS`, `ERR_NOT_CONFIRMED` (nothing done), `ERR_FILE_CHANGED` (another file or link at the path).
 * @throws CredCancelledError when `confirm` said no (nothing done).
 * @throws CredConnectionError when Google cannot be reached (nothing removed without `force`).
 */
export async function revokeCredentials(path: string | undefined, options: RevokeOptions = {}): Promise<RevokeOutcome> {
  const env = options.env ?? process.env;
  const source = await fileToRevoke(path, env);
  const { file, identity } = readIdentified(source.path, source.privateOnly === true);
  const universe = trustedUniverse(env);
  const kind = kindOf(file);
  const revocation = kind.revocation(file, { universe, path: source.path });
  const user = "grant" in revocation ? revocation.grant : undefined;
  const revokeUrl = "grant" in revocation ? revocation.url : undefined;
  const revokedAt = revokeUrl === undefined ? undefined : revokeEndpointName(revokeUrl, universe);
  let notRevoked: string | undefined;
  if ("notRevocable" in revocation) {
    notRevoked = revocation.notRevocable;
    if (!options.force)
      throw new CredCredentialsError(
        `${quoted(source.path)} ${notRevoked}; nothing was removed (--force removes the file and its cached tokens).`,
        { code: ERROR_CODES.NOT_REVOCABLE },
      );
  }
  const found: FoundToRevoke = {
    path: source.path,
    foundBy: source.foundBy,
    type: file.type,
    ...present({ account: user?.account || undefined, revokedAt }),
  };
  if (source.foundBy !== "argument") await confirmed(options.confirm, found);
  if (user !== undefined && revokeUrl !== undefined) {
    try {
      await revokeToken(revokeUrl, user.refreshToken, revokedAt ?? "Google");
    } catch (error) {
      if (!options.force || !(error instanceof CredAuthError)) throw withNothingRemoved(error);
      notRevoked = error.message;
    }
  }
  const cacheEntriesRemoved = forgetCachedTokens(kind.cachedTokens(file, { universe, path: source.path }), env);
  removeFile(source.path, identity, notRevoked === undefined ? revokedAt : undefined);
  await forgetStoredSecrets(file, source.path); // the secrets a store kept outside the file
  return { ...found, revoked: notRevoked === undefined, ...present({ notRevoked }), cacheEntriesRemoved };
}

/** Where `url` revokes: Google, the emulator standing in for it, or a token server on this machine. */
function revokeEndpointName(url: string, universe: Universe): string {
  const { host, protocol } = new URL(url);
  if (universe.emulator !== undefined && url.startsWith(`${universe.emulator}/`)) return `the emulator at ${host}`;
  return protocol === "https:" ? "Google" : `the token server at ${host}`;
}

/** A person's yes for a file nobody named; without a way to ask, no. */
async function confirmed(confirm: RevokeOptions["confirm"], found: FoundToRevoke): Promise<void> {
  if (confirm === undefined)
    throw new CredCredentialsError(
      `${quoted(found.path)} was found, not named: nothing was revoked or removed without a person's yes; name the file to revoke it.`,
      { code: ERROR_CODES.NOT_CONFIRMED },
    );
  if (!(await confirm(found))) throw new CredCancelledError("Nothing was revoked or removed.");
}

/** The file at `path` and the identity of what was read: the same file before and after (no swap while reading). */
function readIdentified(path: string, privateOnly: boolean): { file: AdcFile; identity: Stats } {
  const before = statSync(path, { throwIfNoEntry: false });
  const file = readAdcFile(path, { privateOnly }); // says precisely why a missing or broken file cannot be read
  const after = statSync(path, { throwIfNoEntry: false });
  if (before === undefined || after === undefined || !sameFile(before, after))
    throw new CredCredentialsError(`${quoted(path)} changed while it was read; nothing was revoked or removed.`, {
      code: ERROR_CODES.FILE_CHANGED,
    });
  return { file, identity: before };
}

function sameFile(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** `path`, or the file default() would use; a metadata server or nothing at all cannot be revoked here. */
async function fileToRevoke(
  path: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<Extract<CredentialsSource, { kind: "file" }>> {
  if (path !== undefined) return { kind: "file", path, foundBy: "argument" };
  const { source, reasons } = await locateCredentials(env);
  // Whoever set the variable may use the file for more than this: it goes only when named.
  if (source.kind === "file" && source.foundBy === "environment")
    throw new CredCredentialsError(
      `${ENV.googleApplicationCredentials} names ${quoted(source.path)}: such a file is revoked and removed only when named; run cred-auth revoke ${quoted(source.path)} to do so. Nothing was revoked or removed.`,
      { code: ERROR_CODES.NOT_CONFIRMED },
    );
  if (source.kind === "file") return source;
  if (source.kind === "metadata")
    throw new CredCredentialsError(
      `The credentials default() would use are the metadata server's at ${source.host}: they belong to the machine or service, and nothing of yours can be revoked here.`,
      { code: ERROR_CODES.NOT_REVOCABLE },
    );
  throw new CredCredentialsError(`No credentials file found to revoke (${whereLooked(reasons)}).`, {
    code: ERROR_CODES.NO_CREDENTIALS,
  });
}

/** Google's refusal or silence, saying that nothing was removed (and, for a refusal, what would). */
function withNothingRemoved(error: unknown): unknown {
  if (!(error instanceof CredCredentialsError || error instanceof CredConnectionError)) return error;
  const fix = error.code === ERROR_CODES.REVOKE_REFUSED ? " (--force removes the file and its cached tokens)" : "";
  const message = `${error.message} Nothing was removed${fix}.`;
  const options = { cause: error, code: error.code, error: error.error, status: error.status };
  return error instanceof CredConnectionError
    ? new CredConnectionError(message, options)
    : new CredCredentialsError(message, options);
}

/** Removes the access and ID tokens cached for the file (print-token's keys, with and without the emulator). */
function forgetCachedTokens({ keys, owners }: CachedTokenKeys, env: NodeJS.ProcessEnv): number {
  const location = { dir: tokenCacheDir(env) };
  let removed = 0;
  for (const key of new Set(keys)) if (deleteCachedToken(key, location)) removed++;
  for (const owner of new Set(owners)) removed += deleteCachedTokensOf(owner, location);
  return removed;
}

/** Removes `path` if it is still the file read (`identity`): a link swapped in would remove another file. */
function removeFile(path: string, identity: Stats, revokedAt: string | undefined): void {
  const done = revokedAt === undefined ? "The file's tokens were forgotten" : `The grant was revoked at ${revokedAt}`;
  const now = lstatSync(path, { throwIfNoEntry: false });
  if (now === undefined) return;
  if (!now.isFile() || !sameFile(now, identity))
    throw new CredCredentialsError(
      `${done}, but ${quoted(path)} is no longer the file that was read (${now.isSymbolicLink() ? "a symbolic link" : "another file"} is there now), so it was left in place; check what it is and delete it yourself.`,
      { code: ERROR_CODES.FILE_CHANGED },
    );
  try {
    unlinkSync(path);
  } catch (error) {
    const code = codeOf(error);
    if (code === "ENOENT") return;
    throw new CredCredentialsError(
      `${done}, but ${quoted(path)} could not be removed (${code ?? "unexpected error"}); delete it yourself.`,
      { code: ERROR_CODES.FILE_UNWRITABLE, cause: error },
    );
  }
}
