// `cred-auth login DESTINATION`: a sign-in saved as an Application Default Credentials file.
import { accessSync, constants, readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { saveUserCredentials } from "../credentials/user.js";
import { CredAuthError, CredCancelledError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { CONFIG_CLIENT_COMMAND, CREATE_CLIENT, parseClientSecretJson, readClientSecretText } from "../oauth/client.js";
import type { SaveUserCredentialsOptions } from "../options.js";
import { CLOUD_PLATFORM_SCOPE } from "../shared/constants.js";
import { UsageError, parseScopes, parseSeconds, type ParsedArgs } from "./args.js";
import { EXIT } from "./output.js";

const UI_CHOICES = ["auto", "plain", "terminal"] as const;

/** Signs in and saves the credentials to `args.positionals[0]`. Nothing is written on failure. */
export async function login(args: ParsedArgs): Promise<number> {
  const destination = resolve(args.positionals[0]);
  const options = signInOptions(args);
  const remember = args.options.remember === true;
  if (remember && typeof args.options.clientSecretFile !== "string")
    throw new UsageError("--remember keeps the --client-secret-file FILE given with it; give one");
  checkDestination(args.positionals[0], destination);
  const scopes = typeof args.options.scopes === "string" ? parseScopes(args.options.scopes) : defaultScopes();

  const cancel = new AbortController();
  const onSigint = (): void => {
    // A second Ctrl+C while the first is being handled ends the process at once.
    if (cancel.signal.aborted) process.exit(EXIT.cancelled);
    cancel.abort();
  };
  process.on("SIGINT", onSigint);
  try {
    await saveUserCredentials(scopes, destination, { ...options, signal: cancel.signal });
  } catch (error) {
    if (cancel.signal.aborted && !(error instanceof CredAuthError))
      throw new CredCancelledError("The sign-in was cancelled; nothing was saved.", { cause: error });
    throw noClientInCliWords(error);
  } finally {
    process.off("SIGINT", onSigint);
  }
  process.stderr.write(savedMessage(destination));
  if (typeof args.options.clientSecretFile === "string")
    await rememberClient(resolve(args.options.clientSecretFile), remember);
  return EXIT.ok;
}

/** The `scopes` setting, else cloud-platform. Settings are read only when no --scopes is given. */
function defaultScopes(): string[] {
  const { readSetting } = require("../settings/read.js") as typeof import("../settings/read.js");
  return readSetting("scopes") ?? [CLOUD_PLATFORM_SCOPE];
}

/** The library's "no client" error names its options; on the command line, name the flags. */
function noClientInCliWords(error: unknown): unknown {
  if (!(error instanceof CredAuthError) || error.code !== ERROR_CODES.NO_OAUTH_CLIENT) return error;
  return new CredCredentialsError(
    `No OAuth client configured: run \`${CONFIG_CLIENT_COMMAND}\` once with its client-secret JSON file, or give --client-secret-file FILE, or --client_id ID with --client_secret SECRET.\n${CREATE_CLIENT}`,
    { code: ERROR_CODES.NO_OAUTH_CLIENT, cause: error },
  );
}

/**
 * Keeps the client-secret file in the settings: with --remember, or when the user says yes at an
 * interactive terminal. A settings file that cannot be written costs only the remembering.
 */
async function rememberClient(file: string, remember: boolean): Promise<void> {
  const { readSetting } = require("../settings/read.js") as typeof import("../settings/read.js");
  if (readSetting("client-secret-file") === file) return;
  if (!remember && !(await askToRemember(file))) return;
  try {
    await (require("./config.js") as typeof import("./config.js")).writeSettings({ "client-secret-file": file }, [
      "client-id",
      "client-secret",
    ]);
  } catch (error) {
    const reason = error instanceof CredAuthError ? error.message : "the settings file cannot be written";
    process.stderr.write(`cred-auth: warning: the OAuth client was not remembered: ${reason}\n`);
  }
}

/** Asks at an interactive terminal (stdin and stderr TTYs, not CI) whether to keep the client. */
async function askToRemember(file: string): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stderr.isTTY || process.env.CI) return false;
  const { createInterface } = await import("node:readline/promises");
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(
      `Remember ${file} as your OAuth client, so that next time no option is needed? [y/N] `,
    );
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    prompt.close();
  }
}

function signInOptions(args: ParsedArgs): SaveUserCredentialsOptions {
  const o = args.options;
  const options: SaveUserCredentialsOptions = { ...clientOptions(o) };
  if (typeof o.useLocalWebserver === "boolean") options.useLocalWebserver = o.useLocalWebserver;
  if (typeof o.redirectUri === "string") options.redirectUri = o.redirectUri;
  if (typeof o.timeout === "string") options.timeoutMs = parseSeconds(o.timeout, "--timeout");
  if (o.noBrowser === true) options.openBrowser = false;
  // Without --ui the library decides: the ui setting, else auto.
  if (o.ui === undefined) return options;
  if (!UI_CHOICES.includes(o.ui as (typeof UI_CHOICES)[number]))
    throw new UsageError(`--ui must be one of ${UI_CHOICES.join(", ")}`);
  options.presenter = o.ui as (typeof UI_CHOICES)[number];
  return options;
}

function clientOptions(o: ParsedArgs["options"]): Pick<SaveUserCredentialsOptions, "clientId" | "clientSecret"> {
  const clientId = typeof o.clientId === "string" ? o.clientId.trim() : undefined;
  const clientSecret = typeof o.clientSecret === "string" ? o.clientSecret.trim() : undefined;
  if (typeof o.clientSecretFile === "string") {
    if (clientId !== undefined || clientSecret !== undefined)
      throw new UsageError("give either --client-secret-file or --client_id with --client_secret, not both");
    return readClientSecretFile(o.clientSecretFile);
  }
  if (clientId === undefined && clientSecret === undefined) return {};
  if (!clientId || !clientSecret)
    throw new UsageError("--client_id and --client_secret go together: give both (or --client-secret-file)");
  return { clientId, clientSecret };
}

function readClientSecretFile(path: string): { clientId: string; clientSecret: string } {
  let text: string;
  try {
    text = readClientSecretText(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new CredCredentialsError(`Cannot read the client-secret file ${JSON.stringify(path)} (${code}).`, {
      cause: error,
    });
  }
  const client = parseClientSecretJson(text);
  if (!client) {
    throw new CredCredentialsError(
      `The client-secret file ${JSON.stringify(path)} is not a Google client-secret JSON file (expected {"installed": {...}} or {"web": {...}} with client_id and client_secret).`,
    );
  }
  return client;
}

/** Fails before any sign-in when the destination cannot be written: nobody wants to sign in twice. */
function checkDestination(typed: string, destination: string): void {
  if (/[\\/]$/.test(typed) || isDirectory(destination)) {
    throw new UsageError(
      `DESTINATION ${JSON.stringify(typed)} is a directory; give a file path such as ${JSON.stringify(resolve(destination, "credentials.json"))}`,
    );
  }
  let parent = dirname(destination);
  while (!exists(parent) && dirname(parent) !== parent) parent = dirname(parent);
  if (!isDirectory(parent))
    throw new CredCredentialsError(
      `Cannot save credentials to ${JSON.stringify(destination)}: ${JSON.stringify(parent)} is not a directory.`,
    );
  try {
    accessSync(parent, constants.W_OK);
  } catch (error) {
    throw new CredCredentialsError(
      `Cannot save credentials to ${JSON.stringify(destination)}: the directory ${JSON.stringify(parent)} is not writable.`,
      { cause: error },
    );
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Where the file is and how to use it (the presenter has already said who signed in). */
function savedMessage(destination: string): string {
  const account = savedAccount(destination);
  return [
    `${account ? `Signed in as ${account}. ` : ""}To use the credentials saved to ${destination} as Application Default Credentials:`,
    `  ${exportLine(destination)}`,
    "",
  ].join("\n");
}

/** The account recorded in the file just saved (from the sign-in's id_token), if any. */
function savedAccount(path: string): string | undefined {
  try {
    const { account } = JSON.parse(readFileSync(path, "utf8")) as { account?: unknown };
    return typeof account === "string" && account ? account : undefined;
  } catch {
    return undefined;
  }
}

function exportLine(path: string): string {
  if (process.platform === "win32") return `set GOOGLE_APPLICATION_CREDENTIALS=${path}`;
  const quoted = /^[A-Za-z0-9_./@%+=:,-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
  return `export GOOGLE_APPLICATION_CREDENTIALS=${quoted}`;
}
