// `cred-auth login DESTINATION`: a sign-in saved as an Application Default Credentials file.
import { accessSync, constants, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { saveUserCredentials } from "../credentials/user.js";
import { CredAuthError, CredCancelledError, CredCredentialsError } from "../errors.js";
import { parseClientSecretJson, readClientSecretText } from "../oauth/client.js";
import type { SaveUserCredentialsOptions } from "../options.js";
import { CLOUD_PLATFORM_SCOPE } from "../shared/constants.js";
import { UsageError, parseScopes, parseSeconds, type ParsedArgs } from "./args.js";
import { EXIT } from "./output.js";

const UI_CHOICES = ["auto", "plain", "terminal"] as const;

/** Signs in and saves the credentials to `args.positionals[0]`. Nothing is written on failure. */
export async function login(args: ParsedArgs): Promise<number> {
  const destination = resolve(args.positionals[0]);
  const scopes = typeof args.options.scopes === "string" ? parseScopes(args.options.scopes) : [CLOUD_PLATFORM_SCOPE];
  const options = signInOptions(args);
  checkDestination(args.positionals[0], destination);

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
    throw error;
  } finally {
    process.off("SIGINT", onSigint);
  }
  process.stderr.write(savedMessage(destination));
  return EXIT.ok;
}

function signInOptions(args: ParsedArgs): SaveUserCredentialsOptions {
  const o = args.options;
  const options: SaveUserCredentialsOptions = { ...clientOptions(o) };
  if (typeof o.useLocalWebserver === "boolean") options.useLocalWebserver = o.useLocalWebserver;
  if (typeof o.redirectUri === "string") options.redirectUri = o.redirectUri;
  if (typeof o.timeout === "string") options.timeoutMs = parseSeconds(o.timeout, "--timeout");
  if (o.noBrowser === true) options.openBrowser = false;
  const ui = o.ui ?? "auto";
  if (!UI_CHOICES.includes(ui as (typeof UI_CHOICES)[number]))
    throw new UsageError(`--ui must be one of ${UI_CHOICES.join(", ")}`);
  options.presenter = ui as (typeof UI_CHOICES)[number];
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
  return [
    `To use the credentials saved to ${destination} as Application Default Credentials:`,
    `  ${exportLine(destination)}`,
    "",
  ].join("\n");
}

function exportLine(path: string): string {
  if (process.platform === "win32") return `set GOOGLE_APPLICATION_CREDENTIALS=${path}`;
  const quoted = /^[A-Za-z0-9_./@%+=:,-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
  return `export GOOGLE_APPLICATION_CREDENTIALS=${quoted}`;
}
