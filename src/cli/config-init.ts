// `cred-auth config init [CLIENT_FILE]`: the guided setup of the user's own OAuth client. A sign-in
// at Google runs as an OAuth client the user owns (cred-auth borrows none), and creating one takes
// three steps in the Google Cloud console. This command says them, opens each page (or prints it,
// when this machine cannot show a browser), takes the JSON file the console downloads, checks that
// it is a "Desktop app" client (the loopback sign-in needs one), and keeps its id and secret in the
// settings through the one settings writer (config.ts), so that the downloaded file may go.
import { basename, join, resolve } from "node:path";
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { type BrowserPlan, planBrowser, planSources } from "../credentials/sign-in/plan.js";
import { openBrowser } from "../os/browser.js";
import { credentialsInsteadOfClient, readClientSecretText } from "../oauth/client.js";
import { newestDownload } from "../oauth/client-download.js";
import { printable } from "../trust/text.js";
import type { Settings, SettingKey } from "../settings/keys.js";
import { UsageError } from "./args.js";
import { EXIT } from "./output.js";
import { type TerminalPrompt, terminalPrompt } from "./prompt.js";

/** The settings writer (config.ts's `writeSettings`): stores `changes`, removes `removed`, returns the file's path. */
export type SettingsWriter = (changes: Settings, removed: readonly SettingKey[]) => Promise<string>;

/** One step in the Google Cloud console. */
export interface ConsoleStep {
  title: string;
  url: string;
  /** What to do on the page, one line each. */
  details: readonly string[];
}

/** A Desktop client's id and secret, and the project its file names. */
export interface DesktopClient {
  clientId: string;
  clientSecret: string;
  projectId?: string;
}

/** The three console steps, in order (the pages of the Google Auth Platform). */
export const CONSOLE_STEPS: readonly ConsoleStep[] = [
  {
    title: "Create a Google Cloud project (or pick one you own)",
    url: "https://console.cloud.google.com/projectcreate",
    details: ["Any name will do; the project owns the client and its quota."],
  },
  {
    title: "Set up the consent screen, with yourself as a test user",
    url: "https://console.cloud.google.com/auth/overview",
    details: [
      'Get started: app name, support e-mail, audience "External" (or "Internal" in a Workspace organisation).',
      'Then Audience > Test users: add every account that will sign in while the app is in "Testing".',
    ],
  },
  {
    title: 'Create an OAuth client of type "Desktop app" and download its JSON',
    url: "https://console.cloud.google.com/auth/clients/create",
    details: [
      'Application type "Desktop app", any name, Create; then "Download JSON"',
      "(a file named like client_secret_1234-abc.apps.googleusercontent.com.json).",
    ],
  },
];

/** How many times an interactive user may give a path that is refused. */
const PATH_ATTEMPTS = 3;

/**
 * Runs `cred-auth config init [CLIENT_FILE]` (the words after `init`): with a file, checks and keeps
 * it; without, guides through the console steps at an interactive terminal, or prints them and
 * says how to go on where nobody can answer.
 */
export async function configInit(
  args: readonly string[],
  store: SettingsWriter,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  if (args.length > 1)
    throw new UsageError(`config init takes at most one CLIENT_FILE, got ${args.length} arguments`, "config");
  const [file] = args;
  if (file !== undefined) return keep(resolve(file), store);
  const plan = planBrowser(planSources(env));
  const { runtime } = plan;
  if (runtime.kind !== "terminal") {
    say(introduction("Open each address in a browser."));
    say(CONSOLE_STEPS.map(stepText).join(""));
    throw new UsageError(
      "no terminal to ask in: once the client's JSON file is downloaded, run `cred-auth config init CLIENT_FILE`",
      "config",
    );
  }
  say(
    introduction(
      runtime.canOpenBrowser
        ? "Each page opens in your browser."
        : "This machine shows no browser: open each address on your own computer.",
    ),
  );
  return keep(await guide(plan, env), store);
}

function introduction(opening: string): string {
  return [
    "Set up your own OAuth client for sign-ins at Google (once, a few minutes).",
    "cred-auth signs you in as an OAuth client that you own: three steps in the Google Cloud console.",
    `${opening} If gcloud's Application Default Credentials already work here, you need none of this.`,
    "",
    "",
  ].join("\n");
}

function stepText(step: ConsoleStep, index: number): string {
  return [
    `Step ${index + 1} of ${CONSOLE_STEPS.length}: ${step.title}`,
    `  ${step.url}`,
    ...step.details.map((d) => `  ${d}`),
    "",
    "",
  ].join("\n");
}

/** Walks through the steps at the terminal and returns the path of the downloaded file, checked. */
async function guide({ runtime, browser }: BrowserPlan, env: NodeJS.ProcessEnv): Promise<string> {
  const prompt = await terminalPrompt("The client setup was cancelled; nothing was kept.");
  try {
    for (const [index, step] of CONSOLE_STEPS.entries()) {
      say(stepText(step, index));
      if (runtime.canOpenBrowser && !(await openBrowser(step.url, browser)))
        say("  (no browser could be started: open the address yourself)\n");
      await prompt.ask("Press Enter when done. ");
    }
    return await askForFile(prompt, env);
  } finally {
    prompt.close();
  }
}

async function askForFile(prompt: TerminalPrompt, env: NodeJS.ProcessEnv): Promise<string> {
  const suggestion = newestDownload(env.HOME);
  // A file's name is shown as terminal-safe text: escape codes in it cannot reach the terminal.
  const hint = suggestion ? ` [${printable(suggestion)}]` : "";
  for (let attempt = 1; ; attempt++) {
    const answer = cleanPath(await prompt.ask(`The downloaded JSON file${hint}: `), env.HOME);
    const path = answer === "" ? suggestion : answer;
    if (!path) {
      say("Give the path of the file step 3 downloaded.\n");
      continue;
    }
    try {
      const client = desktopClient(resolve(path));
      if (path === answer || (await attributed(prompt, path, client))) return resolve(path);
      say("Then give the path of the file step 3 downloaded.\n");
    } catch (error) {
      if (attempt >= PATH_ATTEMPTS || !(error instanceof CredCredentialsError)) throw error;
      say(`${printable(error.message)}\n`);
    }
  }
}

/**
 * Whether the user says the suggested file holds the client they created: any page their browser
 * visited may have downloaded a file just like the console's, theirs and newest (docs/security.md).
 */
async function attributed(prompt: TerminalPrompt, path: string, client: DesktopClient): Promise<boolean> {
  const project = client.projectId === undefined ? "no project named" : `project ${client.projectId}`;
  const question = `${basename(path)} holds the Desktop client ${client.clientId} (${project}). Is it the one you created in step 3? (y/N) `;
  return /^y(es)?$/i.test((await prompt.ask(printable(question))).trim());
}

/** A typed or dropped path: quotes a terminal adds on drag-and-drop removed, a leading `~/` expanded. */
export function cleanPath(text: string, home: string | undefined): string {
  const path = text.trim().replace(/^(["'])(.*)\1$/, "$2");
  return home && (path === "~" || path.startsWith("~/")) ? join(home, path.slice(1)) : path;
}

/** Checks the file, keeps its client in the settings, and says what comes next. */
async function keep(path: string, store: SettingsWriter): Promise<number> {
  const client = desktopClient(path);
  await store({ "client-id": client.clientId, "client-secret": client.clientSecret }, ["client-secret-file"]);
  say(
    [
      // The settings writer's line above names the file: said once.
      `cred-auth: the Desktop client ${printable(client.clientId)} is kept there; the downloaded file is no longer needed.`,
      "Next: `npx cred-auth login credentials.json`, or any sign-in of the library, signs in as this client.",
      "",
    ].join("\n"),
  );
  return EXIT.ok;
}

/**
 * The client id and secret of a "Desktop app" client file as the console downloads it:
 * `{"installed": {client_id, client_secret, redirect_uris: ["http://localhost"], ...}}`. Anything
 * else is refused with a one-line error that names the file, never its content.
 */
export function desktopClient(path: string): DesktopClient {
  const section = installedSection(path);
  const { client_id: clientId, client_secret: clientSecret, redirect_uris: redirects, project_id: project } = section;
  if (typeof clientId !== "string" || !clientId.trim() || typeof clientSecret !== "string" || !clientSecret.trim())
    throw refused(`${path} lacks its client_id or client_secret: download the client's JSON again (step 3).`);
  if (!Array.isArray(redirects) || !redirects.some(isLoopbackRedirect))
    throw refused(
      `${path} is not a Desktop client: its redirect URIs do not include http://localhost. Create a "Desktop app" client (step 3) and download its JSON.`,
    );
  const projectId = typeof project === "string" && project.trim() ? project.trim() : undefined;
  return { clientId: clientId.trim(), clientSecret: clientSecret.trim(), ...(projectId ? { projectId } : {}) };
}

function installedSection(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readClientSecretText(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw refused(`Cannot read ${path} (${code}): give the path of the JSON file the console downloaded.`, error);
  }
  const json = parseObject(text);
  if (json && isObject(json.installed)) return json.installed;
  if (json && isObject(json.web))
    throw refused(
      `${path} holds a "Web application" client; signing in on this machine needs a "Desktop app" client: create one (step 3) and download its JSON.`,
    );
  const credentials = credentialsInsteadOfClient(text, path);
  throw refused(
    credentials
      ? `${path} ${credentials}; to sign in as yourself, download the "Desktop app" client's JSON from the console (step 3).`
      : `${path} is not a Google client-secret JSON file (expected {"installed": {...}}): download the client's JSON from the console (step 3).`,
  );
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const json: unknown = JSON.parse(text);
    return isObject(json) ? json : undefined;
  } catch {
    return undefined;
  }
}

/** `http://localhost`, `http://127.0.0.1` or `http://[::1]`, any port and path: what a Desktop client may redirect to. */
function isLoopbackRedirect(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    const url = new URL(value);
    return url.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  } catch {
    return false;
  }
}

function refused(message: string, cause?: unknown): CredCredentialsError {
  return new CredCredentialsError(message, { code: ERROR_CODES.FILE_INVALID, ...(cause ? { cause } : {}) });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function say(text: string): void {
  process.stderr.write(text);
}
