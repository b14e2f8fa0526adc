// `cred-auth login DESTINATION`: a sign-in saved as an Application Default Credentials file. The sign-in
// is planned by the library from the flags (its options) and the settings, read once for the command.
import { resolve } from "node:path";
import { checkSaveDestination } from "../../credentials/sign-in/destination.js";
import { planSources } from "../../credentials/sign-in/plan.js";
import { saveSignIn } from "../../credentials/sign-in/user.js";
import { accessTokenForFile, describeCredentialsFile } from "../../credentials/tokens/file-token.js";
import { CredAuthError, CredCancelledError } from "../../errors.js";
import { type ImpersonationChain, parseImpersonationChain } from "../../formats/impersonation-chain.js";
import { MESSAGES } from "../../messages.js";
import { type ClientKind, readClientSecretFile } from "../../oauth/client.js";
import { assertValidScopes } from "../../oauth/scopes.js";
import type { SaveUserCredentialsOptions } from "../../options.js";
import { CLOUD_PLATFORM_SCOPE } from "../../shared/constants.js";
import { printable, quoted } from "../../trust/text.js";
import { type Input, UsageError, defineCommand, flag, oneOf, parseScopes, parseSeconds } from "../command.js";
import { EXIT, noteStdoutStream } from "../output.js";
import { terminalPrompt } from "../prompt.js";
import { writeSettings } from "./config.js";

const FLAGS = {
  scopes: flag(
    "--scopes",
    `comma-separated OAuth scopes (default: the scopes setting, else ${CLOUD_PLATFORM_SCOPE})`,
    "S1,S2",
  ),
  force: flag("--force", "replace DESTINATION whatever it holds (else only earlier user credentials or an empty file)"),
  clientId: flag(["--client_id", "--client-id"], "your OAuth client id (recommended; with --client_secret)", "ID"),
  clientSecret: flag(["--client_secret", "--client-secret"], "your OAuth client secret (with --client_id)", "SECRET"),
  clientSecretFile: flag(
    ["--client-secret-file", "--client_secret_file"],
    "a client-secret JSON file downloaded from the Google Cloud console (instead of --client_id/--client_secret)",
    "FILE",
  ),
  remember: flag(
    "--remember",
    "keep --client-secret-file in the settings for next time (config set client-secret-file)",
  ),
  useLocalWebserver: {
    ...flag(
      ["--use_local_webserver", "--use-local-webserver"],
      "receive the sign-in on a local web server, localhost:8080-8089 (chosen unless this machine looks remote)",
    ),
    off: {
      names: [
        "--nouse_local_webserver",
        "--no-use-local-webserver",
        "--nouse-local-webserver",
        "--no-use_local_webserver",
      ],
      help: "paste the code shown after sign-in instead (chosen on a machine that looks remote: SSH, a container)",
    },
  },
  redirectUri: flag(
    ["--redirect_uri", "--redirect-uri"],
    "where the provider sends the browser after sign-in (your own code page, or an organisation's endpoint)",
    "URI",
  ),
  timeout: flag("--timeout", "give up when the sign-in is not done after SECONDS (default 300)", "SECONDS"),
  noBrowser: flag(["--no-browser", "--no_browser"], "do not open a browser; only print the sign-in URL"),
  ui: flag(
    "--ui",
    "how the sign-in is shown (default: the ui setting, else auto: a terminal UI on a TTY)",
    "auto|plain|terminal",
  ),
  impersonateServiceAccount: flag(
    ["--impersonate-service-account", "--impersonate_service_account"],
    "save an impersonated_service_account file acting as SA (the others are delegates, in order, as in gcloud)",
    "[DELEGATE,...,]SA",
  ),
};

export const login = defineCommand({
  name: "login",
  summary: "Sign in in a browser and save the user credentials as an Application Default Credentials file.",
  words: [["DESTINATION", "where to save the credentials JSON file (written atomically, mode 0600)"]],
  flags: FLAGS,
  more: () =>
    [
      "The saved file is an authorized_user JSON file (impersonated_service_account with",
      "--impersonate-service-account): use it as Application Default Credentials with",
      "  export GOOGLE_APPLICATION_CREDENTIALS=DESTINATION",
      "and print access tokens from it with `cred-auth print-token DESTINATION`.",
      "Without a client option the client comes from CRED_AUTH_CLIENT_ID + CRED_AUTH_CLIENT_SECRET or",
      "CRED_AUTH_CLIENT_SECRET_FILE, else the settings (cred-auth config init, which guides you through",
      "creating a client, or cred-auth config set client-secret-file PATH).",
    ].join("\n"),
  async run({ words: [typed], flags }) {
    noteStdoutStream();
    const destination = checkedDestination(typed as string, flags.force === true);
    if (flags.remember && flags.clientSecretFile === undefined)
      throw new UsageError("--remember keeps the --client-secret-file FILE given with it; give one");
    const { options, impersonation, clientKind } = signInOptions(flags);
    // No --scopes: the plan takes the `scopes` setting, else cloud-platform.
    const scopes = flags.scopes === undefined ? undefined : parseScopes(flags.scopes);
    if (scopes) assertValidScopes(scopes); // Google's error page for a bad scope never comes back
    const sources = planSources();
    const cancel = new AbortController();
    // A second Ctrl+C while the first is being handled ends the process at once.
    const onSigint = (): void => (cancel.signal.aborted ? process.exit(EXIT.cancelled) : cancel.abort());
    process.on("SIGINT", onSigint);
    try {
      const signIn = { ...options, signal: cancel.signal, ...(flags.force ? { overwrite: true } : {}) };
      await saveSignIn({ scopes, options: signIn, impersonation, clientKind }, destination, sources);
    } catch (error) {
      if (cancel.signal.aborted && !(error instanceof CredAuthError))
        throw new CredCancelledError(MESSAGES.signInCancelled, { cause: error });
      throw error;
    } finally {
      process.off("SIGINT", onSigint);
    }
    if (impersonation) await checkImpersonation(destination);
    process.stderr.write(savedMessage(destination));
    const file = flags.clientSecretFile;
    if (file !== undefined && sources.settings()["client-secret-file"] !== resolve(file))
      await rememberClient(resolve(file), flags.remember === true);
    return EXIT.ok;
  },
});

/**
 * Asks for one impersonated token (cached: print-token then needs no request). gcloud does not check;
 * a refusal is said now, as a warning: the file is right, and a role just granted takes minutes to spread.
 */
async function checkImpersonation(path: string): Promise<void> {
  try {
    await accessTokenForFile(path);
  } catch (error) {
    const reason = error instanceof CredAuthError ? error.message : "the check failed";
    warn(`the file is saved, but impersonating failed just now: ${printable(reason)}`);
  }
}

/** Keeps the client-secret file in the settings: with --remember, or on a yes at an interactive terminal. */
async function rememberClient(file: string, remember: boolean): Promise<void> {
  if (!remember && !(await askToRemember(file))) return;
  try {
    await writeSettings({ "client-secret-file": file }, ["client-id", "client-secret"]);
  } catch (error) {
    // A settings file that cannot be written costs only the remembering.
    const reason = error instanceof CredAuthError ? error.message : "the settings file cannot be written";
    warn(`the OAuth client was not remembered: ${printable(reason)}`);
  }
}

async function askToRemember(file: string): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stderr.isTTY || process.env.CI) return false;
  const prompt = await terminalPrompt("The OAuth client was not remembered.");
  try {
    const question = `Remember ${file} as your OAuth client, so that next time no option is needed? [y/N] `;
    return /^y(es)?$/i.test((await prompt.ask(printable(question))).trim());
  } catch {
    return false; // Ctrl+C or Ctrl+D: not remembered
  } finally {
    prompt.close();
  }
}

/** The flags as the library's options, the checked impersonation chain, and the client file's kind. */
function signInOptions(flags: Input<typeof FLAGS>["flags"]) {
  const { kind: clientKind, ...client } = clientOptions(flags);
  const options: SaveUserCredentialsOptions = { ...client };
  if (flags.useLocalWebserver !== undefined) options.useLocalWebserver = flags.useLocalWebserver;
  if (flags.redirectUri !== undefined) options.redirectUri = flags.redirectUri;
  if (flags.timeout !== undefined) options.timeoutMs = parseSeconds(flags.timeout, "--timeout");
  if (flags.noBrowser) options.openBrowser = false;
  // Without --ui the library decides: the ui setting, else auto.
  const presenter = oneOf(flags.ui, ["auto", "plain", "terminal"] as const, "--ui");
  if (presenter) options.presenter = presenter;
  let impersonation: ImpersonationChain | undefined;
  try {
    const chain = flags.impersonateServiceAccount;
    impersonation = chain === undefined ? undefined : parseImpersonationChain(chain, "--impersonate-service-account");
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return { options, impersonation, clientKind };
}

function clientOptions(
  flags: Input<typeof FLAGS>["flags"],
): Pick<SaveUserCredentialsOptions, "clientId" | "clientSecret"> & { kind?: ClientKind } {
  const clientId = flags.clientId?.trim();
  const clientSecret = flags.clientSecret?.trim();
  if (flags.clientSecretFile !== undefined) {
    if (clientId !== undefined || clientSecret !== undefined)
      throw new UsageError("give either --client-secret-file or --client_id with --client_secret, not both");
    return readClientSecretFile(flags.clientSecretFile, "given by --client-secret-file");
  }
  if (clientId === undefined && clientSecret === undefined) return {};
  if (!clientId || !clientSecret)
    throw new UsageError("--client_id and --client_secret go together: give both (or --client-secret-file)");
  return { clientId, clientSecret };
}

/** Where the file is and how to use it; an impersonated file adds whom its tokens act as. */
function savedMessage(destination: string): string {
  let actsAs: string | undefined;
  try {
    actsAs = describeCredentialsFile(destination).actsAs;
  } catch {}
  const exported =
    process.platform === "win32"
      ? `set GOOGLE_APPLICATION_CREDENTIALS=${destination}`
      : `export GOOGLE_APPLICATION_CREDENTIALS=${/^[A-Za-z0-9_./@%+=:,-]+$/.test(destination) ? destination : `'${destination.replace(/'/g, `'\\''`)}'`}`;
  const as = actsAs ? `Its tokens act as ${printable(actsAs)}. ` : "";
  return `${as}To use the credentials saved to ${printable(destination)} as Application Default Credentials:\n  ${printable(exported)}\n`;
}

/** DESTINATION, resolved and checked first: a trailing separator names a directory (a usage error). */
function checkedDestination(typed: string, force: boolean): string {
  if (/[\\/]$/.test(typed))
    throw new UsageError(
      `DESTINATION ${quoted(typed)} is a directory; give a file path such as ${quoted(resolve(typed, "credentials.json"))}`,
    );
  const destination = resolve(typed);
  checkSaveDestination(destination, { overwrite: force, overwriteHint: "--force" });
  return destination;
}

function warn(line: string): void {
  process.stderr.write(`cred-auth: warning: ${line}\n`);
}
