import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { delimiter, join } from "node:path";
import { REMOTE_WORKSPACE_VARIABLES } from "../shared/hosted-platforms.js";
import { isLoopbackHostname } from "../trust/urls.js";

export type RuntimeKind =
  | "tslab"
  | "deno-jupyter"
  /** Another Jupyter kernel (IJavascript, for example). */
  | "jupyter"
  /** An interactive terminal: stdin and stderr are TTYs, not CI. */
  | "terminal"
  /** A pipe, a CI job, a service: nobody can type. */
  | "pipe";

/** What {@link detectRuntime} found, and why. */
export interface RuntimeInfo {
  kind: RuntimeKind;
  ci: boolean;
  /** Launching a browser on this machine can be expected to show it to the user. */
  canOpenBrowser: boolean;
  /** The user's browser is probably on another machine (SSH, container, remote notebook): a loopback redirect cannot reach us. */
  remote: boolean;
  /** Why the browser is taken to be elsewhere (or here): `container` and `jupyter-server` are guesses the user may overrule. */
  remoteBy: RemoteEvidence;
  /** Which of stdin and stderr are terminals (where a prompt can be answered and seen). */
  tty: { stdin: boolean; stderr: boolean };
  /** The terminal moves its cursor and erases lines (TERM set and not `dumb`; always on Windows): a live face can redraw. */
  cursorControl: boolean;
  reasons: string[];
}

/** What made `remote` true or false. */
export type RemoteEvidence =
  | { kind: "said"; by: string }
  | { kind: "ssh" | "workspace" | "jupyter-server" | "container"; detail: string }
  | { kind: "none" };

/** Facts about the host that are not in the environment variables. */
export interface HostFacts {
  platform: NodeJS.Platform;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** This machine's host name (a notebook server URL naming it is local). */
  hostname: string;
  /** Called only when needed: looks for container marker files; the one found (or true), else false. */
  inContainer(): boolean | string;
}

type Env = Readonly<Record<string, string | undefined>>;

const CI_VARIABLES = [
  "CI",
  "CONTINUOUS_INTEGRATION",
  "GITHUB_ACTIONS",
  "GITLAB_CI",
  "BUILDKITE",
  "CIRCLECI",
  "TRAVIS",
  "TF_BUILD",
  "JENKINS_URL",
  "TEAMCITY_VERSION",
  "CODEBUILD_BUILD_ID",
] as const;
const SSH_VARIABLES = ["SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"] as const;
const DISPLAY_VARIABLES = ["DISPLAY", "WAYLAND_DISPLAY", "MIR_SOCKET"] as const;
const CONTAINER_MARKERS = ["/.dockerenv", "/run/.containerenv"] as const;

/** The facts of the current process (reads files only when `inContainer()` is called). */
export function currentHost(): HostFacts {
  return {
    platform: process.platform,
    stdinIsTTY: process.stdin?.isTTY === true,
    stdoutIsTTY: process.stdout?.isTTY === true,
    stderrIsTTY: process.stderr?.isTTY === true,
    hostname: hostname(),
    inContainer: () => CONTAINER_MARKERS.find((marker) => existsSync(marker)) ?? false,
  };
}

/** Whether the browser is elsewhere, when the user said so (`CRED_AUTH_REMOTE`, the `remote` setting). */
export interface RemoteVerdict {
  remote: boolean;
  /** Where the user said it, for the reasons (`CRED_AUTH_REMOTE=1`, `the remote setting (cred-auth config)`). */
  saidBy: string;
}

/** Where the code runs, whether a browser can open here and whether the user's is elsewhere (`said`: their word). */
export function detectRuntime(
  env: Env = process.env,
  globals: object = globalThis,
  host: HostFacts = currentHost(),
  said?: RemoteVerdict,
): RuntimeInfo {
  const ciVariable = CI_VARIABLES.find((name) => isSet(env[name]));
  const reasons = ciVariable ? [`CI (${ciVariable})`] : [];
  const ci = ciVariable !== undefined;
  const kind = detectKind(env, globals, host, ci, reasons);
  const remoteBy: RemoteEvidence = said ? { kind: "said", by: said.saidBy } : remoteEvidence(env, host);
  if (said) reasons.push(`${said.remote ? "remote" : "local"}: ${said.saidBy}`);
  const remote = said ? said.remote : remoteBy.kind !== "none";
  if (remoteBy.kind !== "said" && remoteBy.kind !== "none") reasons.push(`remote: ${remoteBy.detail}`);
  const canOpenBrowser = browserCanOpen(env, host, { ci, remote }, reasons);
  const cursorControl = hasCursorControl(env, host.platform);
  if (kind === "terminal" && !cursorControl) reasons.push(`no cursor control: TERM=${env.TERM?.trim() || "(unset)"}`);
  const tty = { stdin: host.stdinIsTTY, stderr: host.stderrIsTTY };
  return { kind, ci, canOpenBrowser, remote, remoteBy, tty, cursorControl, reasons };
}

/** Whether the terminal can redraw: TERM other than `dumb`; Windows consoles have none and redraw anyway. */
function hasCursorControl(env: Env, platform: NodeJS.Platform): boolean {
  const term = env.TERM?.trim().toLowerCase();
  if (platform === "win32") return term !== "dumb";
  return term !== undefined && term !== "" && term !== "dumb";
}

function detectKind(env: Env, globals: object, host: HostFacts, ci: boolean, reasons: string[]): RuntimeKind {
  const kernel = notebookKernel(globals);
  if (kernel) {
    reasons.push(kernel === "tslab" ? "tslab kernel (globalThis.__tslab__)" : "Deno Jupyter kernel (Deno.jupyter)");
    return kernel;
  }
  if (isSet(env.JPY_PARENT_PID)) {
    reasons.push("Jupyter kernel (JPY_PARENT_PID)");
    return "jupyter";
  }
  if (host.stdinIsTTY && host.stderrIsTTY && !ci) {
    reasons.push("interactive terminal (stdin and stderr are TTYs)");
    return "terminal";
  }
  reasons.push(ci ? "CI: nobody can type" : "no terminal: stdin or stderr is not a TTY");
  return "pipe";
}

/** The notebook kernel of these globals, if any: two globals looked at, on every cache hit. */
export function notebookKernel(globals: object = globalThis): "tslab" | "deno-jupyter" | undefined {
  if (Reflect.get(globals, "__tslab__") != null) return "tslab";
  const deno: unknown = Reflect.get(globals, "Deno");
  const jupyter = typeof deno === "object" && deno !== null ? Reflect.get(deno, "jupyter") : undefined;
  return typeof jupyter === "object" && jupyter !== null ? "deno-jupyter" : undefined;
}

/** Why the browser is probably on another machine, or `none`. */
function remoteEvidence(env: Env, host: HostFacts): RemoteEvidence {
  const ssh = SSH_VARIABLES.find((name) => isSet(env[name]));
  if (ssh) return { kind: "ssh", detail: `SSH session (${ssh})` };
  const workspace = REMOTE_WORKSPACE_VARIABLES.find((name) => isSet(env[name]));
  if (workspace) return { kind: "workspace", detail: `hosted or cloud workspace (${workspace})` };
  const server = env.JUPYTER_SERVER_URL;
  if (isSet(server) && isOtherHostUrl(server, host.hostname))
    return {
      kind: "jupyter-server",
      detail: "the Jupyter server is not on this machine's loopback (JUPYTER_SERVER_URL)",
    };
  const container = host.inContainer();
  if (container)
    return { kind: "container", detail: `inside a container${typeof container === "string" ? ` (${container})` : ""}` };
  return { kind: "none" };
}

function browserCanOpen(
  env: Env,
  host: HostFacts,
  { ci, remote }: { ci: boolean; remote: boolean },
  reasons: string[],
): boolean {
  // BROWSER is the user's explicit choice (VS Code Remote sets one that opens the page locally).
  const browser = env.BROWSER?.trim();
  if (browser) {
    const none = browser.toLowerCase() === "none";
    reasons.push(none ? "no browser: BROWSER=none" : "browser: the BROWSER command");
    return !none;
  }
  if (ci || remote) {
    reasons.push("no browser: CI or remote session");
    return false;
  }
  if (
    // Unix desktops other than macOS show windows only through a display server.
    !["darwin", "win32", "android"].includes(host.platform) &&
    !isSet(env.WSL_DISTRO_NAME) &&
    !DISPLAY_VARIABLES.some((name) => isSet(env[name]))
  ) {
    reasons.push("no browser: no graphical display (DISPLAY, WAYLAND_DISPLAY, MIR_SOCKET unset)");
    return false;
  }
  return true;
}

/** A URL naming a host that is surely not this machine (unparsable or a wildcard: no claim). */
function isOtherHostUrl(value: string, ownHostname: string): boolean {
  let host: string;
  try {
    host = new URL(value).hostname.replace(/^\[|\]$/g, "").toLowerCase();
  } catch {
    return false;
  }
  const local = ["0.0.0.0", "::", ownHostname.toLowerCase()];
  return !local.includes(host) && !isLoopbackHostname(host === "::1" ? "[::1]" : host) && !host.endsWith(".localhost");
}

/** Whether the `gcloud` command is on `env.PATH` (asked only when no OAuth client is configured). */
export function gcloudOnPath(env: Env, platform: NodeJS.Platform = process.platform): boolean {
  const names = platform === "win32" ? ["gcloud.cmd", "gcloud.exe"] : ["gcloud"];
  const dirs = (env.PATH ?? "").split(delimiter).filter(Boolean);
  return dirs.some((dir) => names.some((name) => existsSync(join(dir, name))));
}

function isSet(value: string | undefined): value is string {
  return value !== undefined && value !== "" && value.toLowerCase() !== "false" && value !== "0";
}
