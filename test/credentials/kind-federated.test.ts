// The federated kind (credentials/kinds/federated/) as the table hands it out: STS's token (cloud-platform unless
// asked), through the file's service account when it names one, keyed by the subject token it read; an ID token
// only through that account; what status says; that revoke cannot end it nor login replace it; default()'s client.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { inspect } from "node:util";
import { after, test } from "node:test";
import { ERROR_CODES } from "cred-auth";
import { DEFAULT_WORKFORCE_AUDIENCE, DEFAULT_WORKLOAD_AUDIENCE } from "cred-auth/emulator";
import { externalAccountDestinations, parseExternalAccount } from "../../dist/credentials/kinds/federated/file.js";
import { federatedKind } from "../../dist/credentials/kinds/federated/index.js";
import { readSubject, readSubjectToken } from "../../dist/credentials/kinds/federated/subject.js";
import { federatedToken } from "../../dist/credentials/kinds/federated/tokens.js";
import { awsSubjectTokenSecrets } from "../../dist/protocols/aws.js";
import { setCredentialInfo } from "../../dist/protocols/info.js";
import { trustedUniverse } from "../../dist/trust/urls.js";
import { workloadFileJson, workloadPrincipal } from "../support/emulator.ts";
import { decodeJwtParts } from "../support/id-tokens.ts";
import { OTHER_CLIENT, isolatedWorld } from "./support.ts";

const { emulator, home } = await isolatedWorld();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const BIGQUERY = "https://www.googleapis.com/auth/bigquery";
const TARGET = "federated@fed-project.iam.gserviceaccount.com";
const IAM = `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${TARGET}:generateAccessToken`;
emulator.addServiceAccount({ email: TARGET, tokenCreators: [workloadPrincipal("job-1")] });
const universe = trustedUniverse(process.env);
const dir = join(home, "tokens");
const subjectFile = join(home, "subject.jwt");
const newSubject = (lifetimeSec = 3600) =>
  writeFileSync(
    subjectFile,
    emulator.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, subject: "job-1", lifetimeSec }),
  );
newSubject();

function fileAt(name: string, extra: Record<string, unknown> = {}) {
  const json = workloadFileJson(subjectFile, extra);
  const path = join(home, name);
  writeFileSync(path, JSON.stringify(json), { mode: 0o600 });
  return { json, path, file: parseExternalAccount(json, path) };
}

const request = (path: string, requested?: string[]) => ({
  path,
  env: process.env,
  universe,
  requested,
  cache: { fresh: false, dir },
  warnings: [],
});

test("STS's token is cloud-platform unless scopes are asked, kept while the subject token is the same", async () => {
  const { path, file } = fileAt("plain.json");
  const token = await federatedKind.accessToken(file, request(path));
  assert.deepEqual(emulator.checkAccessToken(token.access_token)?.scopes, [CLOUD]);
  const asked = await federatedKind.accessToken(file, request(path, [BIGQUERY]));
  assert.deepEqual(emulator.checkAccessToken(asked.access_token)?.scopes, [BIGQUERY]);
  assert.equal((await federatedKind.accessToken(file, request(path))).access_token, token.access_token);
  newSubject(1800);
  const renewed = await federatedKind.accessToken(file, request(path));
  assert.notEqual(renewed.access_token, token.access_token, "another subject token: another key");
});

test("through the file's service account: the account's token with the scopes asked, and its ID token", async () => {
  const { path, file } = fileAt("impersonating.json", { service_account_impersonation_url: IAM });
  const token = await federatedKind.accessToken(file, request(path, [BIGQUERY]));
  const held = emulator.checkAccessToken(token.access_token);
  assert.equal(held?.account, TARGET);
  assert.deepEqual(held?.scopes, [BIGQUERY]);
  const audience = "https://service.example/";
  const asked = { path, env: process.env, universe, audience, includeEmail: true, cache: { fresh: false, dir } };
  const id = await federatedKind.idToken(file, asked);
  const { claims } = decodeJwtParts(id.access_token);
  assert.equal(claims.aud, audience);
  assert.equal(claims.email, TARGET);
  assert.equal(id.token_type, "id_token");
  assert.equal(federatedKind.actsAs(file), TARGET);
  const client = await federatedKind.client(file, path, { scopes: [BIGQUERY], env: process.env, universe });
  const { token: clientToken } = await client.credentials.getAccessToken();
  assert.equal(emulator.checkAccessToken(clientToken as string)?.account, TARGET);
});

test("without a service account it mints no ID token: from its file, and from a client without a file", async () => {
  const { path, file } = fileAt("no-id.json");
  const asked = { path, env: process.env, universe, audience: "a", includeEmail: false, cache: { fresh: false, dir } };
  await assert.rejects(federatedKind.idToken(file, asked), (error: Error & { code?: string }) => {
    assert.equal(error.code, ERROR_CODES.ID_TOKEN_UNSUPPORTED);
    assert.ok(error.message.includes(JSON.stringify(path)), error.message);
    return true;
  });
  const viaFile: string[] = [];
  const clientRequest = {
    audience: "a",
    includeEmail: false,
    env: process.env,
    fromFile: async (from: string) => {
      viaFile.push(from);
      return { idToken: "t", expiresAt: 0 };
    },
    remembered: (mint: () => Promise<{ idToken: string; expiresAt: number }>) => mint(),
  };
  const { credentials, projectId } = await federatedKind.client(file, path, {
    scopes: [CLOUD],
    env: process.env,
    universe,
  });
  assert.equal(projectId, null);
  await assert.rejects(federatedKind.clientIdToken(credentials, clientRequest), {
    code: ERROR_CODES.ID_TOKEN_UNSUPPORTED,
    message: /^This federation client holds external_account credentials/,
  });
  const recorded = {};
  setCredentialInfo(recorded, { scopes: [], path });
  await federatedKind.clientIdToken(recorded as typeof credentials, clientRequest);
  assert.deepEqual(viaFile, [path]);
});

test("what status says, whose it is, and what revoke and login do with such a file", async () => {
  const { json, path, file } = fileAt("status.json", {
    service_account_impersonation_url: IAM,
    quota_project_id: "wif-project",
  });
  assert.deepEqual(federatedKind.describe(file, { path, universe, cached: () => ({ state: "none" }) }), {
    audience: DEFAULT_WORKLOAD_AUDIENCE,
    actsAs: TARGET,
    quotaProject: "wif-project",
    scopes: [CLOUD],
    universe: "googleapis.com",
    accessToken: {
      state: "unknown",
      why: "its key holds the subject token, read only when a token is asked (--check)",
    },
    noAccount: "a federated identity (the file names none)",
  });
  const plain = fileAt("status-plain.json").file;
  const status = federatedKind.describe(plain, { path, universe, cached: () => ({ state: "none" }) });
  assert.equal("actsAs" in status || "quotaProject" in status, false);
  assert.deepEqual(
    [federatedKind.account(file), federatedKind.signedInAccount(file), federatedKind.actsAs(plain)],
    [undefined, undefined, undefined],
  );
  assert.deepEqual(federatedKind.revocation(file, { universe, path }), {
    notRevocable:
      "holds identity federation credentials, whose tokens come from another identity provider and expire within an hour: disable the provider or remove the service account's binding to stop them",
  });
  assert.equal(federatedKind.notReplaceable(json), "identity federation credentials (external_account)");
  assert.deepEqual(federatedKind.cachedTokens(file, { universe, path }), { keys: [], owners: [] });
  assert.equal(federatedKind.keepsGrantedScopes, false);
  assert.equal(federatedKind.ownIdToken, false);
  const client = await federatedKind.client(file, path, { scopes: [CLOUD], env: process.env, universe });
  assert.equal(client.projectId, "wif-project");
});

const unreadable = (message: string) => ({ code: ERROR_CODES.SUBJECT_TOKEN_UNREADABLE, message });

test("a subject-token file that is missing, no file, too large, empty or without its field: each said, nothing sent", async () => {
  const at = (name: string, content?: string, format?: Record<string, string>) => {
    const token = join(home, name);
    if (content !== undefined) writeFileSync(token, content);
    const json = workloadFileJson(token, format ? { credential_source: { file: token, format } } : {});
    return { token, file: parseExternalAccount(json, "f.json") };
  };
  const asked = (file: ReturnType<typeof at>["file"]) => federatedKind.accessToken(file, request("f.json"));
  const stsBefore = emulator.stats().byGrant["urn:ietf:params:oauth:grant-type:token-exchange"] ?? 0;
  const missing = at("no-such-subject.jwt");
  const shown = (path: string) => `The subject-token file ${JSON.stringify(path)}`;
  await assert.rejects(
    asked(missing.file),
    unreadable(`${shown(missing.token)} could not be read (ENOENT); check that it is written there.`),
  );
  const folder = at("subject-folder");
  mkdirSync(folder.token);
  await assert.rejects(
    asked(folder.file),
    unreadable(`${shown(folder.token)} could not be read (EISDIR); check that it is written there.`),
  );
  const device = { token: "/dev/null", file: parseExternalAccount(workloadFileJson("/dev/null"), "f.json") };
  await assert.rejects(
    asked(device.file),
    unreadable(`${shown(device.token)} is not a regular file (ENOTFILE); check that it is written there.`),
  );
  const big = at("big-subject.jwt", "x".repeat(256 * 1024 + 1));
  await assert.rejects(
    asked(big.file),
    unreadable(`${shown(big.token)} is too large (EFBIG); check that it is written there.`),
  );
  const blank = at("blank-subject.jwt", " \n\t");
  await assert.rejects(asked(blank.file), unreadable(`${shown(blank.token)} is empty.`));
  const json = { type: "json", subject_token_field_name: "id_token" };
  const notJson = at("not-json-subject.json", "id_token=x", json);
  await assert.rejects(asked(notJson.file), unreadable(`${shown(notJson.token)} is not JSON.`));
  for (const body of ['{"token":"x"}', '{"id_token":7}', '"id_token"', "null"]) {
    const fieldless = at("fieldless-subject.json", body, json);
    await assert.rejects(
      asked(fieldless.file),
      unreadable(`${shown(fieldless.token)} has no string field "id_token".`),
    );
  }
  const blankField = at("blank-field-subject.json", '{"id_token":"  "}', json);
  await assert.rejects(asked(blankField.file), unreadable(`${shown(blankField.token)} is empty.`));
  const padded = at(
    "padded-subject.json",
    JSON.stringify({ id_token: ` ${readFileSync(subjectFile, "utf8")}\n` }),
    json,
  );
  assert.ok(
    emulator.checkAccessToken((await asked(padded.file)).access_token),
    "a token with blanks around it is trimmed",
  );
  const sent = (emulator.stats().byGrant["urn:ietf:params:oauth:grant-type:token-exchange"] ?? 0) - stsBefore;
  assert.equal(sent, 1, "only the readable token went to STS");
});

/** A loopback server answering each path as `routes` says. */
async function subjectServer(routes: Record<string, (res: ServerResponse) => void>): Promise<string> {
  const server = createServer((req, res) =>
    (routes[new URL(req.url ?? "/", "http://x").pathname] ?? routes["/"])!(res),
  );
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  after(() => new Promise<void>((done) => server.close(() => done())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test("a subject-token URL that redirects, fails, answers too much or no token: each said, its query never shown", async () => {
  const base = await subjectServer({
    "/moved": (res) => res.writeHead(302, { location: "/token" }).end(),
    "/gone": (res) => res.writeHead(404).end("no"),
    "/huge": (res) => res.writeHead(200).end("x".repeat(256 * 1024 + 1)),
    "/json": (res) => res.writeHead(200, { "content-type": "application/json" }).end('{"other":"x"}'),
    "/text": (res) => res.writeHead(200).end("not json"),
    "/blank": (res) => res.writeHead(200).end("  "),
    "/": (res) => res.writeHead(200).end(" subject-token \n"),
  });
  const read = (path: string, jsonField?: string) =>
    readSubjectToken({
      kind: "url",
      url: `${base}${path}?key=QUERY-SECRET`,
      headers: {},
      ...(jsonField ? { jsonField } : {}),
    });
  const refused = (path: string, what: string, status?: number) => ({
    name: "CredCredentialsError",
    code: ERROR_CODES.SUBJECT_TOKEN_UNREACHABLE,
    message: `The subject-token URL ${base}${path} ${what}.`,
    ...(status === undefined ? {} : { status }),
  });
  await assert.rejects(
    read("/moved"),
    refused("/moved", "answered with a redirect (HTTP 302), which is never followed", 302),
  );
  await assert.rejects(read("/gone"), refused("/gone", "answered HTTP 404; check the URL and its headers", 404));
  await assert.rejects(read("/huge"), refused("/huge", "answered more than 256 KiB, which is no subject token"));
  await assert.rejects(read("/json", "value"), refused("/json", `'s answer has no string field "value"`));
  await assert.rejects(read("/text", "value"), refused("/text", "'s answer is not JSON"));
  await assert.rejects(read("/blank"), refused("/blank", "'s answer is empty"));
  assert.equal(await read("/token"), "subject-token");
  const dead = createServer();
  await new Promise<void>((done) => dead.listen(0, "127.0.0.1", done));
  const deadUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}`;
  await new Promise<void>((done) => dead.close(() => done()));
  await assert.rejects(readSubjectToken({ kind: "url", url: `${deadUrl}/t?key=QUERY-SECRET`, headers: {} }), {
    name: "CredConnectionError",
    code: ERROR_CODES.SUBJECT_TOKEN_UNREACHABLE,
    message: `The subject-token URL ${deadUrl}/t could not be reached; check it from here.`,
  });
});

test("default()'s client and the kind ask STS alike: the file's client, pool project, lifetime, scopes and quota project", async () => {
  const workforceSubject = join(home, "workforce-subject.jwt");
  writeFileSync(workforceSubject, emulator.issueSubjectToken({ audience: DEFAULT_WORKFORCE_AUDIENCE }));
  const workforce = { audience: DEFAULT_WORKFORCE_AUDIENCE, credential_source: { file: workforceSubject } };
  const both = async (name: string, extra: Record<string, unknown>, scopes = [BIGQUERY]) => {
    const { path, file } = fileAt(name, extra);
    const token = (await federatedKind.accessToken(file, request(path, scopes))).access_token;
    const client = await federatedKind.client(file, path, { scopes, env: process.env, universe });
    return { token, client, clientToken: (await client.credentials.getAccessToken()).token as string };
  };
  // A workforce pool's exchange names its project, or authenticates the file's client (STS refuses neither).
  for (const extra of [
    { ...workforce, workforce_pool_user_project: "pool-project" },
    { ...workforce, client_id: OTHER_CLIENT.clientId, client_secret: OTHER_CLIENT.clientSecret },
  ]) {
    const { token, clientToken } = await both("workforce-fed.json", extra);
    for (const got of [token, clientToken]) assert.deepEqual(emulator.checkAccessToken(got)?.scopes, [BIGQUERY]);
  }
  // The file's client is sent: a wrong secret is refused.
  const { path, file } = fileAt("wrong-client.json", {
    client_id: OTHER_CLIENT.clientId,
    client_secret: "not-the-secret",
  });
  await assert.rejects(federatedKind.accessToken(file, request(path)), { code: ERROR_CODES.STS_REJECTED });
  const wrong = await federatedKind.client(file, path, { scopes: [CLOUD], env: process.env, universe });
  await assert.rejects(wrong.credentials.getAccessToken());
  // The service account's token lives as long as the file says; the client bills the file's quota project.
  const { token, client, clientToken } = await both("lifetime.json", {
    service_account_impersonation_url: IAM,
    service_account_impersonation: { token_lifetime_seconds: 600 },
    quota_project_id: "fed-quota",
  });
  for (const got of [token, clientToken]) {
    const held = emulator.checkAccessToken(got);
    assert.equal(held?.account, TARGET);
    assert.ok((held?.expiresAt ?? Number.POSITIVE_INFINITY) <= Date.now() + 600_000, "600 s, not an hour");
  }
  assert.equal((client.credentials as { quotaProjectId?: string }).quotaProjectId, "fed-quota");
  const plain = await federatedKind.client(fileAt("plain-client.json").file, path, {
    scopes: [CLOUD],
    env: process.env,
    universe,
  });
  assert.equal((plain.credentials as { quotaProjectId?: string }).quotaProjectId, undefined);
});

test("an account the federated identity may not act as: default()'s client and the kind each say so, coded", async () => {
  const denied = "not-yours@fed-project.iam.gserviceaccount.com";
  emulator.addServiceAccount({ email: denied, tokenCreators: [] });
  const { path, file } = fileAt("denied.json", {
    service_account_impersonation_url: `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${denied}:generateAccessToken`,
  });
  await assert.rejects(federatedKind.accessToken(file, request(path)), { code: ERROR_CODES.IMPERSONATION_DENIED });
  const { credentials } = await federatedKind.client(file, path, { scopes: [CLOUD], env: process.env, universe });
  await assert.rejects(credentials.getAccessToken(), (error: Error & { code?: string }) => {
    assert.equal(error.code, ERROR_CODES.IMPERSONATION_DENIED);
    assert.ok(error.message.includes(denied), error.message);
    return true;
  });
  // Without an account to act as, STS's own refusal comes through as it is.
  const expired = join(home, "expired-subject.jwt");
  writeFileSync(expired, emulator.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, lifetimeSec: -30 }));
  const refused = fileAt("expired.json", { credential_source: { file: expired } });
  const client = await federatedKind.client(refused.file, refused.path, {
    scopes: [CLOUD],
    env: process.env,
    universe,
  });
  await assert.rejects(client.credentials.getAccessToken(), (error: Error & { code?: string }) => {
    assert.notEqual(error.code, ERROR_CODES.IMPERSONATION_DENIED);
    assert.match(error.message, /expired/i);
    return true;
  });
});

test("an AWS file: each identity's token kept under its own region and keys, never served to another", async () => {
  const json = emulator.awsExternalAccountFile({ environmentOnly: true });
  const path = join(home, "aws.json");
  writeFileSync(path, JSON.stringify(json), { mode: 0o600 });
  const file = parseExternalAccount(json, path);
  const asKeys = (
    keys: { accessKeyId: string; secretAccessKey: string; sessionToken?: string },
    region = "us-west-2",
  ) => ({
    ...request(path),
    env: {
      ...process.env,
      AWS_REGION: region,
      AWS_ACCESS_KEY_ID: keys.accessKeyId,
      AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
      ...(keys.sessionToken === undefined ? {} : { AWS_SESSION_TOKEN: keys.sessionToken }),
    },
  });
  const first = emulator.issueAwsCredentials();
  const second = emulator.issueAwsCredentials();
  const longTerm = emulator.issueAwsCredentials({ temporary: false });
  const tokens = [];
  for (const keys of [first, second, longTerm]) {
    const token = await federatedKind.accessToken(file, asKeys(keys));
    assert.ok(emulator.checkAccessToken(token.access_token)?.account.endsWith(keys.arn), keys.arn);
    tokens.push(token.access_token);
  }
  assert.equal(new Set(tokens).size, 3, "each identity its own token");
  assert.equal(
    (await federatedKind.accessToken(file, asKeys(first))).access_token,
    tokens[0],
    "kept for the same keys",
  );
  const elsewhere = await federatedKind.accessToken(file, asKeys(first, "eu-west-1"));
  assert.notEqual(elsewhere.access_token, tokens[0], "another region, another key");
  const session = { ...first, sessionToken: `${first.sessionToken}x` };
  await assert.rejects(
    federatedKind.accessToken(file, asKeys(session)),
    "another session token is not served the first's token",
  );
});

test("an STS that echoes the subject token, whole or decoded (AWS): its refusal shows none of it", async () => {
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const token = new URLSearchParams(body).get("subject_token") ?? "";
    const said = `rejected ${token} (${decodeURIComponent(token)})`;
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "invalid_grant", error_description: said }));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  after(() => new Promise<void>((done) => server.close(() => done())));
  const sts = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/token`;
  const refusal = async (file: ReturnType<typeof parseExternalAccount>, env: NodeJS.ProcessEnv) => {
    const urls = externalAccountDestinations(file, universe, "f.json");
    const subject = await readSubject(file, urls.aws, env);
    const token = subject.token();
    const error = await federatedToken(file, sts, subject, [CLOUD]).then(
      () => assert.fail("the stand-in refuses"),
      (e: Error) => e,
    );
    assert.equal((error as { code?: string }).code, ERROR_CODES.STS_REJECTED);
    return { text: `${error.message} ${inspect(error)}`, token };
  };
  // An opaque token (a SAML assertion, a provider's own): nothing but the subject's own list can find it.
  const opaque = join(home, "opaque-subject.txt");
  writeFileSync(opaque, "opaque-subject-7f3a9c0b5e");
  const file = parseExternalAccount(workloadFileJson(opaque), "f.json");
  const plain = await refusal(file, process.env);
  assert.ok(plain.text.includes("rejected"), plain.text);
  assert.ok(!plain.text.includes(plain.token), "the subject token is not shown");
  const keys = emulator.issueAwsCredentials();
  const aws = parseExternalAccount(emulator.awsExternalAccountFile({ environmentOnly: true }), "aws.json");
  const signed = await refusal(aws, {
    ...process.env,
    AWS_REGION: "us-west-2",
    AWS_ACCESS_KEY_ID: keys.accessKeyId,
    AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
    AWS_SESSION_TOKEN: keys.sessionToken,
  });
  const parts = awsSubjectTokenSecrets(signed.token);
  assert.ok(parts.length >= 3, "the request, its Authorization and signature");
  for (const part of [...parts, keys.sessionToken as string]) assert.ok(!signed.text.includes(part), part.slice(0, 40));
});

test("a subject token's field name and URL are shown cut short in what is said of them", async () => {
  const base = await subjectServer({ "/": (res) => res.writeHead(200).end("{}") });
  const field = "f".repeat(150);
  await assert.rejects(readSubjectToken({ kind: "url", url: `${base}/t`, headers: {}, jsonField: field }), {
    message: `The subject-token URL ${base}/t 's answer has no string field "${"f".repeat(100)}".`,
  });
  const long = `/${"p".repeat(300)}`;
  const gone = await subjectServer({ "/": (res) => res.writeHead(404).end() });
  await assert.rejects(readSubjectToken({ kind: "url", url: `${gone}${long}`, headers: {} }), {
    message: `The subject-token URL ${`${gone}${long}`.slice(0, 200)} answered HTTP 404; check the URL and its headers.`,
  });
});

test("a file with a client id but no secret: its token comes, no half a client sent", async () => {
  const { path, file } = fileAt("client-id-only.json", { client_id: OTHER_CLIENT.clientId });
  assert.ok(emulator.checkAccessToken((await federatedKind.accessToken(file, request(path))).access_token));
});
