// Leak check: failure scenarios run with known, Google-shaped secrets (client secrets `GOCSPX-…`
// holding `/+=`, refresh tokens `1//0g…`, access tokens `ya29.…`, codes `4/0A…`, JWT assertions,
// private keys), including a token server that echoes every request back in its error replies,
// as sent (percent- and form-encoded), JSON-escaped (`\/`) and as a Basic header. Every error
// (message, cause chain, `console.error`'s rendering and a deep inspection of the error object),
// every warning, every line the library writes and every byte of CLI output (with and without
// CRED_AUTH_DEBUG=1) is scanned for every encoded form of every secret. What is guaranteed is
// written down in docs/security.md.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { after, test } from "node:test";
import type { TestContext } from "node:test";
import { format, inspect } from "node:util";
import * as credAuth from "cred-auth";
import {
  CredAuthError,
  CredConnectionError,
  CredCredentialsError,
  cache,
  getUserCredentials,
  loadServiceAccountCredentials,
  loadUserCredentials,
  saveUserCredentials,
} from "cred-auth";
import type { Presenter, SignInEvent } from "cred-auth";
import { approveSignIn, startEmulator } from "cred-auth/emulator";
import type { Emulator } from "cred-auth/emulator";
import { tempDir } from "../support/files.ts";
import { freePortRange, rangeEnv } from "../oauth/support.ts";
import { SCOPES, interceptWarnings, isolatedEnv, mapLimit, runCli } from "./support.ts";
import type { CliResult } from "./support.ts";

const CLIENT_ID = "leakcheck-client.apps.emulator.invalid";
// Shaped like Google's: `/`, `+` and `=` make every encoded form differ from the raw value.
const CLIENT_SECRET = "GOCSPX-Lk/q8Zr+4vX1=LeakCheck";
const WRONG_SECRET = "GOCSPX-Wr/ong+Hh27Kd0p=Leak";
const UNKNOWN_REFRESH_TOKEN = "1//0gLeakCheck-Ut5Wm9Qa/Rt+x==";
const FAKE_CODE = "4/0ALeakCheck-Pz3Nc8Lb/q+w=";
const KEY_MATERIAL = "LEAKCHECKprivatekeymaterialJx6Tq2Vb";

/** Every secret a scenario used or was given; grows as scenarios run (tokens, codes, assertions). */
const SECRETS = new Set<string>([
  CLIENT_SECRET,
  WRONG_SECRET,
  UNKNOWN_REFRESH_TOKEN,
  FAKE_CODE,
  KEY_MATERIAL,
  "PRIVATE KEY-----",
]);
function secret(value: string | null | undefined): string {
  if (value && value.length >= 8) SECRETS.add(value);
  return value ?? "";
}
/** A private key's secret parts: every full base64 line of its PEM body. */
function privateKeySecrets(pem: string): void {
  for (const line of pem.split("\n")) if (/^[A-Za-z0-9+/]{64}$/.test(line)) secret(line);
}

/** Everything observed so far, by where it came from. Scanned after each scenario and at the end. */
const observed: Array<{ where: string; text: string }> = [];
function observe(where: string, text: string | undefined): void {
  if (text) observed.push({ where, text });
}

/** The texts of an error a program could log: message, String(), stack and cause chain, and a deep inspection. */
function observeError(where: string, error: unknown): void {
  for (let e: unknown = error, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    observe(`${where}: error${".cause".repeat(depth)} message/stack`, `${String(e)}\n${(e as Error).stack ?? ""}`);
  }
  observe(`${where}: util.inspect(error)`, inspect(error, { depth: 12 }));
  observe(`${where}: console.error(error)`, format(error));
}

/** The forms a secret takes when a server or proxy echoes what it was sent. */
function encodedForms(value: string): string[] {
  const percent = encodeURIComponent(value);
  const form = new URLSearchParams([["", value]]).toString().slice(1);
  const json = JSON.stringify(value).slice(1, -1);
  const forms = [
    value,
    percent,
    form,
    json.replaceAll("/", "\\/"),
    Buffer.from(`${CLIENT_ID}:${value}`).toString("base64"),
  ];
  return [...forms, ...forms.map((f) => f.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()))];
}

function leaksIn(text: string): string[] {
  return [...SECRETS]
    .filter((s) => encodedForms(s).some((form) => text.includes(form)))
    .map((s) => `${s.slice(0, 14)}...`);
}

function assertNoLeaks(from = 0): void {
  const found = observed.slice(from).flatMap(({ where, text }) => leaksIn(text).map((leak) => `${where}: ${leak}`));
  assert.deepEqual(found, [], "secrets appeared in errors, warnings or output");
}

// ---------------------------------------------------------------- servers

async function emulatorFor(t: TestContext): Promise<Emulator> {
  const emu = await startEmulator({
    clients: [{ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, type: "installed" }],
  });
  t.after(() => emu.close());
  return emu;
}

/**
 * A token server that puts the whole request back into its reply, the worst a server or a
 * proxy in between could do. The secrets it receives are added to SECRETS.
 */
type EchoMode =
  | "json400-description"
  | "json400-error"
  | "json-error-object"
  | "html500"
  | "text200"
  | "json200-bad-token"
  | "json400-escaped-slashes"
  | "basic400";
const ECHO_MODES: EchoMode[] = [
  "json400-description",
  "json400-error",
  "json-error-object",
  "html500",
  "text200",
  "json200-bad-token",
  "json400-escaped-slashes",
  "basic400",
];

const echoServer: Server = createServer((req, res) => {
  let body = "";
  req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
  req.on("end", () => {
    for (const [name, value] of new URLSearchParams(body))
      if (name !== "grant_type" && name !== "client_id" && name !== "redirect_uri") secret(value);
    const echo = `echo ${body} ${req.headers.authorization ?? ""}`;
    const mode = (req.url ?? "").split("/")[1] as EchoMode;
    const json = (status: number, data: unknown): void => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(data));
    };
    if (mode === "json400-description") return json(400, { error: "invalid_grant", error_description: echo });
    if (mode === "json400-error") return json(400, { error: echo });
    if (mode === "json-error-object")
      return json(400, { error: { code: 400, message: echo, status: "INVALID_ARGUMENT" } });
    // PHP's json_encode escapes `/`; the form is decoded first, as a server that parsed it would.
    if (mode === "json400-escaped-slashes") {
      const fields = Object.fromEntries(new URLSearchParams(body));
      res.writeHead(400, { "content-type": "application/json" });
      return res.end(JSON.stringify({ error: "invalid_request", received: fields }).replaceAll("/", "\\/"));
    }
    // A proxy that turned the client's body credentials into a Basic header and echoes that.
    if (mode === "basic400") {
      const fields = new URLSearchParams(body);
      const basic = Buffer.from(`${fields.get("client_id")}:${fields.get("client_secret")}`).toString("base64");
      return json(400, { error: "invalid_client", error_description: `Authorization: Basic ${basic}` });
    }
    if (mode === "json200-bad-token")
      return json(200, { access_token: 12345, expires_in: 3600, token_type: "Bearer", echo });
    res.writeHead(mode === "html500" ? 500 : 200, { "content-type": mode === "html500" ? "text/html" : "text/plain" });
    res.end(mode === "html500" ? `<html><body>${echo}</body></html>` : echo);
  });
});
await new Promise<void>((resolve) => echoServer.listen(0, "127.0.0.1", resolve));
after(() => echoServer.close());

function echoUrl(mode: EchoMode): string {
  return `http://127.0.0.1:${(echoServer.address() as { port: number }).port}/${mode}/token`;
}

// ---------------------------------------------------------------- files

function userFile(
  dir: string,
  tokenUri: string,
  refreshToken: string,
  clientSecret = CLIENT_SECRET,
  name = "user.json",
): string {
  const path = join(dir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path,
    JSON.stringify({
      type: "authorized_user",
      client_id: CLIENT_ID,
      client_secret: secret(clientSecret),
      refresh_token: secret(refreshToken),
      token_uri: tokenUri,
      scopes: SCOPES,
    }),
  );
  return path;
}

function keyFile(dir: string, key: Record<string, string>, name = "key.json"): string {
  privateKeySecrets(key.private_key!);
  const path = join(dir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path, JSON.stringify(key));
  return path;
}

function revokedRefreshToken(emu: Emulator): string {
  const token = secret(emu.issueRefreshToken({ clientId: CLIENT_ID, scopes: SCOPES }));
  emu.revokeRefreshToken(token);
  return token;
}

// ---------------------------------------------------------------- in-process scenarios

/** A presenter playing the browser: denies, or allows and returns what the browser saw. */
function browserPresenter(decision: "allow" | "deny", code?: string): Presenter & { events: SignInEvent[] } {
  const events: SignInEvent[] = [];
  return {
    events,
    update(event) {
      events.push(event);
      if (event.type === "url" && event.mode === "loopback") {
        void approveSignIn(event.url, { decision }).then(
          (result) => secret(result.code),
          () => {},
        );
      }
    },
    ...(code === undefined ? {} : { readCode: async () => code }),
  };
}

/**
 * Runs `scenario` in this process with CRED_AUTH_DEBUG=1, capturing what it writes to stdout and
 * stderr, the warnings it emits and the error it ends with (which must be of `expected` class).
 */
async function inProcess(
  t: TestContext,
  where: string,
  expected: typeof CredAuthError | ErrorConstructor,
  scenario: () => Promise<unknown>,
): Promise<Error> {
  const from = observed.length;
  const warnings = interceptWarnings(t, () => true);
  const written: string[] = [];
  const originals = { out: process.stdout.write, err: process.stderr.write };
  const tap = (original: typeof process.stdout.write) =>
    function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
      written.push(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"));
      return (original as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    };
  process.stdout.write = tap(originals.out) as typeof process.stdout.write;
  process.stderr.write = tap(originals.err) as typeof process.stderr.write;
  let error: unknown;
  try {
    await scenario();
  } catch (caught) {
    error = caught;
  } finally {
    process.stdout.write = originals.out;
    process.stderr.write = originals.err;
  }
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(
    error instanceof expected,
    `${where}: expected ${expected.name}, got ${(error as Error)?.name}: ${(error as Error)?.message}`,
  );
  observeError(where, error);
  observe(`${where}: stdout/stderr`, written.join(""));
  for (const warning of warnings)
    observe(`${where}: warning`, `${String(warning)} ${(warning as { detail?: string }).detail ?? ""}`);
  assertNoLeaks(from);
  return error;
}

const savedEnv = { ...process.env };
const home = mkdtempSync(join(tmpdir(), "cred-auth-leaks-"));
after(() => rmSync(home, { recursive: true, force: true }));
process.env.HOME = home;
process.env.CRED_AUTH_DEBUG = "1";
process.env.CRED_AUTH_HOSTED = "off";
process.env.CRED_AUTH_TOKEN_CACHE = "off";
process.env.CRED_AUTH_LOOPBACK_PORTS = rangeEnv(await freePortRange(3));
for (const name of [
  "CRED_AUTH_EMULATOR_HOST",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "GCE_METADATA_HOST",
  "CRED_AUTH_CLIENT_ID",
  "CRED_AUTH_CLIENT_SECRET",
])
  delete process.env[name];
after(() => {
  for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name];
  Object.assign(process.env, savedEnv);
});

/** Points the library's Google endpoints at `emu` for one test. */
function useEmulator(t: TestContext, emu: Emulator): void {
  process.env.CRED_AUTH_EMULATOR_HOST = emu.host;
  t.after(() => delete process.env.CRED_AUTH_EMULATOR_HOST);
}

test("loaders: revoked, wrong secret, 503, unknown key, a garbage key file", async (t) => {
  const emu = await emulatorFor(t);
  const dir = tempDir(t);
  const tokenUri = `${emu.url}/token`;
  await inProcess(t, "loadUserCredentials revoked", CredCredentialsError, () =>
    loadUserCredentials(userFile(dir, tokenUri, revokedRefreshToken(emu))),
  );
  const live = secret(emu.issueRefreshToken({ clientId: CLIENT_ID, scopes: SCOPES }));
  await inProcess(t, "loadUserCredentials wrong secret", CredCredentialsError, () =>
    loadUserCredentials(userFile(dir, tokenUri, live, WRONG_SECRET)),
  );
  emu.failNext(20, { kind: "status", status: 503 });
  await inProcess(t, "loadUserCredentials 503", CredConnectionError, () =>
    loadUserCredentials(userFile(dir, tokenUri, live)),
  );
  emu.reset();
  const other = await startEmulator();
  t.after(() => other.close());
  const stranger = { ...other.createServiceAccountKey(), token_uri: tokenUri };
  await inProcess(t, "loadServiceAccountCredentials unknown key", CredCredentialsError, () =>
    loadServiceAccountCredentials(keyFile(dir, stranger)),
  );
  const garbage = {
    ...stranger,
    private_key: `-----BEGIN PRIVATE KEY-----\n${KEY_MATERIAL}\n-----END PRIVATE KEY-----\n`,
  };
  await inProcess(t, "loadServiceAccountCredentials garbage key", CredCredentialsError, () =>
    loadServiceAccountCredentials(keyFile(dir, garbage, "garbage.json")),
  );
});

test("loaders against a token server that echoes every request into its replies", async (t) => {
  const emu = await emulatorFor(t);
  const dir = tempDir(t);
  for (const mode of ECHO_MODES) {
    const url = echoUrl(mode);
    await inProcess(t, `loadUserCredentials echo ${mode}`, CredAuthError, () =>
      loadUserCredentials(userFile(dir, url, `1//0gLEAKCHECK-rt/${mode}+Zk31=`)),
    );
    const key = { ...emu.createServiceAccountKey(), token_uri: url };
    await inProcess(t, `loadServiceAccountCredentials echo ${mode}`, CredAuthError, () =>
      loadServiceAccountCredentials(keyFile(dir, key)),
    );
  }
});

test("a refresh inside an API call (google-auth-library's own error, no cred-auth mapping) against an echoing server", async (t) => {
  const { userRefreshClientFrom } = await import("../../dist/credentials/kinds/user/client.js");
  const { serviceAccountClientFrom } = await import("../../dist/credentials/kinds/key/client.js");
  const emu = await emulatorFor(t);
  for (const mode of ["json400-description", "json-error-object", "html500"] as const) {
    const refreshToken = secret(`1//0gLEAKCHECK-api-rt/${mode}+Wd62=`);
    const user = await userRefreshClientFrom({
      type: "authorized_user",
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      refreshToken,
      tokenUrl: echoUrl(mode),
    });
    await inProcess(t, `user client getRequestHeaders echo ${mode}`, Error, () => user.getRequestHeaders());
    const key = emu.createServiceAccountKey();
    privateKeySecrets(key.private_key!);
    const jwt = await serviceAccountClientFrom(
      {
        type: "service_account",
        projectId: "p",
        privateKey: key.private_key!,
        clientEmail: key.client_email!,
        tokenUrl: echoUrl(mode),
      },
      SCOPES,
    );
    await inProcess(t, `service account getRequestHeaders echo ${mode}`, Error, () => jwt.getRequestHeaders());
  }
});

test("getUserCredentials: unusable caches, denied and failed sign-ins, a wrong pasted code", async (t) => {
  const emu = await emulatorFor(t);
  useEmulator(t, emu);
  const options = {
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    openBrowser: false,
    timeoutMs: 30_000,
    useLocalWebserver: true,
  } as const;
  const credentialsCache = new cache.ReadWriteCredentialsCache({ dirname: "leaks" });

  userFile(
    join(home, ".config", "leaks"),
    `${emu.url}/token`,
    revokedRefreshToken(emu),
    CLIENT_SECRET,
    "cred_credentials.json",
  );
  await inProcess(t, "getUserCredentials revoked cache, denied sign-in", CredCredentialsError, () =>
    getUserCredentials(SCOPES, { ...options, credentialsCache, presenter: browserPresenter("deny") }),
  );

  const live = secret(emu.issueRefreshToken({ clientId: CLIENT_ID, scopes: SCOPES }));
  userFile(join(home, ".config", "leaks"), `${emu.url}/token`, live, CLIENT_SECRET, "cred_credentials.json");
  emu.failNext(20, { kind: "status", status: 503 });
  await inProcess(t, "getUserCredentials cached refresh 503", CredConnectionError, () =>
    getUserCredentials(SCOPES, { ...options, credentialsCache, presenter: browserPresenter("deny") }),
  );
  emu.reset();

  // Corrupt caches that hold secrets: the warning names the problem, never the content.
  writeFileSync(
    credentialsCache.path,
    `{"type": "authorized_user", "client_id": "${CLIENT_ID}", "client_secret": "${CLIENT_SECRET}", "refresh_token": "${UNKNOWN_REFRESH_TOKEN}`,
  );
  await inProcess(t, "getUserCredentials truncated cache, denied sign-in", CredCredentialsError, () =>
    getUserCredentials(SCOPES, { ...options, credentialsCache, presenter: browserPresenter("deny") }),
  );
  writeFileSync(
    credentialsCache.path,
    JSON.stringify({
      type: "authorized_user",
      client_id: CLIENT_ID,
      client_secret: [CLIENT_SECRET],
      refresh_token: UNKNOWN_REFRESH_TOKEN,
    }),
  );
  await inProcess(t, "getUserCredentials mistyped cache, denied sign-in", CredCredentialsError, () =>
    getUserCredentials(SCOPES, { ...options, credentialsCache, presenter: browserPresenter("deny") }),
  );

  // Allowed in the browser, but the code exchange fails: the code must not surface.
  emu.failNext(20, { kind: "status", status: 503 });
  await inProcess(t, "getUserCredentials exchange 503", CredConnectionError, () =>
    getUserCredentials(SCOPES, { ...options, credentialsCache: cache.NOOP, presenter: browserPresenter("allow") }),
  );
  emu.reset();

  await inProcess(t, "getUserCredentials wrong pasted code", CredCredentialsError, () =>
    getUserCredentials(SCOPES, {
      ...options,
      useLocalWebserver: false,
      credentialsCache: cache.NOOP,
      presenter: browserPresenter("deny", FAKE_CODE),
    }),
  );
});

test("saveUserCredentials: a sign-in whose destination cannot be written", async (t) => {
  const emu = await emulatorFor(t);
  useEmulator(t, emu);
  const dir = tempDir(t);
  writeFileSync(join(dir, "file"), "x");
  const presenter = browserPresenter("allow");
  const error = await inProcess(t, "saveUserCredentials unwritable destination", CredCredentialsError, () =>
    saveUserCredentials(SCOPES, join(dir, "file", "creds.json"), {
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      openBrowser: false,
      useLocalWebserver: true,
      presenter,
    }),
  );
  assert.match(error.message, /^Cannot save credentials to /, "refused before the sign-in");
  assert.equal(emu.stats().byGrant.authorization_code ?? 0, 0);
});

test("default(): an unusable GOOGLE_APPLICATION_CREDENTIALS, then a denied sign-in; a failing token server", async (t) => {
  const emu = await emulatorFor(t);
  useEmulator(t, emu);
  const dir = tempDir(t);
  const options = {
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    openBrowser: false,
    useLocalWebserver: true,
    credentialsCache: cache.NOOP,
    timeoutMs: 30_000,
  } as const;
  const pointAdcAt = (path: string): void => {
    process.env.GOOGLE_APPLICATION_CREDENTIALS = path;
  };
  t.after(() => delete process.env.GOOGLE_APPLICATION_CREDENTIALS);

  pointAdcAt(userFile(dir, `${emu.url}/token`, revokedRefreshToken(emu)));
  await inProcess(t, "default() revoked ADC file", CredCredentialsError, () =>
    credAuth.default(SCOPES, { ...options, presenter: browserPresenter("deny") }),
  );

  pointAdcAt(keyFile(dir, { ...emu.createServiceAccountKey(), token_uri: echoUrl("json400-error") }));
  await inProcess(t, "default() ADC key, echoing token server", CredCredentialsError, () =>
    credAuth.default(SCOPES, { ...options, presenter: browserPresenter("deny") }),
  );

  pointAdcAt(userFile(dir, `${emu.url}/token`, secret(emu.issueRefreshToken({ clientId: CLIENT_ID, scopes: SCOPES }))));
  emu.failNext(20, { kind: "status", status: 503 });
  await inProcess(t, "default() token server 503", CredConnectionError, () =>
    credAuth.default(SCOPES, { ...options, presenter: browserPresenter("deny") }),
  );
});

// ---------------------------------------------------------------- the command line

interface CliScenario {
  name: string;
  exit: number;
  run(env: NodeJS.ProcessEnv, dir: string): Promise<CliResult>;
}

const URL_IN_OUTPUT = /(http:\/\/127\.0\.0\.1:\d+\/o\/oauth2\/v2\/auth\?\S+)/;

/** `cred-auth login` in the loopback mode, playing the browser once the URL is printed. */
function login(
  env: NodeJS.ProcessEnv,
  dir: string,
  decision: "allow" | "deny",
  extra: string[] = [],
): Promise<CliResult> {
  let browsed = false;
  const args = [
    "login",
    join(dir, "out.json"),
    "--use_local_webserver",
    "--no-browser",
    "--ui",
    "plain",
    "--timeout",
    "60",
    ...extra,
  ];
  return runCli(args, {
    env,
    onStderr: (stderr) => {
      const url = URL_IN_OUTPUT.exec(stderr)?.[1];
      if (!url || browsed) return;
      browsed = true;
      void approveSignIn(url, { decision }).then(
        (result) => secret(result.code),
        () => {},
      );
    },
  });
}

async function cliScenarios(t: TestContext): Promise<CliScenario[]> {
  const emu = await emulatorFor(t);
  const failing = await emulatorFor(t);
  failing.failNext(1000, { kind: "status", status: 503 });
  const tokenUri = `${emu.url}/token`;
  const printToken = (path: string) => (env: NodeJS.ProcessEnv) => runCli(["print-token", path], { env });
  const dir = tempDir(t);
  const scenarios: CliScenario[] = [
    {
      name: "print-token revoked",
      exit: 1,
      run: printToken(userFile(join(dir, "revoked"), tokenUri, revokedRefreshToken(emu))),
    },
    {
      name: "print-token 503",
      exit: 3,
      run: printToken(
        userFile(
          join(dir, "503"),
          `${failing.url}/token`,
          secret(failing.issueRefreshToken({ clientId: CLIENT_ID, scopes: SCOPES })),
        ),
      ),
    },
    {
      name: "print-token unknown service account key",
      exit: 1,
      run: printToken(
        keyFile(join(dir, "sa"), { ...(await startStranger(t)).createServiceAccountKey(), token_uri: tokenUri }),
      ),
    },
    {
      name: "print-token truncated file with secrets",
      exit: 1,
      run: (env) => {
        const path = join(dir, "truncated.json");
        writeFileSync(
          path,
          `{"type": "authorized_user", "client_id": "${CLIENT_ID}", "client_secret": "${CLIENT_SECRET}", "refresh_token": "${UNKNOWN_REFRESH_TOKEN}`,
        );
        return runCli(["print-token", path], { env });
      },
    },
    {
      name: "login denied",
      exit: 1,
      run: (env, d) => login(env, d, "deny", ["--client_id", CLIENT_ID, "--client_secret", CLIENT_SECRET]),
    },
    {
      name: "login, exchange fails",
      exit: 3,
      run: (env, d) =>
        login({ ...env, CRED_AUTH_EMULATOR_HOST: failing.host }, d, "allow", [
          "--client_id",
          CLIENT_ID,
          "--client_secret",
          CLIENT_SECRET,
        ]),
    },
    {
      name: "login with a mistyped option carrying the secret",
      exit: 2,
      run: (env, d) => runCli(["login", join(d, "out.json"), `--client_secrt=${CLIENT_SECRET}`], { env }),
    },
    {
      name: "login with a secret as a stray argument",
      exit: 2,
      run: (env, d) => runCli(["login", join(d, "out.json"), CLIENT_SECRET], { env }),
    },
    {
      name: "login with a client-secret file that is not one",
      exit: 1,
      run: (env, d) => {
        const path = join(d, "client.json");
        writeFileSync(path, JSON.stringify({ installed: { client_secret: CLIENT_SECRET } }));
        return runCli(["login", join(d, "out.json"), "--client-secret-file", path], { env });
      },
    },
  ];
  for (const mode of [
    "json400-description",
    "json400-error",
    "json-error-object",
    "html500",
    "text200",
    "json400-escaped-slashes",
    "basic400",
  ] as const) {
    const url = echoUrl(mode);
    scenarios.push({
      name: `print-token echo ${mode}`,
      exit: mode === "html500" || mode === "text200" ? 3 : 1,
      run: printToken(userFile(join(dir, mode), url, `1//0gLEAKCHECK-cli-rt/${mode}+Yq84=`)),
    });
    scenarios.push({
      name: `print-token key, echo ${mode}`,
      exit: mode === "html500" || mode === "text200" ? 3 : 1,
      run: printToken(keyFile(join(dir, `${mode}-sa`), { ...emu.createServiceAccountKey(), token_uri: url })),
    });
  }
  // Service account keys carry the emulator's token_uri: they go there, not to Google.
  return scenarios.map((scenario) => ({
    ...scenario,
    run: (env, d) => scenario.run({ ...env, CRED_AUTH_EMULATOR_HOST: env.CRED_AUTH_EMULATOR_HOST ?? emu.host }, d),
  }));
}

async function startStranger(t: TestContext): Promise<Emulator> {
  const other = await startEmulator();
  t.after(() => other.close());
  return other;
}

test("the CLI's stdout and stderr, with and without CRED_AUTH_DEBUG=1, never show a secret", {
  timeout: 180_000,
}, async (t) => {
  const scenarios = await cliScenarios(t);
  const runs = scenarios.flatMap((scenario) => [
    { scenario, debug: false },
    { scenario, debug: true },
  ]);
  const from = observed.length;
  await mapLimit(runs, 3, async ({ scenario, debug }) => {
    const dir = tempDir(t, "cred-auth-leaks-cli-");
    const env = isolatedEnv(dir, {
      CRED_AUTH_TOKEN_CACHE: join(dir, "tokens"),
      CRED_AUTH_LOOPBACK_PORTS: rangeEnv(await freePortRange(3)),
      ...(debug ? { CRED_AUTH_DEBUG: "1" } : {}),
    });
    const result = await scenario.run(env, dir);
    const where = `${scenario.name}${debug ? " (debug)" : ""}`;
    assert.equal(result.code, scenario.exit, `${where}: exit ${scenario.exit}; stderr: ${result.stderr.slice(0, 500)}`);
    observe(`${where}: stdout`, result.stdout);
    observe(`${where}: stderr`, result.stderr);
  });
  assertNoLeaks(from);
});

test("the whole run, scanned again with every secret learned along the way", (t) => {
  t.diagnostic(`${SECRETS.size} secrets, ${observed.length} texts scanned`);
  assert.ok(SECRETS.size >= 20, `secrets in play: ${SECRETS.size}`);
  assert.ok(observed.length >= 100, `texts scanned: ${observed.length}`);
  assertNoLeaks();
});
