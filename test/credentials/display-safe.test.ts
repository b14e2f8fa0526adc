// Every credentials object the package returns, displayed as a notebook or a log displays it
// (util.inspect, console.log, Deno's inspect symbol) or written by JSON.stringify, shows a
// summary (type, account, scopes, expiry) and none of its secrets: Google-shaped refresh, access
// and ID tokens, a GOCSPX- client secret, a PEM key. google-auth-library still works on it.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { inspect } from "node:util";
import * as credAuth from "cred-auth";
import { cache } from "cred-auth";
import { DEFAULT_WORKLOAD_AUDIENCE, approveSignIn } from "cred-auth/emulator";
import { SignInPendingError } from "../../dist/oauth/flow.js";
import { testCredentialsFile } from "../support/emulator.ts";
import { browserPresenter, isolatedWorld, withEnv } from "./support.ts";

const { emulator, home } = await isolatedWorld();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const GOOGLE_SHAPED = {
  clientId: "123456789012-abcdefghijklmnop.apps.googleusercontent.com",
  clientSecret: "GOCSPX-AbCdEfGhIjKlMnOpQrStUvWxYz12",
};
emulator.addClient({ ...GOOGLE_SHAPED, type: "installed", name: "display test" });
const noSignIn = { credentialsCache: cache.NOOP, useLocalWebserver: true } as const;
const RUNNER = "runner@display-project.iam.gserviceaccount.com";
emulator.addServiceAccount({ email: RUNNER, tokenCreators: ["user:alice@example.com"] });

/** Every string that would betray a secret of `client`: what it holds now, and the shapes Google gives them. */
function secretsOf(client: object): string[] {
  const c = client as {
    credentials?: Record<string, unknown>;
    _clientSecret?: unknown;
    key?: unknown;
    _refreshToken?: unknown;
  };
  const held = [
    c.credentials?.refresh_token,
    c.credentials?.access_token,
    c.credentials?.id_token,
    c._clientSecret,
    c._refreshToken,
    c.key,
  ].filter((s): s is string => typeof s === "string" && s.length > 0);
  return [...held, GOOGLE_SHAPED.clientSecret, "PRIVATE KEY", "1//", "ya29.", "eyJ"];
}

/** Displays `client` every way a person sees it and checks that no secret shows and the summary does. */
function assertDisplaySafe(
  client: object,
  expected: { type: string; account?: string },
  alsoSecret: readonly string[] = [],
): void {
  const secrets = [...secretsOf(client), ...alsoSecret];
  assert.ok(secrets.length > 5, `${expected.type}: the client holds a secret to hide`);
  const deno = (client as Record<symbol, (i: typeof inspect, o: object) => string>)[Symbol.for("Deno.customInspect")];
  assert.equal(typeof deno, "function", "Deno's inspect symbol");
  const shown = {
    inspect: inspect(client, { depth: Number.POSITIVE_INFINITY }),
    "console.log of a tuple": inspect([client, "project"], { depth: 5 }),
    showHidden: inspect(client, { showHidden: true }),
    deno: deno.call(client, inspect, {}),
    json: JSON.stringify(client),
    "json in an object": JSON.stringify({ credentials: client }),
  };
  for (const [how, text] of Object.entries(shown)) {
    for (const secret of secrets) assert.ok(!text.includes(secret), `${how} shows ${secret.slice(0, 12)}...:\n${text}`);
    assert.ok(text.includes(expected.type), `${how} names the type ${expected.type}: ${text}`);
    if (expected.account) assert.ok(text.includes(expected.account), `${how} names ${expected.account}: ${text}`);
    assert.ok(text.length < 400, `${how} is a short summary: ${text}`);
  }
  const summary = JSON.parse(shown.json) as Record<string, unknown>;
  assert.deepEqual(
    Object.keys(summary).filter((k) => !["type", "account", "scopes", "expiry"].includes(k)),
    [],
  );
  assert.deepEqual(
    Object.keys(client).filter((k) => k === "toJSON"),
    [],
    "nothing enumerable added",
  );
}

async function tokenOf(client: { getAccessToken(): Promise<{ token?: string | null }> }): Promise<string> {
  const { token } = await client.getAccessToken();
  assert.ok(token && emulator.checkAccessToken(token), "google-auth-library still gets a working token");
  return token;
}

function write(name: string, json: unknown): string {
  const path = join(home, name);
  writeFileSync(path, JSON.stringify(json), { mode: 0o600 });
  return path;
}

async function userFile(name: string, account = "alice@example.com"): Promise<string> {
  return testCredentialsFile(emulator, join(home, name), { scopes: [CLOUD], account, client: GOOGLE_SHAPED });
}

test("cache.load(): a Google-shaped file (1//0g refresh token, GOCSPX- secret, ID token) shows none of them", async () => {
  const keep = new cache.ReadWriteCredentialsCache({ dirname: "shaped", filename: "c.json" });
  mkdirSync(dirname(keep.path), { recursive: true, mode: 0o700 });
  writeFileSync(
    keep.path,
    JSON.stringify({
      type: "authorized_user",
      client_id: GOOGLE_SHAPED.clientId,
      client_secret: GOOGLE_SHAPED.clientSecret,
      refresh_token: "1//0gAbCdEfGhIjKlMnOpQrStUvWxYz-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH",
      id_token: "eyJhbGciOiJSUzI1NiJ9.eyJlbWFpbCI6ImFsaWNlQGV4YW1wbGUuY29tIn0.c2lnbmF0dXJl",
      account: "alice@example.com",
      scopes: [CLOUD],
    }),
    { mode: 0o600 },
  );
  const client = await keep.load();
  assert.ok(client, "loaded without asking any server");
  client.credentials.access_token = "ya29.a0AfB_byDisplayTestAccessToken0123456789";
  client.credentials.expiry_date = Date.UTC(2030, 0, 1);
  assertDisplaySafe(client, { type: "authorized_user", account: "alice@example.com" });
  assert.match(inspect(client), /2030-01-01T00:00:00\.000Z/, "the expiry");
  assert.match(inspect(client), /cloud-platform/, "the scopes");
  assert.equal(client._clientSecret, GOOGLE_SHAPED.clientSecret, "the object itself is unchanged");
});

test("loadUserCredentials and default() with an authorized_user file: displayed safe, and they still refresh", async () => {
  const path = await userFile("user");
  const loaded = await credAuth.loadUserCredentials(path);
  await tokenOf(loaded);
  assertDisplaySafe(loaded, { type: "authorized_user" });
  const [found] = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () => credAuth.default([CLOUD], noSignIn));
  await tokenOf(found);
  assertDisplaySafe(found, { type: "authorized_user" });
});

test("getUserCredentials (a sign-in) and cache.load(): displayed safe; the cache still saves and loads them", async () => {
  const keep = new cache.ReadWriteCredentialsCache({ dirname: "display", filename: "c.json" });
  const { presenter } = browserPresenter({ account: "carol@example.com" });
  const signedIn = await credAuth.getUserCredentials([CLOUD], {
    ...GOOGLE_SHAPED,
    presenter,
    credentialsCache: keep,
    useLocalWebserver: true,
  });
  await tokenOf(signedIn);
  assertDisplaySafe(signedIn, { type: "authorized_user", account: "carol@example.com" });
  const loaded = await keep.load();
  assert.ok(loaded);
  await tokenOf(loaded);
  assertDisplaySafe(loaded, { type: "authorized_user", account: "carol@example.com" });
  await keep.save(loaded); // save reads the object's fields, not its display
  assert.equal((await keep.load())?._clientSecret, GOOGLE_SHAPED.clientSecret);
});

test("completeSignIn: the credentials of a sign-in finished with the pasted address are displayed safe", async () => {
  const { presenter } = browserPresenter();
  const first = await withEnv({ CRED_AUTH_REMOTE: "1", CRED_AUTH_EMULATOR_CODE_PAGE: "off" }, () =>
    credAuth
      .getUserCredentials([CLOUD], { ...GOOGLE_SHAPED, presenter, openBrowser: false, credentialsCache: cache.NOOP })
      .then(
        () => undefined,
        (error: unknown) => error,
      ),
  );
  assert.ok(first instanceof SignInPendingError, String(first));
  const { url } = await approveSignIn(first.pending.url, { account: "bob@example.com", followRedirect: false });
  const done = await credAuth.completeSignIn(url, { presenter, credentialsCache: cache.NOOP });
  await tokenOf(done);
  assertDisplaySafe(done, { type: "authorized_user", account: "bob@example.com" });
});

test("service account key (a PEM): loadServiceAccountCredentials, default() and getIdTokenClient are displayed safe", async () => {
  const key = emulator.createServiceAccountKey({ projectId: "display-project" });
  assert.match(key.private_key ?? "", /BEGIN PRIVATE KEY/);
  const path = write("key.json", key);
  const loaded = await credAuth.loadServiceAccountCredentials(path, [CLOUD]);
  await tokenOf(loaded);
  assertDisplaySafe(loaded, { type: "service_account", account: key.client_email });
  const [found] = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () => credAuth.default([CLOUD], noSignIn));
  assertDisplaySafe(found, { type: "service_account", account: key.client_email });
  const url = emulator.addRunService({ name: "display" });
  const idClient = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () =>
    credAuth.getIdTokenClient(url, noSignIn),
  );
  await idClient.getRequestHeaders(url);
  assert.match(idClient.credentials.id_token ?? "", /^eyJ/, "it holds an ID token");
  assertDisplaySafe(idClient, { type: "ID token" });
});

test("impersonated, identity pool, AWS, workforce user and metadata server clients from default() are displayed safe", async () => {
  const source = JSON.parse(readFileSync(await userFile("imp-source"), "utf8"));
  const subjectFile = join(home, "subject.jwt");
  writeFileSync(subjectFile, emulator.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE }));
  const files: Record<string, [string, unknown]> = {
    impersonated: [
      "impersonated_service_account",
      {
        type: "impersonated_service_account",
        delegates: [],
        source_credentials: source,
        service_account_impersonation_url: `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${RUNNER}:generateAccessToken`,
      },
    ],
    pool: [
      "external_account",
      {
        type: "external_account",
        audience: DEFAULT_WORKLOAD_AUDIENCE,
        subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
        token_url: "https://sts.googleapis.com/v1/token",
        credential_source: { file: subjectFile },
      },
    ],
    aws: ["external_account", emulator.awsExternalAccountFile()],
    workforce: [
      "external_account_authorized_user",
      { ...emulator.issueExternalAccountAuthorizedUser(), token_url: "https://sts.googleapis.com/v1/oauthtoken" },
    ],
  };
  for (const [name, [type, json]] of Object.entries(files)) {
    const path = write(`${name}.json`, json);
    const [found] = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path, AWS_REGION: undefined }, () =>
      credAuth.default([CLOUD], noSignIn),
    );
    const token = await tokenOf(found);
    // A workforce user's client keeps its token and refresh token out of `credentials`.
    const { refresh_token, client_secret } = json as { refresh_token?: string; client_secret?: string };
    const fromFile = [refresh_token, client_secret].filter((s): s is string => typeof s === "string");
    assertDisplaySafe(found, { type }, [token, ...fromFile]);
  }
  emulator.setMetadata({ projectId: "vm-project", email: "vm@vm-project.iam.gserviceaccount.com", scopes: [CLOUD] });
  const [vm] = await withEnv({ GCE_METADATA_HOST: emulator.host }, () => credAuth.default([CLOUD], noSignIn));
  await tokenOf(vm);
  assertDisplaySafe(vm, { type: "metadata server" });
});
