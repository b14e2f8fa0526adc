// `cred-auth config init [CLIENT_FILE]`: the guided setup of the user's own OAuth client (cred-auth borrows none):
// the three console steps, each page opened or printed, then the "Desktop app" file whose id and secret are kept.
import { basename, join, resolve } from "node:path";
import { CredCredentialsError } from "../errors.js";
import { type BrowserPlan, planBrowser, planSources } from "../credentials/sign-in/plan.js";
import { openBrowser } from "../os/browser.js";
import { type DesktopClient, desktopClient, newestDownload } from "../oauth/client-download.js";
import { printable } from "../trust/text.js";
import type { Settings, SettingKey } from "../settings/keys.js";
import { UsageError } from "./command.js";
import { EXIT } from "./output.js";
import { type TerminalPrompt, terminalPrompt } from "./prompt.js";

/** The settings writer (config.ts's `writeSettings`): stores `changes`, removes `removed`, returns the file's path. */
export type SettingsWriter = (changes: Settings, removed: readonly SettingKey[]) => Promise<string>;

/** The three console steps, in order (the pages of the Google Auth Platform): title, address, what to do there. */
export const CONSOLE_STEPS: readonly (readonly string[])[] = [
  [
    "Create a Google Cloud project (or pick one you own)",
    "https://console.cloud.google.com/projectcreate",
    "Any name will do; the project owns the client and its quota.",
  ],
  [
    "Set up the consent screen, with yourself as a test user",
    "https://console.cloud.google.com/auth/overview",
    'Get started: app name, support e-mail, audience "External" (or "Internal" in a Workspace organisation).',
    'Then Audience > Test users: add every account that will sign in while the app is in "Testing".',
  ],
  [
    'Create an OAuth client of type "Desktop app" and download its JSON',
    "https://console.cloud.google.com/auth/clients/create",
    'Application type "Desktop app", any name, Create; then "Download JSON"',
    "(a file named like client_secret_1234-abc.apps.googleusercontent.com.json).",
  ],
];

/** How many times an interactive user may give a path that is refused. */
const PATH_ATTEMPTS = 3;

/** `cred-auth config init [CLIENT_FILE]`: checks and keeps the file; without one, guides through the console steps. */
export async function configInit(
  args: readonly string[],
  store: SettingsWriter,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  if (args.length > 1) throw new UsageError(`config init takes at most one CLIENT_FILE, got ${args.length} arguments`);
  const [file] = args;
  if (file !== undefined) return keep(resolve(file), store);
  const plan = planBrowser(planSources(env));
  const { runtime } = plan;
  if (runtime.kind !== "terminal") {
    say(introduction("Open each address in a browser."));
    say(CONSOLE_STEPS.map(stepText).join(""));
    throw new UsageError(
      "no terminal to ask in: once the client's JSON file is downloaded, run `cred-auth config init CLIENT_FILE`",
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

function stepText([title, ...lines]: readonly string[], index: number): string {
  return `Step ${index + 1} of ${CONSOLE_STEPS.length}: ${title}\n${lines.map((line) => `  ${line}\n`).join("")}\n`;
}

/** Walks through the steps at the terminal and returns the path of the downloaded file, checked. */
async function guide({ runtime, browser }: BrowserPlan, env: NodeJS.ProcessEnv): Promise<string> {
  const prompt = await terminalPrompt("The client setup was cancelled; nothing was kept.");
  try {
    for (const [index, step] of CONSOLE_STEPS.entries()) {
      say(stepText(step, index));
      if (runtime.canOpenBrowser && !(await openBrowser(step[1] ?? "", browser)))
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

function say(text: string): void {
  process.stderr.write(text);
}
