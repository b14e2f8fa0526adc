// What each command accepts, and the help built from it.
import { CLOUD_PLATFORM_SCOPE as CLOUD_PLATFORM } from "../shared/constants.js";
import type { CommandSpec, OptionSpec } from "./args.js";
import { settingKeys } from "./lazy.js";

const scopesOption = (help: string): OptionSpec => ({ key: "scopes", names: ["--scopes"], metavar: "S1,S2", help });

export const LOGIN: CommandSpec = {
  name: "login",
  summary: "Sign in in a browser and save the user credentials as an Application Default Credentials file.",
  positionals: [
    { name: "DESTINATION", help: "where to save the credentials JSON file (written atomically, mode 0600)" },
  ],
  options: [
    scopesOption(`comma-separated OAuth scopes (default: the scopes setting, else ${CLOUD_PLATFORM})`),
    {
      key: "force",
      names: ["--force"],
      help: "replace DESTINATION whatever it holds (without it, only earlier user credentials or an empty file are replaced)",
    },
    {
      key: "clientId",
      names: ["--client_id", "--client-id"],
      metavar: "ID",
      help: "your OAuth client id (recommended; with --client_secret)",
    },
    {
      key: "clientSecret",
      names: ["--client_secret", "--client-secret"],
      metavar: "SECRET",
      help: "your OAuth client secret (with --client_id)",
    },
    {
      key: "clientSecretFile",
      names: ["--client-secret-file", "--client_secret_file"],
      metavar: "FILE",
      help: "a client-secret JSON file downloaded from the Google Cloud console (instead of --client_id/--client_secret)",
    },
    {
      key: "remember",
      names: ["--remember"],
      help: "keep --client-secret-file in the settings for next time (cred-auth config set client-secret-file)",
    },
    {
      key: "useLocalWebserver",
      names: ["--use_local_webserver", "--use-local-webserver"],
      help: "receive the sign-in on a local web server, localhost:8080-8089 (chosen unless this machine looks remote from the browser)",
    },
    {
      key: "useLocalWebserver",
      names: [
        "--nouse_local_webserver",
        "--no-use-local-webserver",
        "--nouse-local-webserver",
        "--no-use_local_webserver",
      ],
      value: false,
      help: "paste the code shown after sign-in instead (chosen on a machine that looks remote: SSH, a container)",
    },
    {
      key: "redirectUri",
      names: ["--redirect_uri", "--redirect-uri"],
      metavar: "URI",
      help: "where the provider sends the browser after sign-in (your own code page, or an organisation's endpoint)",
    },
    {
      key: "timeout",
      names: ["--timeout"],
      metavar: "SECONDS",
      help: "give up when the sign-in is not done after SECONDS (default 300)",
    },
    {
      key: "noBrowser",
      names: ["--no-browser", "--no_browser"],
      help: "do not open a browser; only print the sign-in URL",
    },
    {
      key: "ui",
      names: ["--ui"],
      metavar: "auto|plain|terminal",
      help: "how the sign-in is shown (default: the ui setting, else auto: terminal UI on a TTY, plain lines otherwise)",
    },
    {
      key: "impersonateServiceAccount",
      names: ["--impersonate-service-account", "--impersonate_service_account"],
      metavar: "[DELEGATE,...,]SA",
      help: "save an impersonated_service_account file whose tokens act as SA (the last e-mail; the others are delegates, in order, as in gcloud); you need the Service Account Token Creator role on it",
    },
  ],
  epilog: [
    "The saved file is an authorized_user JSON file (impersonated_service_account with",
    "--impersonate-service-account): use it as Application Default Credentials with",
    "  export GOOGLE_APPLICATION_CREDENTIALS=DESTINATION",
    "and print access tokens from it with `cred-auth print-token DESTINATION`.",
    "Without a client option the client comes from CRED_AUTH_CLIENT_ID + CRED_AUTH_CLIENT_SECRET or",
    "CRED_AUTH_CLIENT_SECRET_FILE, else the settings (cred-auth config init, which guides you through",
    "creating a client, or cred-auth config set client-secret-file PATH).",
  ].join("\n"),
};

/** The optional FILE of the commands that otherwise look where default() looks. */
const searchedFile = (what: string): CommandSpec["positionals"][number] => ({
  name: "[FILE]",
  help: `an ADC file; without it, ${what} the file default() would use: GOOGLE_APPLICATION_CREDENTIALS, gcloud's ADC file, the metadata server, the cached sign-in`,
  optional: true,
});

export const PRINT_TOKEN: CommandSpec = {
  name: "print-token",
  summary:
    "Print an access token for a credentials file (any Application Default Credentials type) or the credentials default() would use.",
  positionals: [
    {
      ...searchedFile("the credentials of"),
      help: "an ADC file: authorized_user (from login), service_account key, impersonated_service_account, external_account or external_account_authorized_user; without it, the credentials default() would use: GOOGLE_APPLICATION_CREDENTIALS, gcloud's ADC file, the metadata server, the cached sign-in (never a new sign-in)",
    },
  ],
  options: [
    scopesOption(
      `comma-separated scopes for a service account, impersonated or federated (default: ${CLOUD_PLATFORM}); user files keep their granted scopes`,
    ),
    { key: "fresh", names: ["--fresh"], help: "ignore the token cache and get a new token" },
    {
      key: "format",
      names: ["--format"],
      metavar: "text|json",
      help: 'text: the token alone (default); json: {"access_token","expiry","token_type"}',
    },
    { key: "header", names: ["--header"], help: "print an HTTP header line: Authorization: Bearer TOKEN" },
  ],
  epilog: [
    "A token with more than 5 minutes left is reused from the token cache (see docs/cli.md in the package), so",
    "scripts may call print-token as often as they like:",
    '  curl -H "Authorization: Bearer $(cred-auth print-token creds.json)" \\',
    '    "https://storage.googleapis.com/storage/v1/b/BUCKET/o/OBJECT?alt=media"',
  ].join("\n"),
};

export const PRINT_IDENTITY_TOKEN: CommandSpec = {
  name: "print-identity-token",
  summary:
    "Print an ID token (for Cloud Run, Cloud Run functions, IAP) for a credentials file or the credentials default() would use.",
  positionals: [searchedFile("the credentials of")],
  options: [
    {
      key: "audiences",
      names: ["--audiences", "--audience"],
      metavar: "AUD",
      help: "who the token is for: the service's URL, an IAP client id, or a custom audience (one; required but for user credentials, which give their own client's token without it)",
    },
    {
      key: "includeEmail",
      names: ["--include-email", "--include_email"],
      help: "put the service account's e-mail in an impersonated or federated token (keys and the metadata server always do)",
    },
    { key: "fresh", names: ["--fresh"], help: "ignore the token cache and get a new token" },
  ],
  epilog: [
    "An ID token with more than 5 minutes left is reused from the token cache, as print-token's access tokens are.",
    "Call a private Cloud Run service (see docs/cloud-run-and-iap.md in the package for IAP and user credentials):",
    '  curl -H "Authorization: Bearer $(cred-auth print-identity-token key.json --audiences "$URL")" "$URL"',
  ].join("\n"),
};

export const REVOKE: CommandSpec = {
  name: "revoke",
  summary: "Revoke a user's sign-in at Google, then remove the credentials file and the tokens cached for it.",
  positionals: [searchedFile("revoke")],
  options: [
    {
      key: "force",
      names: ["--force"],
      help: "remove the file and its cached tokens even when nothing could be revoked (a key, a federation file, a refusal)",
    },
    {
      key: "quiet",
      names: ["--quiet", "-q"],
      help: "do not ask (as gcloud's --quiet): revoke and remove the file the search found; needed without a terminal",
    },
  ],
  epilog: [
    "User credentials (authorized_user, or an impersonated_service_account file with a user source): the refresh",
    "token is revoked at Google (or the emulator, with CRED_AUTH_EMULATOR_HOST), which ends the whole grant (every",
    "refresh and access token of that client and account). A service account key, a federation file or the metadata",
    "server cannot be revoked from here: revoke says what to do instead and removes nothing, unless --force. When the",
    "revocation fails, nothing is removed.",
    "Without FILE, revoke names the file it found and asks (Y/n) on a terminal; without a terminal it does nothing",
    "unless --quiet. A file GOOGLE_APPLICATION_CREDENTIALS names is revoked and removed only when given as FILE.",
  ].join("\n"),
};

export const STATUS: CommandSpec = {
  name: "status",
  summary: "Say which credentials default() would use and why, whose they are, and whether they still work.",
  positionals: [searchedFile("describe")],
  options: [
    {
      key: "check",
      names: ["--check"],
      help: "ask for a new token to prove the credentials work (every request it takes: 5 s in all)",
    },
    { key: "check", names: ["--no-check"], value: false, help: "read the files only (the default)", hidden: true },
    {
      key: "format",
      names: ["--format"],
      metavar: "text|json",
      help: "text: one `name: value` line each (default); json: the same as one JSON object",
    },
  ],
  epilog: [
    "status reads the files and asks no server: the account is the one the file records (or it names none). --check asks",
    "for a new token: one request for a user's file or a key, two for an impersonated file or a metadata server, and for",
    "a federated file its subject token's URL or AWS's metadata service, STS, then IAM; 5 s for all of them together.",
    "Exit code 1 when nothing usable is found or the check fails; the last line then says what to do.",
  ].join("\n"),
};

export const EMULATOR: CommandSpec = {
  name: "emulator",
  summary: "Run the local Google-compatible sign-in and token emulator (for tests, CI and trying things out).",
  positionals: [],
  options: [
    {
      key: "port",
      names: ["--port"],
      metavar: "N",
      help: "port to listen on, on 127.0.0.1 (default 9099; 0 picks a free one)",
    },
    {
      key: "metadataProject",
      names: ["--metadata-project"],
      metavar: "ID",
      help: "also serve a metadata server with this project id (with --metadata-email)",
    },
    {
      key: "metadataEmail",
      names: ["--metadata-email"],
      metavar: "EMAIL",
      help: "the metadata server's account e-mail",
    },
    {
      key: "metadataPlatform",
      names: ["--metadata-platform"],
      metavar: "P",
      help: "compute-engine (default: token ?scopes= ignored, the VM's scopes given) or cloud-run (?scopes= honoured)",
    },
    {
      key: "serviceAccount",
      names: ["--service-account"],
      metavar: "EMAIL[=MEMBER,...]",
      help: "a service account the IAM Credentials API knows, and who may mint its tokens (repeatable)",
    },
    {
      key: "runService",
      names: ["--run-service"],
      metavar: "NAME[=AUDIENCE,...]",
      help: "a protected service at /run/NAME that needs an ID token, with its custom audiences (repeatable)",
    },
    {
      key: "noCodePage",
      names: ["--no-code-page"],
      help: "serve as Google serves a Desktop client: no web client, the code page answers 404",
    },
    { key: "quiet", names: ["--quiet"], help: "do not log requests" },
  ],
  epilog: "It prints `export CRED_AUTH_EMULATOR_HOST=...`: set that and every cred-auth command talks to the emulator.",
};

export const CONFIG: CommandSpec = {
  name: "config",
  summary: "Keep settings once: your OAuth client (`config init` sets one up, guided), scopes, ui, ports, remote.",
  positionals: [
    {
      name: "init [CLIENT_FILE]",
      help: 'set up your own OAuth client: the three Google Cloud console steps, then the "Desktop app" JSON file they download',
    },
    { name: "set KEY VALUE [KEY VALUE]", help: "store settings (client-id and client-secret go together)" },
    { name: "get KEY", help: "print one setting (exit 1 when it is not set; client-secret is never printed)" },
    { name: "unset KEY...", help: "remove settings" },
    { name: "list", help: "print every setting kept, KEY = VALUE (secrets hidden)" },
    { name: "path", help: "print where the settings file is" },
  ],
  usage: "Usage: cred-auth config init [CLIENT_FILE] | set|get|unset|list|path [KEY [VALUE]]",
  options: [],
  // A getter: the table of keys loads only for this help, not on print-token's path.
  get epilog() {
    const { SETTINGS } = settingKeys();
    return [
      "Keys:",
      ...SETTINGS.map((s) => `  ${`${s.key} ${s.metavar}`.padEnd(31)}  ${s.help}`),
      "Options and environment variables win over settings. See docs/cli.md in the package.",
    ].join("\n");
  },
};

export const COMMANDS: readonly CommandSpec[] = [
  LOGIN,
  PRINT_TOKEN,
  PRINT_IDENTITY_TOKEN,
  STATUS,
  REVOKE,
  CONFIG,
  EMULATOR,
];

const EXIT_CODES = [
  "Exit codes: 0 success, 1 credentials error, 2 usage error, 3 connection error, 130 cancelled.",
].join("\n");

/** The program's help. */
export function programHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    "Usage: cred-auth COMMAND [OPTIONS]",
    "",
    "Get, save and print OAuth 2.0 credentials for Google Cloud APIs.",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Options:",
    "  -h, --help     show this help (or `cred-auth COMMAND --help` for a command's)",
    "  -v, --version  print the version",
    "",
    EXIT_CODES,
    "Environment: CRED_AUTH_EMULATOR_HOST, CRED_AUTH_TOKEN_CACHE, CRED_AUTH_DEBUG, ... (see docs/cli.md in the package).",
    "",
  ].join("\n");
}

/** A command's help. */
export function commandHelp(spec: CommandSpec): string {
  const rows: [string, string][] = [
    ...spec.positionals.map((p): [string, string] => [p.name, p.help]),
    ...spec.options.filter((o) => !o.hidden).map((o): [string, string] => [optionLabel(o), o.help]),
    ["-h, --help", "show this help"],
  ];
  const width = Math.min(34, Math.max(...rows.map(([label]) => label.length)));
  const usage =
    spec.usage ??
    [
      `Usage: cred-auth ${spec.name}`,
      ...spec.positionals.map((p) => p.name),
      spec.options.length > 0 ? "[OPTIONS]" : "",
    ]
      .filter(Boolean)
      .join(" ");
  return [
    usage,
    "",
    spec.summary,
    "",
    ...rows.map(([label, help]) =>
      label.length > width ? `  ${label}\n  ${"".padEnd(width)}  ${help}` : `  ${label.padEnd(width)}  ${help}`,
    ),
    "",
    ...(spec.epilog ? [spec.epilog, ""] : []),
    EXIT_CODES,
    "",
  ].join("\n");
}

function optionLabel(option: OptionSpec): string {
  const [first, ...rest] = option.names;
  const alias = rest.find((n) => n.includes("-", 2) && n !== first);
  const names = alias && first?.includes("_") ? `${first}, ${alias}` : String(first);
  return option.metavar ? `${names} ${option.metavar}` : names;
}
