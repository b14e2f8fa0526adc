// `cred-auth login DESTINATION`: a sign-in saved as an Application Default Credentials file.
import { resolve } from "node:path";
import { checkSaveDestination } from "../credentials/sign-in/destination.js";
import { planSources } from "../credentials/sign-in/plan.js";
import { saveSignIn } from "../credentials/sign-in/user.js";
import { CredAuthError, CredCancelledError } from "../errors.js";
import { MESSAGES } from "../messages.js";
import { type ClientKind, readClientSecretFile } from "../oauth/client.js";
import { assertValidScopes } from "../oauth/scopes.js";
import type { SaveUserCredentialsOptions } from "../options.js";
import type { Settings } from "../settings/keys.js";
import { UsageError, parseScopes, parseSeconds, type ParsedArgs } from "./args.js";
import { EXIT } from "./output.js";
import { type ImpersonationChain, parseImpersonationChain } from "../formats/impersonation-chain.js";
import { printable, quoted } from "../trust/text.js";
import { writeSettings } from "./config.js";
import { fileToken } from "./lazy.js";

const UI_CHOICES = ["auto", "plain", "terminal"] as const;

/**
 * Signs in and saves the credentials to `args.positionals[0]`. Nothing is written on failure.
 * The sign-in is planned by the library from the flags (as its options) and `sources`, which read
 * the settings file once for the whole command.
 */
export async function login(args: ParsedArgs): Promise<number> {
  const force = args.options.force === true;
  const destination = checkedDestination(args.positionals[0] as string, force);
  const { options, impersonation, clientKind } = signInOptions(args);
  const remember = args.options.remember === true;
  if (remember && typeof args.options.clientSecretFile !== "string")
    throw new UsageError("--remember keeps the --client-secret-file FILE given with it; give one");
  // No --scopes: the plan takes the `scopes` setting, else cloud-platform.
  const scopes = typeof args.options.scopes === "string" ? parseScopes(args.options.scopes) : undefined;
  if (scopes) assertValidScopes(scopes); // Google's error page for a bad scope never comes back
  const sources = planSources();

  const cancel = new AbortController();
  const onSigint = (): void => {
    // A second Ctrl+C while the first is being handled ends the process at once.
    if (cancel.signal.aborted) process.exit(EXIT.cancelled);
    cancel.abort();
  };
  process.on("SIGINT", onSigint);
  try {
    const request = {
      scopes,
      options: { ...options, signal: cancel.signal, ...(force ? { overwrite: true } : {}) },
      ...(impersonation ? { impersonation } : {}),
      ...(clientKind ? { clientKind } : {}),
    };
    await saveSignIn(request, destination, sources);
  } catch (error) {
    if (cancel.signal.aborted && !(error instanceof CredAuthError))
      throw new CredCancelledError(MESSAGES.signInCancelled, { cause: error });
    throw error;
  } finally {
    process.off("SIGINT", onSigint);
  }
  if (impersonation) await checkImpersonation(destination);
  process.stderr.write(savedMessage(destination));
  if (typeof args.options.clientSecretFile === "string")
    await rememberClient(resolve(args.options.clientSecretFile), remember, sources.settings());
  return EXIT.ok;
}

/**
 * Asks for one impersonated token (cached: print-token then needs no request). gcloud does not
 * check; a refusal is said now, as a warning: the file is right, and a role just granted takes
 * minutes to reach every Google server.
 */
async function checkImpersonation(path: string): Promise<void> {
  try {
    const { accessTokenForFile, describeCredentialsFile } = fileToken();
    if (describeCredentialsFile(path).actsAs === undefined) return; // not an impersonated file
    await accessTokenForFile(path);
  } catch (error) {
    const reason = error instanceof CredAuthError ? error.message : "the check failed";
    process.stderr.write(
      `cred-auth: warning: the file is saved, but impersonating failed just now: ${printable(reason)}\n`,
    );
  }
}

/**
 * Keeps the client-secret file in the settings: with --remember, or when the user says yes at an
 * interactive terminal. A settings file that cannot be written costs only the remembering.
 */
async function rememberClient(file: string, remember: boolean, settings: Settings): Promise<void> {
  if (settings["client-secret-file"] === file) return;
  if (!remember && !(await askToRemember(file))) return;
  try {
    await writeSettings({ "client-secret-file": file }, ["client-id", "client-secret"]);
  } catch (error) {
    const reason = error instanceof CredAuthError ? error.message : "the settings file cannot be written";
    process.stderr.write(`cred-auth: warning: the OAuth client was not remembered: ${printable(reason)}\n`);
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

/**
 * The flags as the library's options, the chain of --impersonate-service-account (checked before
 * any sign-in), and the type of the --client-secret-file's client (the plan's advice needs it).
 */
function signInOptions(args: ParsedArgs): {
  options: SaveUserCredentialsOptions;
  impersonation?: ImpersonationChain;
  clientKind?: ClientKind;
} {
  const o = args.options;
  const { kind: clientKind, ...client } = clientOptions(o);
  const options: SaveUserCredentialsOptions = { ...client };
  let impersonation: ImpersonationChain | undefined;
  if (typeof o.useLocalWebserver === "boolean") options.useLocalWebserver = o.useLocalWebserver;
  if (typeof o.redirectUri === "string") options.redirectUri = o.redirectUri;
  if (typeof o.timeout === "string") options.timeoutMs = parseSeconds(o.timeout, "--timeout");
  if (o.noBrowser === true) options.openBrowser = false;
  if (typeof o.impersonateServiceAccount === "string") {
    try {
      impersonation = parseImpersonationChain(o.impersonateServiceAccount, "--impersonate-service-account");
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  // Without --ui the library decides: the ui setting, else auto.
  if (o.ui !== undefined) {
    if (!UI_CHOICES.includes(o.ui as (typeof UI_CHOICES)[number]))
      throw new UsageError(`--ui must be one of ${UI_CHOICES.join(", ")}`);
    options.presenter = o.ui as (typeof UI_CHOICES)[number];
  }
  return { options, ...(impersonation ? { impersonation } : {}), ...(clientKind ? { clientKind } : {}) };
}

function clientOptions(
  o: ParsedArgs["options"],
): Pick<SaveUserCredentialsOptions, "clientId" | "clientSecret"> & { kind?: ClientKind } {
  const clientId = typeof o.clientId === "string" ? o.clientId.trim() : undefined;
  const clientSecret = typeof o.clientSecret === "string" ? o.clientSecret.trim() : undefined;
  if (typeof o.clientSecretFile === "string") {
    if (clientId !== undefined || clientSecret !== undefined)
      throw new UsageError("give either --client-secret-file or --client_id with --client_secret, not both");
    return readClientSecretFile(o.clientSecretFile, "given by --client-secret-file");
  }
  if (clientId === undefined && clientSecret === undefined) return {};
  if (!clientId || !clientSecret)
    throw new UsageError("--client_id and --client_secret go together: give both (or --client-secret-file)");
  return { clientId, clientSecret };
}

/**
 * Where the file is and how to use it. Who signed in is the presenter's line ("Signed in as X"),
 * said once per sign-in; an impersonated file adds whom its tokens act as.
 */
function savedMessage(destination: string): string {
  const { actsAs } = savedIdentity(destination);
  return [
    `${actsAs ? `Its tokens act as ${printable(actsAs)}. ` : ""}To use the credentials saved to ${printable(destination)} as Application Default Credentials:`,
    `  ${exportLine(destination)}`,
    "",
  ].join("\n");
}

/** For an impersonated file, the account its tokens act as. */
function savedIdentity(path: string): { actsAs?: string } {
  try {
    return fileToken().describeCredentialsFile(path);
  } catch {
    return {};
  }
}

/**
 * DESTINATION, resolved and checked before anything else happens: a path typed with a trailing
 * separator names a directory (a usage error); whether the file can be written there (a directory,
 * a special file, another user's directory or link, read-only, /proc) and whether what is there may
 * be replaced (user credentials, or anything with --force) is the library's check.
 */
function checkedDestination(typed: string, force: boolean): string {
  if (/[\\/]$/.test(typed))
    throw new UsageError(
      `DESTINATION ${quoted(typed)} is a directory; give a file path such as ${quoted(resolve(typed, "credentials.json"))}`,
    );
  const destination = resolve(typed);
  checkSaveDestination(destination, { overwrite: force, overwriteHint: "--force" });
  return destination;
}

function exportLine(path: string): string {
  if (process.platform === "win32") return printable(`set GOOGLE_APPLICATION_CREDENTIALS=${path}`);
  const word = /^[A-Za-z0-9_./@%+=:,-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
  return printable(`export GOOGLE_APPLICATION_CREDENTIALS=${word}`);
}
