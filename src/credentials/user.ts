import type { Compute, Impersonated, UserRefreshClient } from "google-auth-library";
import { CACHE_WARNING_CODE, type CredentialsCache, READ_WRITE } from "../cache/index.js";
import { CredConnectionError } from "../errors.js";
import { codePageUrl, resolveEndpoints, type Endpoints } from "../google/endpoints.js";
import type { SignInResult } from "../oauth/flow.js";
import { resolveClient } from "../oauth/client.js";
import { callerUseLocalWebserver, signInMode } from "../oauth/mode.js";
import { assertValidScopes } from "../oauth/scopes.js";
import { completePendingSignIn } from "../oauth/pending.js";
import type { SaveUserCredentialsOptions, UserCredentialsOptions } from "../options.js";
import { debug } from "../util/debug.js";
import { loadGoogleAuth } from "../util/lazy.js";
import { colab } from "../hosted/colab.js";
import { hostedDisabledByEnv } from "../hosted/registry.js";
import { attachTokenCache, cacheSignInToken } from "./share-access-tokens.js";
import {
  type AuthorizedUserFile,
  authorizedUserFile as buildAuthorizedUserFile,
  checkWritableDestination,
  writeUserCredentialsFile,
} from "../google/files.js";
import type { ImpersonationChain } from "../google/impersonation.js";
import { CLOUD_PLATFORM_SCOPE, ENV } from "../shared/constants.js";
import { getCredentialInfo } from "../google/info.js";
import { proveCredentials, userRefreshClientFrom } from "../google/load-user.js";

/** The scopes that name the account, asked for by default with the caller's (as gcloud does). */
export const ACCOUNT_SCOPES: readonly string[] = ["openid", "https://www.googleapis.com/auth/userinfo.email"];

/**
 * User credentials from the cache, or through a sign-in.
 *
 * Inside Colab it returns Colab's own credentials for the notebook's user, as the original
 * 1.9 does (authorize first with `auth.authenticate_user()` in a Python cell); they refresh
 * themselves like user credentials, though they are not a `UserRefreshClient` underneath.
 * Outside Colab:
 *
 * Cached credentials are used when they cover the requested scopes (and belong to the
 * requested client) and still refresh; cached ones that lack a scope or whose refresh token
 * was revoked (`invalid_grant`) lead to a new sign-in. The new credentials are saved through
 * the cache ({@link cache.READ_WRITE} by default).
 *
 * With `impersonateServiceAccount`, those user credentials (signed in with the cloud-platform
 * scope) ask Google's IAM Credentials API for tokens that act as the service account.
 *
 * @returns google-auth-library `UserRefreshClient` that refreshes itself; inside Colab, Colab's
 * `Compute` client (both are `OAuth2Client`s that every Google client library accepts); with
 * `impersonateServiceAccount`, an `Impersonated` client acting as the service account.
 * @throws CredCredentialsError when the sign-in fails, is denied or times out, or no OAuth
 * client is configured.
 * @throws CredConnectionError when the token server cannot be reached, or no loopback port is free.
 * @throws CredCancelledError when `signal` aborts the sign-in.
 * @throws CredImpersonationError when the service account cannot be impersonated (`code` says why).
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
  const chain = chainOf(options);
  if (!chain) return userCredentials(scopes, options);
  const source = await userCredentials([CLOUD_PLATFORM_SCOPE], withoutImpersonation(options));
  return impersonation().impersonateProven(source, chain, scopes);
}

/** The chain of `impersonateServiceAccount`, validated, or undefined without one. */
export function chainOf(options: UserCredentialsOptions): ImpersonationChain | undefined {
  const value = options.impersonateServiceAccount;
  if (value === undefined) return undefined;
  const { parseImpersonationChain } =
    require("../google/impersonation.js") as typeof import("../google/impersonation.js");
  return parseImpersonationChain(value, "impersonateServiceAccount");
}

export function withoutImpersonation<T extends UserCredentialsOptions>(options: T): T {
  const rest = { ...options };
  delete rest.impersonateServiceAccount;
  return rest;
}

async function userCredentials(
  scopes: readonly string[],
  options: UserCredentialsOptions,
): Promise<UserRefreshClient | Compute> {
  const env = process.env;
  const endpoints = resolveEndpoints(env);
  const cache = options.credentialsCache ?? READ_WRITE;
  if (options.code !== undefined) return completeUserSignIn(options.code, options);
  const fromColab = await colabCredentials(scopes, env);
  if (fromColab) return fromColab;

  const cached = await cache.load();
  if (cached && usableFor(cached, scopes, options.clientId ?? env[ENV.clientId])) {
    attachTokenCache(cached); // a still-valid access token of an earlier process: no token request
    try {
      await proveCredentials(cached, "Refreshing the cached user credentials");
      debug(env, "cache: the cached credentials cover the scopes and work");
      return cached;
    } catch (error) {
      if (error instanceof CredConnectionError) throw error; // the network is down: a sign-in would not help
      debug(env, `cached credentials no longer refresh, signing in again: ${(error as Error).message}`);
    }
  } else if (cached) {
    debug(env, "cache: the cached credentials lack a requested scope or belong to another client, signing in again");
  } else {
    debug(env, "cache: no cached credentials, signing in");
  }

  let credentials: UserRefreshClient | undefined;
  await runSignIn(scopes, options, env, endpoints, async (result) => {
    credentials = await credentialsFrom(result, endpoints, env);
    const path = await saveOrWarn(cache, credentials);
    if (path) shareSignInToken(credentials, result, endpoints);
    return path;
  });
  return credentials as UserRefreshClient;
}

/** Completes the sign-in waiting in this process with a pasted code or address (see `completeSignIn`). */
export function completeUserSignIn(code: string, options: UserCredentialsOptions = {}): Promise<UserRefreshClient> {
  const env = process.env;
  const endpoints = resolveEndpoints(env);
  return completeWithCode({ ...options, code }, env, (result) => credentialsFrom(result, endpoints, env));
}

/**
 * Colab's credentials inside Colab (the original 1.9 asks Colab first), else undefined.
 * `CRED_AUTH_HOSTED=off` turns it off with the rest of the hosted layer.
 */
async function colabCredentials(scopes: readonly string[], env: NodeJS.ProcessEnv): Promise<Compute | undefined> {
  if (!colab.detect(env) || hostedDisabledByEnv(env)) return undefined;
  try {
    const { credentials } = await colab.credentials(scopes, env);
    const { Compute } = await loadGoogleAuth();
    if (!(credentials instanceof Compute)) throw new TypeError("Colab's credentials are not a metadata-server client");
    debug(env, "hosted: inside Colab, using Colab's credentials");
    return credentials;
  } catch (error) {
    debug(env, `hosted: inside Colab, but its credentials are unavailable (${(error as Error).message}); signing in`);
    return undefined;
  }
}

/**
 * The sign-in's own access token goes into the token cache under the saved file's key, and the
 * client keeps the cache fed: a restarted kernel, or `print-token` after `login`, then needs no
 * token request.
 */
function shareSignInToken(credentials: UserRefreshClient, result: SignInResult, endpoints: Endpoints): void {
  cacheSignInToken(authorizedUserFile(result, endpoints), result);
  attachTokenCache(credentials);
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
  const env = process.env;
  const endpoints = resolveEndpoints(env);
  const chain = chainOf(options);
  const write = async (result: SignInResult): Promise<string> => {
    const file = authorizedUserFile(result, endpoints);
    if (chain) await impersonation().writeImpersonatedFile(path, file, chain, scopes);
    else await writeUserCredentialsFile(path, file);
    cacheSignInToken(file, result); // `print-token` right after needs no token request
    return path;
  };
  if (options.code !== undefined) {
    await completeWithCode(options, env, async () => undefined);
    return;
  }
  checkWritableDestination(path); // before the sign-in: nobody wants to approve twice
  // Impersonation: the user's token only asks for the service account's (cloud-platform), which
  // gets the caller's scopes each time it is asked for (the file keeps them).
  await runSignIn(chain ? [CLOUD_PLATFORM_SCOPE] : scopes, withoutImpersonation(options), env, endpoints, write);
}

/**
 * Saves approved credentials through the cache; a cache that cannot be written (read-only HOME,
 * a file where its directory should be) loses nothing: a `CRED_AUTH_CACHE` warning, and the
 * credentials are returned all the same, as the original does. The path saved to, if any.
 */
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
  return info.scopes.length === 0 || coversScopes(info.scopes, scopes);
}

/** Google answers `email`/`profile` with their long names; both spellings mean the same grant. */
const SCOPE_ALIASES: Record<string, string> = {
  email: "https://www.googleapis.com/auth/userinfo.email",
  profile: "https://www.googleapis.com/auth/userinfo.profile",
};
// The cache-covers-scopes check needs no exception for ACCOUNT_SCOPES: it compares what was
// granted with the caller's scopes only, never with the extras this module adds.

/** Whether `granted` includes every scope of `requested`. */
export function coversScopes(granted: readonly string[], requested: readonly string[]): boolean {
  const have = new Set(granted.map((s) => SCOPE_ALIASES[s] ?? s));
  return requested.every((s) => have.has(SCOPE_ALIASES[s] ?? s));
}

/** The flow for this call, with the line that says so when it was chosen automatically. */
interface FlowDecision {
  useLocalWebserver?: boolean;
  /** Loopback on a remote machine: the browser's final address is pasted back; undefined: no verdict. */
  pasteBack?: boolean;
  /** The one line naming the flow, why, and the option or flag that changes it; none for the caller's choice. */
  line?: string;
}

/**
 * The flow for this call: the caller's choice, else the runtime's: the copy-paste flow on a
 * remote machine when a page that shows the code is configured; on a remote machine without
 * one the loopback flow, completed by pasting the browser's final address back; the loopback
 * flow otherwise.
 */
function flowFor(options: UserCredentialsOptions, env: NodeJS.ProcessEnv, endpoints: Endpoints): FlowDecision {
  const { detectRuntime } = signInRuntime();
  const runtime = detectRuntime(env);
  for (const reason of runtime.reasons) debug(env, `runtime: ${reason}`);
  if (callerUseLocalWebserver(options) !== undefined || options.redirectUri) {
    debug(env, "flow: the caller's choice (useLocalWebserver / redirectUri)");
    return {};
  }
  const where = runtime.reasons.find((r) => r.startsWith("remote:") || r.startsWith("local:"));
  const why = where ? where.replace(/^(remote|local): /, "") : undefined;
  if (!runtime.remote) {
    return {
      useLocalWebserver: true,
      pasteBack: false,
      line: `loopback sign-in: the browser can reach this machine${why ? ` (${why})` : ""}; useLocalWebserver: false (--no-use-local-webserver) pastes a code instead.`,
    };
  }
  if (codePageUrl(endpoints, env)) {
    return {
      useLocalWebserver: false,
      pasteBack: false,
      line: `copy-paste sign-in: this machine looks remote (${why ?? "detected"}) and a code page is configured; useLocalWebserver: true (--use-local-webserver) uses the loopback flow instead.`,
    };
  }
  return {
    useLocalWebserver: true,
    pasteBack: true,
    line: `loopback sign-in with the address pasted back: this machine looks remote (${why ?? "detected"}) and no code page is configured; ${ENV.redirectUri} or redirectUri (--redirect-uri) names a code page instead.`,
  };
}

async function runSignIn(
  scopes: readonly string[],
  options: SaveUserCredentialsOptions,
  env: NodeJS.ProcessEnv,
  endpoints: Endpoints,
  complete: (result: SignInResult) => Promise<string | undefined>,
): Promise<SignInResult> {
  const flow = flowFor(options, env, endpoints);
  const choice = {
    ...options,
    ...(flow.useLocalWebserver !== undefined ? { useLocalWebserver: flow.useLocalWebserver } : {}),
  };
  const mode = signInMode(choice);
  // A missing or broken client fails before the flow is announced: that line would only confuse.
  resolveClient({ ...choice, mode }, env, endpoints);
  if (flow.line) process.stderr.write(`cred-auth: ${flow.line}\n`);
  debug(
    env,
    `flow: ${mode}${flow.pasteBack && mode === "loopback" ? " (the browser's address may be pasted back)" : ""}`,
  );
  const presenter = await presenters().selectPresenter(options.presenter, { mode });
  debug(env, `presenter: ${presenterName(options.presenter)}`);
  return signInFlow().signIn({
    ...choice,
    scopes: withAccountScopes(scopes, options.includeAccountScopes ?? true),
    env,
    endpoints,
    presenter,
    mode,
    pasteBack: flow.pasteBack,
    complete,
  });
}

/** The caller's scopes plus {@link ACCOUNT_SCOPES} (unless already there), so the account can be named. */
export function withAccountScopes(scopes: readonly string[], include: boolean): string[] {
  if (!include) return [...scopes];
  const missing = ACCOUNT_SCOPES.filter((extra) => !coversScopes(scopes, [extra]));
  return [...scopes, ...missing];
}

function presenterName(choice: UserCredentialsOptions["presenter"]): string {
  if (typeof choice === "object" && choice !== null) return "the caller's own";
  return choice && choice !== "auto" ? `${choice} (the caller's choice)` : "auto (chosen for where the code runs)";
}

/**
 * Completes the copy-paste sign-in waiting in this process with `options.code`. The
 * credentials are saved where the call that started the sign-in meant (its cache or file).
 */
async function completeWithCode<T>(
  options: SaveUserCredentialsOptions,
  env: NodeJS.ProcessEnv,
  credentials: (result: SignInResult) => Promise<T>,
): Promise<T> {
  const presenter = await presenters().selectPresenter(options.presenter, { mode: "paste" });
  try {
    const { result, savedTo } = await completePendingSignIn(options.code ?? "");
    const done = await credentials(result);
    presenter.update({ type: "signed-in", account: result.account, savedTo });
    debug(env, "completed the pending copy-paste sign-in with the given code");
    return done;
  } catch (error) {
    presenter.update({ type: "failed", error: error instanceof Error ? error : new Error(String(error)) });
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
  client.setCredentials({
    refresh_token: result.refreshToken,
    access_token: result.accessToken,
    ...(result.expiryDate !== undefined ? { expiry_date: result.expiryDate } : {}),
    ...(result.idToken ? { id_token: result.idToken } : {}),
  });
  return client;
}

// The sign-in machinery (flow, loopback server, runtime detection, presenters) loads only when a
// sign-in runs: a cache hit, and default() with ADC, must not pay for it (bench/README.md, target 4).
const signInFlow = () => require("../oauth/flow.js") as typeof import("../oauth/flow.js");
const signInRuntime = () => require("../runtime/index.js") as typeof import("../runtime/index.js");
const presenters = () => require("../ui/select.js") as typeof import("../ui/select.js");
const impersonation = () => require("./impersonated.js") as typeof import("./impersonated.js");
