// The layers of src/ (docs/architecture.md), checked by `npm test` (scripts/test.mjs):
// an import runs from a layer to a lower one or within its own room, never up, and never in a
// circle (type-only imports included). A kind's file shape (credentials/kinds/TYPE/file.ts) is a
// format: pure, at the formats layer. Top to bottom:
const KIND_FILE_IN = "(file|[^/]+/file)\\.ts$";
const KIND_FILE = `kinds/${KIND_FILE_IN}`;
const LAYERS = [
  { name: "entry", path: "^src/(index\\.ts|api\\.ts|cli\\.ts|cli/)" },
  { name: "credentials", path: "^src/(credentials/(?!kinds/)|options\\.ts)" },
  { name: "credentials-cache, hosted, ui", path: "^src/(credentials-cache|hosted|ui)/" },
  {
    name: "kinds (each ADC type's tokens and client; its file shape sits with formats)",
    path: `^src/credentials/kinds/(?!${KIND_FILE_IN})`,
  },
  { name: "oauth", path: "^src/oauth/" },
  {
    name: "protocols (talking to Google's token services: OAuth, STS, IAM Credentials)",
    path: "^src/protocols/",
  },
  { name: "stores (where secrets rest: the file, the keychain)", path: "^src/stores/" },
  { name: "token-cache", path: "^src/token-cache/" },
  { name: "runtime, settings", path: "^src/(runtime|settings)/" },
  { name: "formats (every on-disk shape, every cache key)", path: `^src/(formats/|credentials/${KIND_FILE})` },
  { name: "util, os (adapters to the machine: the browser opener, the keychain)", path: "^src/(util|os)/" },
  { name: "trust (URL policy, file-trust rule, redaction, terminal-safe text)", path: "^src/trust/" },
  { name: "shared, errors, messages", path: "^src/(shared/|errors\\.ts|messages\\.ts|version\\.ts)" },
];

// The rooms of credentials/ (docs/architecture.md, "The rooms of credentials/"): each named for what it
// holds, each importing only the rooms listed under it. Top to bottom:
// - the public ID-token API (credentials/id-token.ts) and status/revoke (credentials/status/) use default()'s search;
// - search/: default()'s search (default, adc, locate, the CLI's token search, single flight);
// - sign-in/: the sign-in (plan, user, complete, pending credentials, account note, destination);
// - tokens/: a token for a file or a client, through the token cache (print-token's and the ID-token API's);
// - kinds/: one folder per ADC file type (its shape, tokens, client), registered in one table keyed by `type`.
const ROOMS = {
  "the public ID-token API": { path: "^src/credentials/id-token\\.ts$", uses: ["search", "tokens"] },
  status: { path: "^src/credentials/status/", uses: ["search", "tokens", "kinds"] },
  search: { path: "^src/credentials/search/", uses: ["sign-in", "tokens", "kinds"] },
  "sign-in": { path: "^src/credentials/sign-in/", uses: ["kinds"] },
  tokens: { path: "^src/credentials/tokens/", uses: ["kinds"] },
  kinds: { path: "^src/credentials/kinds/", uses: [] },
};
const roomWalls = Object.entries(ROOMS).map(([name, room]) => ({
  name: `room-${name.replace(/ /g, "-")}`,
  comment: `In credentials/, ${name} imports ${room.uses.length ? `only ${room.uses.join(", ")}` : "no other room"}.`,
  severity: "error",
  from: { path: room.path },
  // A kind's file shape is a format: any room may read it.
  to: {
    path: "^src/credentials/",
    pathNot: [room.path, ...room.uses.map((used) => ROOMS[used].path), `^src/credentials/${KIND_FILE}`],
  },
}));

const KINDS_ROOM = ROOMS.kinds.path;
const kindsWalls = [
  {
    name: "kinds-through-the-table",
    comment:
      "Outside credentials/kinds/, a file's kind is asked of the table (kinds/table.ts; its types in kinds/kind.ts): no module picks a kind's module, or a kind's client, by the file's type itself.",
    severity: "error",
    from: { path: "^src/", pathNot: KINDS_ROOM },
    to: {
      path: KINDS_ROOM,
      // A kind's file shape is a format anyone may read; the user's client is the sign-in's and the
      // credentials cache's, the key's a public loader's, the impersonated one the impersonateServiceAccount option's.
      pathNot: [
        "^src/credentials/kinds/(table|kind)\\.ts$",
        `^src/credentials/${KIND_FILE}`,
        "^src/credentials/kinds/user/(client|shared-tokens)\\.ts$",
        "^src/credentials/kinds/(key|impersonated)/client\\.ts$",
      ],
    },
  },
];

const climbing = LAYERS.slice(1).map((layer, i) => ({
  name: `no-climbing-from-${layer.name.split(" ")[0].replace(/,$/, "")}`,
  comment: `${layer.name} is below ${LAYERS.slice(0, i + 1)
    .map((l) => l.name)
    .join(", ")}: it must not import them.`,
  severity: "error",
  from: { path: layer.path },
  to: { path: LAYERS.slice(0, i + 1).map((l) => l.path) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No import circles, type-only ones included.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "oauth-knows-no-screen",
      comment: "oauth/ declares its events (oauth/events.ts); ui/ implements them, never the other way.",
      severity: "error",
      from: { path: "^src/oauth/" },
      to: { path: "^src/ui/" },
    },
    {
      name: "cli-composes",
      comment:
        "The command line parses arguments, calls the library (credentials/) and prints: it never talks to Google, keeps tokens or reads credentials files itself. Of formats/ it may use the impersonation chain's syntax (checked before a sign-in), of trust/ the terminal-safe text.",
      severity: "error",
      from: { path: "^src/(cli\\.ts|cli/)" },
      to: {
        path: "^src/(protocols|token-cache|formats|trust)/",
        pathNot: ["^src/formats/impersonation-chain\\.ts$", "^src/trust/text\\.ts$"],
      },
    },
    {
      name: "decided-above",
      comment:
        "oauth/ and ui/ receive the sign-in plan (credentials/sign-in/plan.ts): they never read the settings or detect the runtime themselves.",
      severity: "error",
      from: { path: "^src/(oauth|ui)/" },
      to: { path: "^src/(settings|runtime)/" },
    },
    {
      name: "runtime-reads-no-settings",
      comment:
        "The runtime detection is a function of its inputs: the user's word on `remote` is given to it by the plan.",
      severity: "error",
      from: { path: "^src/runtime/" },
      to: { path: "^src/settings/" },
    },
    {
      name: "settings-read-by-the-plan",
      comment:
        "The settings file is read for a sign-in by credentials/sign-in/plan.ts alone (once per sign-in); the command line's config command reads and writes it; the secret stores read which one to use (stores/index.ts).",
      severity: "error",
      from: {
        path: "^src/",
        pathNot: ["^src/credentials/sign-in/plan\\.ts$", "^src/cli/", "^src/settings/", "^src/stores/index\\.ts$"],
      },
      to: { path: "^src/settings/(read|store)\\.ts$" },
    },
    {
      name: "runtime-detected-by-the-plan",
      comment:
        "Where the code runs is detected once per sign-in, by credentials/sign-in/plan.ts; credentials/sign-in/account-note.ts, the cache hit's own small plan, asks only which notebook kernel runs (default()'s warm path must not load the whole plan).",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/credentials/sign-in/(plan|account-note)\\.ts$", "^src/runtime/"] },
      to: { path: "^src/runtime/" },
    },
    {
      name: "credentials-not-cli",
      comment: "The library never imports its command line.",
      severity: "error",
      from: { path: "^src/credentials/" },
      to: { path: "^src/(cli\\.ts|cli/)" },
    },
    {
      name: "emulator-stands-alone",
      comment: "The emulator is an independent party in tests: of the library it imports only shared/constants.ts.",
      severity: "error",
      from: { path: "^src/emulator/" },
      to: { path: "^src/", pathNot: ["^src/emulator/", "^src/shared/constants\\.ts$"] },
    },
    {
      name: "library-not-emulator",
      comment: "The library does not import the emulator (the CLI's emulator command loads it on use).",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/emulator/", "^src/cli/commands/emulator\\.ts$"] },
      to: { path: "^src/emulator/" },
    },
    ...roomWalls,
    ...kindsWalls,
    {
      name: "formats-pure",
      comment:
        "formats/ and each kind's file.ts parse and serialize only: no file, process, socket or keychain I/O and no file-trust rule (a store or a kind reads, then hands them the bytes).",
      severity: "error",
      from: { path: `^src/(formats/|credentials/${KIND_FILE})` },
      to: {
        path: [
          "^(node:)?(fs|fs/promises|child_process|net|http|https)$",
          "^src/(os|stores)/",
          "^src/trust/(files|http|transport)\\.ts$",
          "^src/util/atomic-write\\.ts$",
        ],
      },
    },
    {
      name: "protocols-know-no-kind",
      comment: "protocols/ speaks request and reply over plain values: it imports no kind's shape or code.",
      severity: "error",
      from: { path: "^src/protocols/" },
      to: { path: "^src/credentials/" },
    },
    {
      name: "kinds-apart",
      comment:
        "A kind's folder reads another kind's file shape, nothing more: a kind's behaviour is reached through the table (kinds/table.ts hands the impersonated kind its sources).",
      severity: "error",
      from: { path: "^src/credentials/kinds/([^/]+)/" },
      to: {
        path: "^src/credentials/kinds/[^/]+/",
        pathNot: ["^src/credentials/kinds/$1/", `^src/credentials/${KIND_FILE}`],
      },
    },
    {
      name: "one-transport",
      comment:
        "Every request cred-auth sends leaves through src/trust/transport.ts (node-fetch, the redirect and proxy rules; docs/security.md): no other module imports an HTTP client or a socket. The loopback receiver (oauth/loopback.ts) only serves; os/devshell.ts speaks Cloud Shell's local devshell protocol, a TCP socket on loopback that is no HTTP; os/keychain.ts's helper process (its code a string, unseen here) asks the session bus over its Unix socket who owns the Secret Service, D-Bus and no HTTP; the emulator is a test party. google-auth-library's clients get the transport as their fetchImplementation (test/trust/transport-sites.test.ts holds every construction to it).",
      severity: "error",
      from: {
        path: "^src/",
        pathNot: [
          "^src/trust/transport\\.ts$",
          "^src/emulator/",
          "^src/oauth/loopback\\.ts$",
          "^src/os/devshell\\.ts$",
        ],
      },
      to: {
        path: [
          "^(node:)?(http|https|http2|net|tls|dgram)$",
          "(^|/)node_modules/(node-fetch|undici|axios|got|gaxios|https-proxy-agent|http-proxy-agent|gcp-metadata)/",
          "^(node-fetch|undici|axios|got|gaxios|https-proxy-agent|http-proxy-agent|gcp-metadata)(/|$)",
        ],
      },
    },
    ...climbing,
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(dist|node_modules)/" },
    // Type-only imports count: a circle of types is still a circle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
