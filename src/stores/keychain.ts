// The keychain store (docs/caching.md, "Where the refresh token is kept"): an `authorized_user` cache file
// without its secrets (and ID token) names, in `cred_auth_keychain` {service, account: "PATH:ID", id},
// an entry of the OS keychain (os/keychain.ts) that holds them (before the id joined it, the account was
// PATH alone: still read). Reading the form asks no keychain: warm paths key tokens by the id. Each save
// writes a new entry, then the file, then removes the old entry, under the cache's lock; an entry is
// bound to the bytes of its file (their SHA-256 is in the entry) and marked as this cache's own.
import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, readlinkSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { CredConnectionError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { type AuthorizedUserFile, parseAuthorizedUser, userCredentialsJson } from "../credentials/kinds/user/file.js";
import { readCredentialsBytesSync, writeCredentialsText, writeUserCredentialsFile } from "./credentials-file.js";
import { recordStandIn } from "../formats/stand-in.js";
import { type AskKeychain, type KeychainReply, keychainSync, withKeychain } from "../os/keychain.js";
import { tryLock } from "../token-cache/lock.js";
import { quoted } from "../trust/text.js";
import { trustedUniverse, trustedUrl } from "../trust/urls.js";
import { sha256Hex } from "../util/sha256.js";
import { removeCacheFile } from "./file.js";
import type { StoredCredentials, UserSecrets } from "./secret-store.js";

/** The field that marks the keychain form and names its entry. */
const FIELD = "cred_auth_keychain";
/** The keychain service every cred-auth entry is filed under (`secret-tool search service cred-auth`). */
const SERVICE = "cred-auth";
/** The field that marks an entry as written by this cache: the sweep removes no other. */
const MARK = "cred_auth_cache";
const ID = /^[0-9a-f]{32}$/;
/** An entry's account: the cache file's absolute path and the save's id. */
const ACCOUNT = /^(.+):([0-9a-f]{32})$/;
/** A cache lock older than this is broken (a save holds it for a few keychain operations). */
const LOCK_STALE_MS = 120_000;

type Entry = { service: string; account: string; id: string };

/** A cache file in the keychain form: its non-secret fields, its entry, and its text (what the entry is bound to). */
type Form = {
  fields: Omit<AuthorizedUserFile, "clientSecret" | "refreshToken" | "idToken">;
  entry: Entry;
  text: string;
};

/**
 * What an entry holds: the secrets, the save's id, and since MARK (entries before it are named by the
 * path alone) the SHA-256 of the file saved with it and the save's mount namespace (Linux).
 */
type Held = Partial<Record<"id" | "refresh_token" | "client_secret" | "sha256" | "ns", unknown> & { [MARK]: number }>;

/** Why `auto` found no usable keychain in this process: asked once. */
let unusable: string | undefined;

/** Why `auto` kept the secrets in the file in this process, if it did. */
export function keychainFallback(): string | undefined {
  return unusable;
}

/** The credentials of a keychain-form cache file from its bytes (ours and private); its secrets are read when first needed. */
export function storedFromBytes(bytes: Buffer, path: string): StoredCredentials {
  const form = parseForm(bytes.toString("utf8"), path);
  return {
    fields: form.fields,
    standIn: standIn(form.entry.id),
    secrets: () =>
      withKeychain(SERVICE, async (ask) => {
        const reply = await ask({ op: "get", account: form.entry.account });
        const now = followed(reply, form, path);
        return checkedSecrets(now === form ? reply : await ask({ op: "get", account: now.entry.account }), now, path);
      }),
  };
}

/** Accounts of the files {@link userFileSync} read: `revoke` forgets that entry. */
const accounts = new WeakMap<object, string>();

/**
 * The `authorized_user` file of a keychain-form file for any reader (`status`, `print-token`,
 * `print-identity-token`, `revoke`): its two secrets are read from the keychain when first used, so a
 * token found in the token cache (keyed by the save's id) costs no keychain read.
 */
export function userFileSync(path: string): AuthorizedUserFile {
  const form = formOf(path);
  let secrets: UserSecrets | undefined;
  const read = (): UserSecrets => {
    if (secrets) return secrets;
    const reply = keychainSync(SERVICE, { op: "get", account: form.entry.account });
    const now = followed(reply, form, path);
    secrets = checkedSecrets(
      now === form ? reply : keychainSync(SERVICE, { op: "get", account: now.entry.account }),
      now,
      path,
    );
    return secrets;
  };
  const file = { ...form.fields } as AuthorizedUserFile;
  for (const name of ["clientSecret", "refreshToken"] as const)
    Object.defineProperty(file, name, { enumerable: true, get: () => read()[name] });
  recordStandIn(file, standIn(form.entry.id));
  accounts.set(file, form.entry.account);
  return file;
}

/**
 * Writes `file` to the cache file at `path` under its lock: with `keychain`, or `auto` and a keychain
 * of the user's own, a new entry first, then the file naming it, then the entry the old file named is
 * removed; else the whole file (and the old entry goes). Resolves the token cache's stand-in, in the
 * keychain form.
 *
 * @throws CredCredentialsError `ERR_KEYCHAIN_UNAVAILABLE` with `keychain` when no keychain takes it.
 */
export async function saveCacheFile(
  path: string,
  file: AuthorizedUserFile,
  store: "auto" | "keychain" | "file",
): Promise<string | undefined> {
  const abs = resolve(path);
  return underLock(abs, (locked) =>
    withKeychain(SERVICE, async (ask) => {
      const named = namedAccount(abs);
      const entry = store === "file" ? undefined : await storeSecrets(ask, abs, file, store);
      if (entry === undefined) await writeUserCredentialsFile(path, file);
      else
        try {
          await writeCredentialsText(path, entry.text);
        } catch (error) {
          await ask({ op: "delete", account: entry.account }); // nothing names it; the old file still names its own
          throw error;
        }
      if (entry === undefined && store !== "file" && named === undefined) return undefined; // no keychain here
      if (named !== undefined && named !== entry?.account) await ask({ op: "delete", account: named });
      if (locked) await sweep(ask, abs, entry?.account);
      return entry && standIn(entry.id);
    }),
  );
}

/**
 * Removes the cache file at `path`, the entry it names (or, the file gone, the one `read`, a file
 * {@link userFileSync} read, named) and this cache's stale ones. True when there was a file.
 */
export async function deleteCacheFile(path: string, read?: object): Promise<boolean> {
  const abs = resolve(path);
  return underLock(abs, (locked) =>
    withKeychain(SERVICE, async (ask) => {
      const named = namedAccount(abs) ?? (read && accounts.get(read));
      const removed = removeCacheFile(path);
      if (named !== undefined) await ask({ op: "delete", account: named });
      if (locked) await sweep(ask, abs, undefined);
      return removed;
    }),
  );
}

/** A new entry holding `file`'s secrets, bound to the text of the file that will name it; undefined when `auto` found no keychain. */
async function storeSecrets(
  ask: AskKeychain,
  abs: string,
  file: AuthorizedUserFile,
  store: "auto" | "keychain",
): Promise<(Entry & { text: string }) | undefined> {
  if (store === "auto" && unusable !== undefined) return undefined;
  const id = randomBytes(16).toString("hex");
  const entry = { service: SERVICE, account: `${abs}:${id}`, id };
  const text = formJson(file, entry);
  const { refreshToken: refresh_token, clientSecret: client_secret } = file;
  const held: Held = { [MARK]: 1, id, refresh_token, client_secret, sha256: sha256Hex(text), ns: mountNamespace() };
  const reply = await ask({ op: "set", account: entry.account, secret: JSON.stringify(held) });
  if (reply.ok) return { ...entry, text };
  if (store === "keychain")
    throw new CredCredentialsError(
      `The refresh token was to be kept in the keychain (secret store "keychain"), which could not be used: ${reply.why}. Nothing was saved. Unlock or start the keychain, or choose the file (CRED_AUTH_SECRET_STORE=file).`,
      { code: ERROR_CODES.KEYCHAIN_UNAVAILABLE },
    );
  unusable = reply.why;
  return undefined;
}

/**
 * Removes the entries of this cache that no file names (under its lock, `abs` names `keep` or none),
 * and of other caches what is provably stale: marked as written by this cache, from this mount
 * namespace, and under that cache's lock its file gone (ENOENT) or naming another entry.
 */
async function sweep(ask: AskKeychain, abs: string, keep: string | undefined): Promise<void> {
  const listed = await ask({ op: "list" });
  for (const account of listed.ok ? (listed.accounts ?? []) : []) {
    const [, path, id] = ACCOUNT.exec(account) ?? [];
    if (path === undefined || account === keep) continue;
    if (path === abs) {
      if ((await heldBy(ask, account, id)) !== undefined) await ask({ op: "delete", account });
      continue;
    }
    await underOthersLock(path, async () => {
      if (!unnamed(path, account)) return;
      if ((await heldBy(ask, account, id))?.ns === mountNamespace()) await ask({ op: "delete", account });
    });
  }
}

/** What the entry holds, when this cache wrote it for the save `id`. */
async function heldBy(ask: AskKeychain, account: string, id: string | undefined): Promise<Held | undefined> {
  const reply = await ask({ op: "get", account });
  const held = reply.ok ? parsedHeld(reply.secret) : undefined;
  return held?.[MARK] === 1 && held.id === id ? held : undefined;
}

/** Whether no file names `account`: its file is gone (ENOENT), or is ours and names another entry or none. Never on any other error. */
function unnamed(path: string, account: string): boolean {
  try {
    lstatSync(path);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(readCredentialsBytesSync(path, { privateOnly: true }).toString("utf8"));
  } catch {
    return false; // unreadable or not ours: its owner's next save decides
  }
  if (typeof json !== "object" || json === null || !(FIELD in json)) return true; // a whole file names no entry
  try {
    return checkedEntry(json[FIELD], path).account !== account;
  } catch {
    return false;
  }
}

/** The account the cache file at `abs` names now, if it is ours and in the keychain form. */
function namedAccount(abs: string): string | undefined {
  try {
    return formOf(abs).entry.account;
  } catch {
    return undefined;
  }
}

/** The form to read secrets for: when `form`'s entry is gone, the file's now (a save may have replaced both meanwhile). */
function followed(reply: KeychainReply, form: Form, path: string): Form {
  if (!reply.ok || reply.secret != null) return form;
  try {
    const now = formOf(path);
    return now.entry.account === form.entry.account ? form : now;
  } catch {
    return form;
  }
}

/** The cache file at `path`, read under the file-trust rule (ours and private), in the keychain form. */
function formOf(path: string): Form {
  return parseForm(readCredentialsBytesSync(path, { privateOnly: true }).toString("utf8"), path);
}

/**
 * Runs `run` holding the lock of the cache file `abs` (`.NAME.lock` beside it), waiting for another
 * save; without it (`locked` false) where no lock can be made (a new directory, a full or read-only disk).
 */
async function underLock<T>(abs: string, run: (locked: boolean) => Promise<T>): Promise<T> {
  for (;;) {
    const attempt = tryLock(lockOf(abs), LOCK_STALE_MS);
    if (attempt.state === "unavailable") return run(false);
    if (attempt.state === "held")
      try {
        return await run(true);
      } finally {
        attempt.lock.release();
      }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Runs `run` under another cache's lock, when it is free, or when its directory is gone (no save there). */
async function underOthersLock(path: string, run: () => Promise<void>): Promise<void> {
  if (!existsSync(dirname(path))) return run();
  const attempt = tryLock(lockOf(path), LOCK_STALE_MS);
  if (attempt.state !== "held") return;
  try {
    await run();
  } finally {
    attempt.lock.release();
  }
}

function lockOf(abs: string): string {
  return join(dirname(abs), `.${basename(abs)}.lock`);
}

/** This process's mount namespace (Linux), or "" where there is none to tell. */
function mountNamespace(): string {
  try {
    return readlinkSync("/proc/self/ns/mnt");
  } catch {
    return "";
  }
}

/** The file's text in the keychain form: `file` without its secrets (and ID token), with `entry`. */
function formJson(file: AuthorizedUserFile, entry: Entry): string {
  const json = JSON.parse(userCredentialsJson(file)) as Record<string, unknown>;
  for (const key of ["client_secret", "refresh_token", "id_token"]) delete json[key];
  return `${JSON.stringify({ ...json, [FIELD]: entry }, null, 2)}\n`;
}

/**
 * Parses a keychain-form cache file: its fields are checked by the `authorized_user` parser (with
 * stand-ins for the two secrets); a file that also holds a secret, or whose entry is not its own
 * (named after another path), is refused.
 */
function parseForm(text: string, path: string): Form {
  const { [FIELD]: entry, ...rest } = JSON.parse(text) as Record<string, unknown>;
  if ("refresh_token" in rest || "client_secret" in rest)
    throw invalid(path, `holds both "${FIELD}" and a secret; sign in again`);
  if (rest.type !== "authorized_user") throw invalid(path, `has "${FIELD}" but is not "authorized_user"`);
  const parsed = parseAuthorizedUser({ ...rest, client_secret: "-", refresh_token: "-" }, path);
  const { clientSecret: _s, refreshToken: _r, idToken: _i, ...fields } = parsed;
  return { fields, entry: checkedEntry(entry, path), text };
}

function checkedEntry(value: unknown, path: string): Entry {
  const entry = value as Partial<Record<keyof Entry, unknown>> | null;
  if (typeof entry !== "object" || entry?.service !== SERVICE || typeof entry.id !== "string" || !ID.test(entry.id))
    throw invalid(path, `has a malformed "${FIELD}"; sign in again`);
  const abs = resolve(path);
  if (entry.account !== abs && entry.account !== `${abs}:${entry.id}`)
    throw invalid(
      path,
      "names the keychain entry of another file; only the credentials cache file's own entry is read",
    );
  return { service: SERVICE, account: entry.account, id: entry.id };
}

/** What stands in for the refresh token in the token cache's key of a keychain-form file. */
function standIn(id: string): string {
  return `cred-auth-keychain:${id}`;
}

/**
 * The secrets `reply` holds for `form`'s entry: its save's, bound to this file's text (entries with
 * the mark), and never for a token URL on this machine but the emulator's (the secret is not the file's own).
 */
function checkedSecrets(reply: KeychainReply, form: Form, path: string): UserSecrets {
  if (!reply.ok)
    throw new CredConnectionError(
      `The refresh token of ${quoted(path)} is in the keychain, which could not be read: ${reply.why}. Unlock the keychain (or start it), then try again.`,
      { code: ERROR_CODES.KEYCHAIN_UNAVAILABLE },
    );
  const held = parsedHeld(reply.secret);
  const { refresh_token: refreshToken, client_secret: clientSecret } = held ?? {};
  if (
    !(
      held?.id === form.entry.id &&
      typeof refreshToken === "string" &&
      refreshToken &&
      typeof clientSecret === "string" &&
      clientSecret
    )
  )
    throw invalid(path, "names a keychain entry that is gone or belongs to another save; sign in again");
  if (form.entry.account !== resolve(path) && (held[MARK] !== 1 || held.sha256 !== sha256Hex(form.text)))
    throw invalid(path, "is not the file its keychain entry was saved with; sign in again");
  const universe = trustedUniverse();
  trustedUrl(
    form.fields.tokenUrl ?? `https://oauth2.${universe.domain}/token`,
    { service: "oauth2", field: "token_uri", file: path },
    universe,
  );
  return { refreshToken, clientSecret };
}

function parsedHeld(secret: string | null | undefined): Held | undefined {
  try {
    const held: unknown = JSON.parse(secret ?? "");
    return typeof held === "object" && held !== null ? (held as Held) : undefined;
  } catch {
    return undefined;
  }
}

function invalid(path: string, problem: string): CredCredentialsError {
  return new CredCredentialsError(`The credentials file ${quoted(path)} ${problem}.`, {
    code: ERROR_CODES.FILE_INVALID,
  });
}
