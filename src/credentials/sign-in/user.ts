import { planAccountNote } from "./account-note.js";
import { codeOf, messageOf } from "../../util/thrown.js";
import type { Compute, Impersonated, UserRefreshClient } from "google-auth-library";
import { CACHE_WARNING_CODE, type CredentialsCache, READ_WRITE } from "../../credentials-cache/index.js";
import { CredConnectionError, ERROR_CODES } from "../../errors.js";
import { resolveEndpoints, type Endpoints } from "../../protocols/endpoints.js";
import { type SignInResult, signIn } from "../../oauth/flow.js";
import { galCredentials } from "../../oauth/exchange.js";
import { assertValidScopes, missingScopes } from "../../oauth/scopes.js";
import {
  completePendingSignIn,
  getPendingSignIn,
  type PendingSignIn,
  SignInPendingError,
} from "../../oauth/pending.js";
import type { SaveUserCredentialsOptions, UserCredentialsOptions } from "../../options.js";
import { debug } from "../../util/debug.js";
import { colab } from "../../hosted/colab.js";
import { hostedDisabledByEnv } from "../../hosted/registry.js";
import { attachTokenCache, cacheSignInToken } from "../kinds/user/shared-tokens.js";
import { type AuthorizedUserFile, authorizedUserFile as buildAuthorizedUserFile } from "../kinds/user/file.js";
import { writeUserCredentialsFile } from "../../stores/credentials-file.js";
import { type ImpersonationChain, parseImpersonationChain } from "../../formats/impersonation-chain.js";
import { CLOUD_PLATFORM_SCOPE, ENV } from "../../shared/constants.js";
import { getCredentialInfo } from "../../protocols/info.js";
import { proveCredentials } from "../../protocols/token-requests.js";
import { userRefreshClientFrom } from "../kinds/user/client.js";
import { type PlanSources, type SignInPlan, type SignInRequest, planFace, planSignIn } from "./plan.js";
import { impersonateProven, writeImpersonatedFile } from "../kinds/impersonated/client.js";
import { type PendingCredentials, pendingCredentials } from "./pending-credentials.js";
import { selectPresenter, showAccountNote } from "../../ui/select.js";
import { checkSaveDestination } from "./destination.js";

/**
 * User credentials from the cache ({@link cache.READ_WRITE} by default) when they cover the scopes, belong to the
 * client and still refresh; else through a sign-in, saved there. Inside Colab, Colab's own, as the original 1.9.
 *
 * @returns a self-refreshing `UserRefreshClient`; inside Colab a `Compute`; with `impersonateServiceAccount`, an
 * `Impersonated` client acting as the service account (the user signed in with the cloud-platform scope).
 * @throws CredCredentialsError when the sign-in fails, is denied or times out, no OAuth client is configured, or
 * the service account cannot be impersonated (`code` says why).
 * @throws CredConnectionError when the token server cannot be reached, or no loopback port is free.
 * @throws CredCancelledError when `signal` aborts the sign-in.
 */
export function getUserCredentials(
  scopes: readonly string[],
  options: UserCredentialsOptions & { impersonateServiceAccount: string | readonly string[] },
): Promise<Impersonated>;
/** User credentials from the cache, or through a sign-in (see the first signature). */
export function getUserCredentials(
  scopes: readonly string[],
  options?: UserCredentialsOptions & { impersonateServiceAccount?: undefined },
): Promise<UserRefreshClient | Compute>;
/** User credentials, or with `impersonateServiceAccount` a service account's (see the first signature). */
export function getUserCredentials(
  scopes: readonly string[],
  options?: UserCredentialsOptions,
): Promise<UserRefreshClient | Compute | Impersonated>;
export async function getUserCredentials(
  scopes: readonly string[],
  options: UserCredentialsOptions = {},
): Promise<UserRefreshClient | Compute | Impersonated> {
  assertValidScopes(scopes); // Google's error page for a bad scope never comes back: say so before any sign-in
  return userCredentialsFor(scopes, options);
}

/** {@link getUserCredentials} for scopes already checked; with `impersonateServiceAccount`, the account's tokens. */
export async function userCredentialsFor(
  scopes: readonly string[],
  options: UserCredentialsOptions,
): Promise<UserRefreshClient | Compute | Impersonated> {
  const { chain, rest } = impersonationOf(options);
  // Impersonation proves the user's credentials at once: a two-cell sign-in stops the cell instead.
  const user = await userCredentials(
    chain ? [CLOUD_PLATFORM_SCOPE] : scopes,
    chain ? { ...rest, whenPending: "throw" } : rest,
  );
  return chain ? impersonateProven(user, chain, scopes) : user;
}

/** `impersonateServiceAccount` parsed (`chain`), and the other options (`rest`). */
export function impersonationOf<T extends UserCredentialsOptions>(options: T): { chain?: ImpersonationChain; rest: T } {
  const { impersonateServiceAccount: value, ...rest } = options;
  if (value === undefined) return { rest: rest as T };
  return { chain: parseImpersonationChain(value, "impersonateServiceAccount"), rest: rest as T };
}

async function userCredentials(
  scopes: readonly string[],
  options: UserCredentialsOptions,
): Promise<UserRefreshClient | Compute> {
  const env = process.env;
  const cache = options.credentialsCache ?? READ_WRITE;
  if (options.code !== undefined) return completeUserSignIn(options.code, options);
  const fromColab = await colabCredentials(scopes, env);
  if (fromColab) return fromColab;

  const cached = await cache.load();
  let clientRefused = false;
  if (cached && usableFor(cached, scopes, options.clientId ?? env[ENV.clientId])) {
    attachTokenCache(cached); // a still-valid access token of an earlier process: no token request
    try {
      await proveCredentials(cached, "Refreshing the cached user credentials");
      debug(env, "cache: the cached credentials cover the scopes and work");
      const kernel = planAccountNote(options); // "using account X (cached)" in a notebook, where the plan says
      if (kernel) await showAccountNote(kernel, getCredentialInfo(cached)?.account);
      return cached;
    } catch (error) {
      if (error instanceof CredConnectionError) throw error; // the network is down: a sign-in would not help
      clientRefused = codeOf(error) === ERROR_CODES.INVALID_CLIENT;
      debug(env, `cached credentials no longer refresh, signing in again: ${messageOf(error)}`);
    }
  } else if (cached) {
    debug(env, "cache: the cached credentials lack a requested scope or belong to another client, signing in again");
  } else {
    debug(env, "cache: no cached credentials, signing in");
  }

  let credentials: UserRefreshClient | undefined;
  const planned = planSignIn({ scopes, options });
  // The token server just refused the client: ask it again before a browser opens (checkClient), even if proven before.
  const plan = clientRefused ? { ...planned, flow: { ...planned.flow, checkClient: true } } : planned;
  const { endpoints } = plan.flow;
  // A notebook's two-cell sign-in: the cell returns these at once, the next cell completes them.
  const early = plan.whenPending === "return" ? await pendingCredentials(plan.flow, env) : undefined;
  try {
    await runSignIn(plan, options.signal, async (result) => {
      credentials = early ? early.fill(result) : await credentialsFrom(result, endpoints, env);
      const path = await saveOrWarn(cache, credentials);
      // The sign-in's access token under the saved file's key: the next process asks nothing.
      if (path) cacheSignInToken(authorizedUserFile(result, endpoints), result);
      if (path) attachTokenCache(credentials);
      return path;
    });
  } catch (error) {
    if (!(early && error instanceof SignInPendingError)) throw error;
    early.waitFor(error.pending);
    waiting.set(error.pending, early);
    stillWaiting.add(early.credentials);
    debug(env, "sign-in: waiting for completeSignIn(code or address); returning its credentials now");
    return early.credentials;
  }
  return credentials as UserRefreshClient;
}

/** Credentials a first cell returned, while their sign-in waits for `completeSignIn`. */
const stillWaiting = new WeakSet<object>();

/** Whether `credentials` still wait for their two-cell sign-in: default() keeps none, so a re-run signs in anew. */
export function awaitsSignIn(credentials: object): boolean {
  return stillWaiting.has(credentials);
}

/** The credentials a first cell returned, by the sign-in they wait for: `completeSignIn` returns the same object. */
const waiting = new WeakMap<PendingSignIn, PendingCredentials>();

/** Completes the sign-in waiting in this process with a pasted code or address (see `completeSignIn`). */
export function completeUserSignIn(code: string, options: UserCredentialsOptions = {}): Promise<UserRefreshClient> {
  const env = process.env;
  const endpoints = resolveEndpoints(env);
  const pending = getPendingSignIn();
  const early = pending ? waiting.get(pending) : undefined;
  // The first cell's credentials, filled by the completion it left behind; else new ones.
  return completeWithCode(
    { ...options, code },
    async (result) => early?.credentials ?? credentialsFrom(result, endpoints, env),
  );
}

/** Colab's credentials inside Colab (asked first, as the original does), else undefined. */
async function colabCredentials(scopes: readonly string[], env: NodeJS.ProcessEnv): Promise<Compute | undefined> {
  if (!colab.detect(env) || hostedDisabledByEnv(env)) return undefined;
  try {
    const { credentials } = await colab.credentials(scopes, env);
    debug(env, "hosted: inside Colab, using Colab's credentials");
    return credentials;
  } catch (error) {
    debug(env, `hosted: inside Colab, but its credentials are unavailable (${messageOf(error)}); signing in`);
    return undefined;
  }
}

/**
 * Runs a sign-in and writes the credentials to `path` as an ADC `authorized_user` file
 * (atomic, mode 0600). Never reads or writes the credentials cache.
 *
 * @throws CredCredentialsError, CredConnectionError, CredCancelledError as {@link getUserCredentials}.
 */
export async function saveUserCredentials(
  scopes: readonly string[],
  path: string,
  options: SaveUserCredentialsOptions = {},
): Promise<void> {
  assertValidScopes(scopes); // Google's error page for a bad scope never comes back: say so before any sign-in
  const { chain, rest } = impersonationOf(options);
  if (options.code !== undefined) {
    await completeWithCode(options, async () => undefined);
    return;
  }
  await saveSignIn({ scopes, options: rest, ...(chain ? { impersonation: chain } : {}) }, path);
}

/** {@link saveUserCredentials} for a plan request (`cred-auth login`'s flags, its `sources` read once). */
export async function saveSignIn(request: SignInRequest, path: string, sources?: PlanSources): Promise<void> {
  // Before the sign-in: nobody wants to approve twice, nor lose the key that was there.
  checkSaveDestination(path, request.options.overwrite ? { overwrite: true } : {});
  const plan = planSignIn(request, sources);
  try {
    await runSignIn(plan, request.options.signal, async (result) => {
      const file = authorizedUserFile(result, plan.flow.endpoints);
      // Impersonation: the user's token only asked for the service account's, which gets the
      // caller's scopes each time it is asked for (the file keeps them).
      if (plan.impersonation) await writeImpersonatedFile(path, file, plan.impersonation, plan.scopes);
      else await writeUserCredentialsFile(path, file);
      cacheSignInToken(file, result); // `print-token` right after needs no token request
      return path;
    });
  } catch (error) {
    // A notebook's two-cell sign-in: the file is written when completeSignIn brings the code.
    if (plan.whenPending === "return" && error instanceof SignInPendingError) return;
    throw error;
  }
}

/** Saves approved credentials through the cache; an unwritable cache loses nothing (a warning). The path saved to. */
async function saveOrWarn(cache: CredentialsCache, credentials: UserRefreshClient): Promise<string | undefined> {
  try {
    await cache.save(credentials);
  } catch (error) {
    const reason = error instanceof Error ? error.message : "it could not be written.";
    process.emitWarning(`The credentials cache was not written, so the next run signs in again: ${reason}`, {
      type: "CredAuthWarning",
      code: CACHE_WARNING_CODE,
    });
    return undefined;
  }
  return "path" in cache && typeof cache.path === "string" ? cache.path : undefined;
}

/** Whether cached credentials were granted every requested scope (and the requested client). */
function usableFor(cached: UserRefreshClient, scopes: readonly string[], clientId: string | undefined): boolean {
  const info = getCredentialInfo(cached);
  if (!info) return true; // a custom cache that records nothing: trust it, as the original does
  if (clientId && info.clientId && info.clientId !== clientId.trim()) return false;
  // Google answers `email`/`profile` with their long names; both spellings mean the same grant.
  return info.scopes.length === 0 || missingScopes(info.scopes, scopes).length === 0;
}

/** Runs a planned sign-in: the flow's line (and, with CRED_AUTH_DEBUG=1, why), the planned face, `complete`. */
async function runSignIn(
  plan: SignInPlan,
  signal: AbortSignal | undefined,
  complete: (result: SignInResult) => Promise<string | undefined>,
): Promise<SignInResult> {
  announce(plan, process.env);
  const presenter = await selectPresenter(plan.face);
  try {
    return await signIn(plan.flow, { presenter, signal, complete });
  } catch (error) {
    if (error instanceof Error && !(error instanceof SignInPendingError)) shown.add(error);
    throw error;
  }
}

/** Failures of a sign-in that ran: its face has shown them (the card, the terminal). */
const shown = new WeakSet<Error>();

/** Whether `error` ended a sign-in that ran: default() passes it on as it is. */
export function endedShownSignIn(error: unknown): boolean {
  return error instanceof Error && shown.has(error);
}

/** The plan's reasons as debug lines; the notes are the face's (stderr for the caller's own presenter). */
function announce(plan: SignInPlan, env: NodeJS.ProcessEnv): void {
  for (const reason of plan.runtime.reasons) debug(env, `runtime: ${reason}`);
  for (const detail of plan.face.details) debug(env, detail);
  if (typeof plan.face.face === "object")
    for (const note of plan.face.notes) process.stderr.write(`cred-auth: ${note}\n`);
  if (!plan.announcement) debug(env, "flow: the caller's choice (useLocalWebserver / redirectUri)");
  const { redirect, pasteBack } = plan.flow;
  debug(
    env,
    `flow: ${redirect.mode}${pasteBack && redirect.mode === "loopback" ? " (the browser's address may be pasted back)" : ""}`,
  );
  const { face, fallback } = plan.face;
  const name =
    typeof face === "object"
      ? "the caller's own"
      : fallback
        ? `auto (${face}, chosen for where the code runs)`
        : `${face} (the caller's choice)`;
  debug(env, `presenter: ${name}`);
}

/** Completes the copy-paste sign-in waiting in this process with `options.code`, saving where its first call meant. */
async function completeWithCode<T>(
  options: SaveUserCredentialsOptions,
  credentials: (result: SignInResult) => Promise<T>,
): Promise<T> {
  const env = process.env;
  const presenter = await selectPresenter(planFace(options));
  try {
    const { result, savedTo } = await completePendingSignIn(options.code ?? "");
    const done = await credentials(result);
    presenter.update({ type: "signed-in", account: result.account, savedTo });
    debug(env, "completed the pending copy-paste sign-in with the given code");
    return done;
  } catch (error) {
    // Still waiting (the placeholder, a refused paste) or denied: the first cell's card says so.
    const shownAbove = getPendingSignIn() !== undefined || codeOf(error) === ERROR_CODES.ACCESS_DENIED;
    const failure = error instanceof Error ? error : new Error(String(error));
    if (!shownAbove) presenter.update({ type: "failed", error: failure, thrown: true });
    throw error;
  } finally {
    await presenter.close?.();
  }
}

/** The `authorized_user` file for a sign-in's tokens (the ADC format). */
function authorizedUserFile(result: SignInResult, endpoints: Endpoints): AuthorizedUserFile {
  const { clientId, clientSecret, refreshToken, scopes, idToken, account } = result;
  return buildAuthorizedUserFile({
    clientId,
    clientSecret,
    refreshToken,
    tokenUrl: endpoints.tokenUrl,
    scopes,
    idToken,
    account,
  });
}

/** A self-refreshing client holding the sign-in's tokens (no extra token request needed). */
async function credentialsFrom(
  result: SignInResult,
  endpoints: Endpoints,
  env: NodeJS.ProcessEnv,
): Promise<UserRefreshClient> {
  const client = await userRefreshClientFrom(authorizedUserFile(result, endpoints), { env });
  client.setCredentials(galCredentials(result));
  return client;
}
