// The sign-in plan: every decision of a sign-in, made once, from the options, the environment, the settings
// (read at most once) and the runtime (detected once); oauth/ and ui/ receive plain values and decide nothing.
import { CredCredentialsError, ERROR_CODES } from "../../errors.js";
import { codePageUrl, emulatorNotice, resolveEndpoints } from "../../protocols/endpoints.js";
import type { ImpersonationChain } from "../../formats/impersonation-chain.js";
import {
  CLIENT_DOC,
  type ClientKind,
  type ClientSource,
  fromSecretFile,
  incompleteClientError,
  noClientError,
  type ResolvedClient,
} from "../../oauth/client.js";
import { clientProven } from "../../oauth/client-check.js";
import {
  DEFAULT_TIMEOUT_MS,
  type FlowPlan,
  type LoopbackHost,
  type LoopbackRedirect,
  type PortRange,
} from "../../oauth/plan.js";
import { assertValidScopes, missingScopes } from "../../oauth/scopes.js";
import type { BrowserLaunch } from "../../os/browser.js";
import type { SaveUserCredentialsOptions } from "../../options.js";
import { currentHost, detectRuntime, gcloudOnPath, type HostFacts, type RuntimeInfo } from "../../runtime/detect.js";
import { parsePortRange, type Settings } from "../../settings/keys.js";
import { chosen } from "../../settings/order.js";
import { readSettings } from "../../settings/read.js";
import { CLOUD_PLATFORM_SCOPE, DEMO_CLIENT, DEMO_WEB_CLIENT, ENV, LOOPBACK_PORTS } from "../../shared/constants.js";
import type { FacePlan, PromptDevice } from "../../ui/face-plan.js";
import { scopeCheckNotes } from "../../oauth/known-scopes.js";
import { isLoopbackName } from "../../trust/urls.js";
import { MESSAGES } from "../../messages.js";

/** The scopes that name the account, asked for by default with the caller's (as gcloud does). */
export const ACCOUNT_SCOPES: readonly string[] = ["openid", "https://www.googleapis.com/auth/userinfo.email"];

/** Where a sign-in's decisions come from besides the call's options. */
export interface PlanSources {
  readonly env: NodeJS.ProcessEnv;
  /** The user's settings (`cred-auth config`): the file is read on the first call, then kept. */
  settings(): Settings;
  /** The globals a notebook kernel marks (default `globalThis`). */
  readonly globals?: object;
  /** The facts of this process (default: {@link currentHost}). */
  readonly host?: HostFacts;
}

/** The sources of this process: `env`, and the settings file it names, read once when first needed. */
export function planSources(env: NodeJS.ProcessEnv = process.env): PlanSources {
  let settings: Settings | undefined;
  return { env, settings: () => (settings ??= readSettings(env)) };
}

export interface SignInRequest {
  /** The scopes to sign in for, checked by the caller; undefined: the `scopes` setting, else cloud-platform (`cred-auth login`). */
  readonly scopes?: readonly string[];
  readonly options: SaveUserCredentialsOptions;
  /** The user signs in to act as the last service account of this chain (`impersonateServiceAccount`). */
  readonly impersonation?: ImpersonationChain;
  /** The type of the options' client, when the caller read it from a client-secret file (`login --client-secret-file`). */
  readonly clientKind?: ClientKind;
}

export interface SignInPlan {
  /** The scopes asked for by the caller (or the default); the tokens of an impersonation get these. */
  readonly scopes: readonly string[];
  /** The service account (and delegates) the signed-in user acts as, when impersonating. */
  readonly impersonation?: ImpersonationChain;
  /** Where the code runs: the one detection of this sign-in. */
  readonly runtime: RuntimeInfo;
  readonly flow: FlowPlan;
  /** How the sign-in is shown, with its notes (the emulator, unknown scopes) and details (why this flow). */
  readonly face: FacePlan;
  /** The line naming the flow chosen for this machine, why, and what works instead here; undefined when the caller chose. */
  readonly announcement?: string;
  /**
   * When the face cannot read the code (a notebook): `return` credentials completeSignIn completes, so the cell
   * ends normally (tslab drops cells queued behind a failed one), or `throw` {@link SignInPendingError}.
   */
  readonly whenPending: "return" | "throw";
}

/** Plans a sign-in for checked scopes; throws, before anything is shown or bound, what the plan cannot be made with. */
export function planSignIn(request: SignInRequest, sources: PlanSources = planSources()): SignInPlan {
  const { options, impersonation } = request;
  const scopes = request.scopes ?? defaultScopes(sources);
  const runtime = runtimeOf(sources);
  const endpoints = resolveEndpoints(sources.env, { announce: false });
  const codePage = codePageUrl(endpoints, sources.env);
  const caller = callerMode(options.useLocalWebserver, options.redirectUri);
  const own = ownClient(options, caller === "paste" && Boolean(options.redirectUri), sources, request.clientKind);
  const flow = caller ? { mode: caller } : flowChoice(runtime, codePage, own?.kind);
  // None of the user's: the emulator lends the client each flow needs (no kind: its advice may name either flow).
  if (!own && !endpoints.emulator) throw noClientError((gcloudOnPath(sources.env) && scopes) || undefined);
  const client: ResolvedClient = own ?? { ...(flow.mode === "paste" ? DEMO_WEB_CLIENT : DEMO_CLIENT), source: "demo" };
  // Impersonation: the user's token only asks for the service account's (cloud-platform).
  const signInScopes = impersonation ? [CLOUD_PLATFORM_SCOPE] : scopes;
  const announcement = caller ? undefined : flowLine(flow, runtime, client, codePage);
  const notes = [emulatorNotice(endpoints), ...scopeCheckNotes(signInScopes, sources.env)].filter(
    (note): note is string => note !== undefined,
  );
  const details = [...(announcement ? [announcement] : []), MESSAGES.googleErrorPage];
  const face = facePlan(options, runtime, sources, { flow, notes, details });
  return {
    scopes,
    ...(impersonation ? { impersonation } : {}),
    runtime,
    face,
    ...(announcement ? { announcement } : {}),
    whenPending: options.whenPending ?? (face.face === "tslab" || face.face === "deno" ? "return" : "throw"),
    flow: {
      scopes: withAccountScopes(signInScopes, options.includeAccountScopes ?? true),
      endpoints,
      client,
      redirect:
        flow.mode === "paste"
          ? { mode: "paste", uri: pasteRedirectUri(options.redirectUri, codePage) }
          : loopbackRedirect(options.redirectUri, sources),
      pasteBack: flow.pasteBack,
      browser: browserLaunch(options.openBrowser ?? runtime.canOpenBrowser, sources.env),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      ...(options.loginHint ? { loginHint: options.loginHint } : {}),
      // A made-up code asked of the token server before the browser opens: at the emulator always (a dead
      // emulator, an unknown client), at Google unless this process knows the client works.
      checkClient: endpoints.emulator || !clientProven(client.clientId, endpoints.tokenUrl),
    },
  };
}

/** The scopes of a call that names none: the `scopes` setting, else cloud-platform. */
function defaultScopes(sources: PlanSources): readonly string[] {
  const scopes = sources.settings().scopes ?? [CLOUD_PLATFORM_SCOPE];
  assertValidScopes(scopes); // a hand-edited settings file may name a scope Google would refuse
  return scopes;
}

/** The face alone, for a call that completes a waiting sign-in (`completeSignIn`, `{ code }`). */
export function planFace(options: SaveUserCredentialsOptions, sources: PlanSources = planSources()): FacePlan {
  return facePlan(options, runtimeOf(sources), sources, { notes: [], details: [] });
}

/** Where the code runs and whether a browser can be launched there, for a command that opens pages (`config init`). */
export type BrowserPlan = { readonly runtime: RuntimeInfo; readonly browser: BrowserLaunch };

/** The browser half of a plan alone: the one runtime detection, and the launch it allows. */
export function planBrowser(sources: PlanSources = planSources()): BrowserPlan {
  const runtime = runtimeOf(sources);
  return { runtime, browser: browserLaunch(runtime.canOpenBrowser, sources.env) };
}

/** The caller's scopes plus {@link ACCOUNT_SCOPES} (unless already there), so the account can be named. */
export function withAccountScopes(scopes: readonly string[], include: boolean): string[] {
  return include ? [...scopes, ...missingScopes(scopes, ACCOUNT_SCOPES)] : [...scopes];
}

/** The one detection of a sign-in, with the user's word on `remote` (`CRED_AUTH_REMOTE`, the setting). */
function runtimeOf(sources: PlanSources): RuntimeInfo {
  const forced = sources.env[ENV.remote]?.trim();
  const said = chosen(
    undefined,
    () =>
      forced === "0" || forced === "1" ? { remote: forced === "1", saidBy: `${ENV.remote}=${forced}` } : undefined,
    () => {
      const remote = sources.settings().remote;
      return remote === undefined ? undefined : { remote, saidBy: "the remote setting (cred-auth config)" };
    },
  );
  return detectRuntime(sources.env, sources.globals, sources.host ?? currentHost(), said);
}

/** The flow of a sign-in chosen for this machine. */
interface FlowChoice {
  mode: "loopback" | "paste";
  /** Loopback on a remote machine: the browser's final address is pasted back; undefined: no verdict (the caller chose). */
  pasteBack?: boolean;
}

/**
 * The runtime's flow: loopback on a local machine; on a remote one copy-paste when a code page is configured
 * (not for a Desktop client, which Google sends only to localhost), else loopback with the address pasted back.
 */
function flowChoice(runtime: RuntimeInfo, codePage: string | undefined, kind: ClientKind | undefined): FlowChoice {
  if (!runtime.remote) return { mode: "loopback", pasteBack: false };
  if (codePage && kind !== "desktop") return { mode: "paste", pasteBack: false };
  return { mode: "loopback", pasteBack: true };
}

/** The caller's flow, or undefined: a non-loopback redirectUri means copy-paste (contradicting `useLocalWebserver: true`). */
function callerMode(said: boolean | undefined, redirectUri: string | undefined): "loopback" | "paste" | undefined {
  if (said === false) return "paste";
  if (!redirectUri) return said === true ? "loopback" : undefined;
  if (loopbackTarget(redirectUri)) return "loopback";
  if (said === true) {
    throw new CredCredentialsError(
      `redirectUri "${redirectUri}" is not a loopback address (http://localhost:PORT/), so the browser cannot come back to this program; use useLocalWebserver: false for a page that shows the code.`,
      { code: ERROR_CODES.INVALID_OPTION },
    );
  }
  return "paste";
}

/** How to say the remote verdict is wrong: the setting and the variable that overrule it. */
const SAY_LOCAL = `${ENV.remote}=0 (or \`cred-auth config set remote false\`)`;
const SAY_REMOTE = `${ENV.remote}=1 (or \`cred-auth config set remote true\`)`;

/** The flow's line: what was chosen, why, and what works instead for this client here. */
function flowLine(
  flow: FlowChoice,
  runtime: RuntimeInfo,
  client: ResolvedClient,
  codePage: string | undefined,
): string {
  const desktop = client.kind === "desktop";
  const { remoteBy } = runtime;
  const why = remoteBy.kind === "none" ? undefined : remoteBy.kind === "said" ? remoteBy.by : remoteBy.detail;
  const guess = remoteBy.kind === "container" || remoteBy.kind === "jupyter-server";
  const local = guess ? `; if the browser runs on this machine, ${SAY_LOCAL} uses the loopback flow` : "";
  if (!runtime.remote) {
    const paste =
      codePage && !desktop ? "; useLocalWebserver: false (--no-use-local-webserver) pastes a code instead" : "";
    return `loopback sign-in: the browser can reach this machine${why ? ` (${why})` : ""}${paste}; if the browser is on another machine, ${SAY_REMOTE} pastes its final address back.`;
  }
  if (flow.mode === "paste")
    return `copy-paste sign-in: this machine looks remote (${why}) and a code page is configured; useLocalWebserver: true (--use-local-webserver) uses the loopback flow instead${local}.`;
  const page = desktop
    ? ""
    : `; ${ENV.redirectUri} or redirectUri (--redirect-uri) names a code page instead (a Web client's)`;
  return `loopback sign-in with the address pasted back: this machine looks remote (${why}) and ${desktop ? "a Desktop client has" : "there is"} no code page${page}${local}.`;
}

/** Host, port and path of a loopback redirect URI such as `http://127.0.0.1:9004/cb`; else undefined. */
export function loopbackTarget(uri: string): Omit<LoopbackRedirect, "mode"> | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  const host = url.hostname === "[::1]" ? "::1" : url.hostname;
  if (url.protocol !== "http:" || !url.port || !isLoopbackHost(host)) return undefined;
  if (url.search || url.hash) return undefined;
  const port = Number(url.port);
  return { host, ports: { first: port, last: port }, path: url.pathname };
}

function isLoopbackHost(host: string): host is LoopbackHost {
  return isLoopbackName(host === "::1" ? "[::1]" : host);
}

/** The caller's loopback redirect URI exactly, else localhost on the first free port of the range. */
function loopbackRedirect(redirectUri: string | undefined, sources: PlanSources): LoopbackRedirect {
  const target = redirectUri ? loopbackTarget(redirectUri) : undefined;
  return { mode: "loopback", ...(target ?? { host: "localhost", ports: loopbackPorts(sources), path: "/" }) };
}

/** `CRED_AUTH_LOOPBACK_PORTS` (`20000-20009` or `20000`), else the `loopback-ports` setting, else 8080-8089. */
function loopbackPorts(sources: PlanSources): PortRange {
  const value = chosen(
    undefined,
    () => sources.env[ENV.loopbackPorts]?.trim() || undefined,
    () => sources.settings()["loopback-ports"],
  );
  if (value === undefined) return { ...LOOPBACK_PORTS };
  const range = parsePortRange(value);
  if (range) return range;
  throw new CredCredentialsError(`${ENV.loopbackPorts}="${value}" is not a port range; use for example 20000-20009.`, {
    code: ERROR_CODES.INVALID_OPTION,
  });
}

/** Where the copy-paste flow sends the browser: the caller's `redirectUri`, else the configured code page. */
function pasteRedirectUri(redirectUri: string | undefined, codePage: string | undefined): string {
  const uri = redirectUri?.trim() || codePage;
  if (!uri) {
    throw new CredCredentialsError(
      `The copy-paste sign-in needs a page that shows the code, and Google has none for a Desktop client: leave useLocalWebserver (--no-use-local-webserver) out, and on a remote machine the loopback sign-in takes the browser's final address pasted back (${SAY_REMOTE}); or, with a Web client, host docs/oauth.html (see docs/oauth-client.md) and pass its address as redirectUri or ${ENV.redirectUri}.`,
      { code: ERROR_CODES.INVALID_OPTION },
    );
  }
  if (!/^https?:\/\//i.test(uri))
    throw new CredCredentialsError(`The redirect URI must be an http(s) address, not "${uri}".`, {
      code: ERROR_CODES.INVALID_OPTION,
    });
  return uri;
}

/** Launch a browser? `BROWSER` names the command (`none`: never), else the system's default. */
function browserLaunch(wanted: boolean, env: NodeJS.ProcessEnv): BrowserLaunch {
  const command = env.BROWSER?.trim();
  if (!wanted || command?.toLowerCase() === "none") return "none";
  return command ? { command } : "system";
}

/**
 * The user's OAuth client, undefined when none is named: options, else CRED_AUTH_CLIENT_ID/SECRET, else
 * CRED_AUTH_CLIENT_SECRET_FILE, else the settings (another project's is never borrowed); `toOwnPage` needs a whole one.
 */
function ownClient(
  options: Pick<SaveUserCredentialsOptions, "clientId" | "clientSecret">,
  toOwnPage: boolean,
  sources: PlanSources,
  kind?: ClientKind,
): ResolvedClient | undefined {
  // FACTS 1: the copy-paste flow towards an explicit redirect URI needs a complete client of the caller's.
  if (toOwnPage && Boolean(options.clientId?.trim()) !== Boolean(options.clientSecret?.trim()))
    throw incompleteClientError();
  const { env } = sources;
  const fromOptions = clientPair(
    options.clientId,
    options.clientSecret,
    "options",
    "the clientId and clientSecret options",
  );
  const client = chosen(
    fromOptions && kind ? { ...fromOptions, kind } : fromOptions,
    () =>
      clientPair(env[ENV.clientId], env[ENV.clientSecret], "env", `${ENV.clientId} and ${ENV.clientSecret}`) ??
      fromSecretFile(env[ENV.clientSecretFile]),
    () => clientOfSettings(sources.settings()),
  );
  if (!client && toOwnPage) throw incompleteClientError();
  return client;
}

/** The client an id and a secret make (trimmed); undefined for neither; an error naming `what` for one alone. */
function clientPair(
  id: string | undefined,
  secret: string | undefined,
  source: ClientSource,
  what: string,
): ResolvedClient | undefined {
  const clientId = id?.trim();
  const clientSecret = secret?.trim();
  if (!clientId && !clientSecret) return undefined;
  if (!clientId || !clientSecret) {
    throw new CredCredentialsError(
      `Give both parts of the OAuth client: ${what} (only one is set); see ${CLIENT_DOC}.`,
      { code: ERROR_CODES.NO_OAUTH_CLIENT },
    );
  }
  return { clientId, clientSecret, source };
}

/** The client kept by `cred-auth config`: its client-secret file, or its id and secret. */
function clientOfSettings(settings: Settings): ResolvedClient | undefined {
  const file = settings["client-secret-file"];
  const fromFile = file ? fromSecretFile(file, "the client-secret-file setting (cred-auth config)") : undefined;
  if (fromFile) return { ...fromFile, source: "settings" };
  return clientPair(
    settings["client-id"],
    settings["client-secret"],
    "settings",
    "the client-id and client-secret settings (cred-auth config set client-id ID client-secret SECRET)",
  );
}

/** What the face plan needs of the sign-in: its flow (for how a notebook takes the code), notes and details. */
interface FaceContext {
  flow?: FlowChoice;
  notes: readonly string[];
  details: readonly string[];
}

/** The face: the caller's, else the `ui` setting, else `auto` for where the code runs; with its colour and prompt. */
function facePlan(
  options: SaveUserCredentialsOptions,
  runtime: RuntimeInfo,
  sources: PlanSources,
  context: FaceContext,
): FacePlan {
  const color = !sources.env.NO_COLOR && runtime.cursorControl;
  const shared = {
    color,
    prompt: promptDevice(runtime),
    codeEntry: codeEntry(runtime, context.flow),
    notes: context.notes,
    details: context.details,
  };
  const wanted = options.presenter ?? sources.settings().ui ?? "auto";
  if (typeof wanted === "object") return { face: wanted, fallback: false, ...shared };
  if (wanted === "plain" || wanted === "terminal") return { face: wanted, fallback: false, ...shared };
  const notebook = runtime.kind === "tslab" ? "tslab" : runtime.kind === "deno-jupyter" ? "deno" : undefined;
  if (wanted === "notebook") {
    if (notebook) return { face: notebook, fallback: false, ...shared };
    throw new CredCredentialsError(
      'presenter: "notebook" needs a tslab or Deno Jupyter kernel; use "auto", "terminal" or "plain" here.',
      { code: ERROR_CODES.PRESENTER_UNAVAILABLE },
    );
  }
  const live = runtime.kind === "terminal" && runtime.cursorControl;
  return { face: notebook ?? (live ? "terminal" : "plain"), fallback: true, ...shared };
}

/** Where a face prompts: the terminal; /dev/tty when stderr is a file or pipe (nothing typed reaches a log); stdin. */
function promptDevice(runtime: RuntimeInfo): PromptDevice {
  if (!runtime.tty.stdin || runtime.ci) return "stdin";
  return runtime.tty.stderr ? "stderr" : "tty";
}

/** How a notebook card takes a pasted code: the next cell, or Deno's `prompt()` in copy-paste (never beside a loopback wait). */
function codeEntry(runtime: RuntimeInfo, flow: FlowChoice | undefined): "prompt" | "second-cell" {
  return runtime.kind === "deno-jupyter" && flow?.mode === "paste" ? "prompt" : "second-cell";
}
