// The emulator's IAM Credentials API (generateAccessToken: service-account impersonation), over real
// HTTP, also through google-auth-library's own Impersonated client.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { IdentityPoolClient, Impersonated, UserRefreshClient } from "google-auth-library";
import { DEFAULT_WORKLOAD_AUDIENCE, DEMO_CLIENT, startEmulator } from "cred-auth/emulator";
import { WORKLOAD_POOL as POOL, withEmulator } from "../support/emulator.ts";
import { postForm, serviceAccountAccessToken, tokenRequest } from "./support.ts";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const IAM_SCOPE = "https://www.googleapis.com/auth/iam";
const STORAGE_READ = "https://www.googleapis.com/auth/devstorage.read_only";
const serviceAccount = (name: string) => `${name}@iam-project.iam.gserviceaccount.com`;
const [TARGET, HOP1, HOP2, END] = ["target", "hop-1", "hop-2", "chain-end"].map(serviceAccount);
const GCE = { projectId: "iam-project", email: serviceAccount("gce-default") };
const DENIED = {
  error: {
    code: 403,
    message: "Permission 'iam.serviceAccounts.getAccessToken' denied on resource (or it may not exist).",
    status: "PERMISSION_DENIED",
    details: [
      {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: "IAM_PERMISSION_DENIED",
        domain: "iam.googleapis.com",
        metadata: { permission: "iam.serviceAccounts.getAccessToken" },
      },
    ],
  },
};
const INVALID_ARGUMENT = {
  error: { code: 400, message: "Request contains an invalid argument.", status: "INVALID_ARGUMENT" },
};

const emu = await withEmulator({
  metadata: GCE,
  extraScopes: [IAM_SCOPE],
  serviceAccounts: [
    { email: TARGET, tokenCreators: ["user:alice@example.com"] },
    { email: HOP1, tokenCreators: ["user:alice@example.com"] },
    { email: HOP2, tokenCreators: [`serviceAccount:${HOP1}`] },
    { email: END, tokenCreators: [`serviceAccount:${HOP2}`] },
  ],
});

async function userToken(account: string, scopes = [CLOUD]): Promise<string> {
  const refreshToken = emu.issueRefreshToken({ scopes, account });
  const reply = await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: refreshToken });
  return String(reply.json.access_token);
}

interface Reply {
  status: number;
  json: Record<string, unknown>;
  headers: Headers;
}

async function generate(
  target: string,
  body: unknown,
  token: string | undefined,
  path = `/v1/projects/-/serviceAccounts/${target}:generateAccessToken`,
): Promise<Reply> {
  const res = await fetch(`${emu.url}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

const asked = (extra: Record<string, unknown> = {}) => ({ scope: [CLOUD], ...extra });

async function assertWorksAs(accessToken: string, account: string): Promise<void> {
  assert.equal(emu.checkAccessToken(accessToken)?.account, account);
  const tokeninfo = await fetch(`${emu.url}/tokeninfo?access_token=${encodeURIComponent(accessToken)}`);
  assert.equal(tokeninfo.status, 200);
  const api = await fetch(`${emu.url}/storage/v1/b/demo-bucket/o`, {
    headers: { Authorization: `Bearer ${accessToken}` },
  });
  assert.equal(api.status, 200, "the fake storage API accepts the impersonated token");
}

test("a user with the token-creator role gets a working token of the service account, expiring at expireTime", async () => {
  const before = emu.stats().iamRequests;
  const caller = await userToken("alice@example.com");
  const started = Date.now();
  const reply = await generate(TARGET, asked({ scope: [CLOUD, STORAGE_READ], lifetime: "600s" }), caller);
  assert.equal(reply.status, 200, JSON.stringify(reply.json));
  assert.deepEqual(Object.keys(reply.json).sort(), ["accessToken", "expireTime"]);
  const token = String(reply.json.accessToken);
  assert.match(token, /^ya29\./);
  assert.match(String(reply.json.expireTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const info = emu.checkAccessToken(token);
  assert.equal(info?.account, TARGET);
  assert.deepEqual(info?.scopes, [CLOUD, STORAGE_READ]);
  assert.equal(info?.expiresAt, Date.parse(String(reply.json.expireTime)));
  assert.ok(Math.abs((info?.expiresAt ?? 0) - (started + 600_000)) < 2_000, "lifetime 600s is honoured");
  await assertWorksAs(token, TARGET);
  const tokeninfo = await tokenInfoOf(token);
  assert.match(String(tokeninfo.azp), /^\d{21}$/, "azp is the account's unique id, as Google's");
  assert.equal(tokeninfo.sub, undefined, "a service account's token has no sub, as Google's");
  assert.equal(emu.stats().iamRequests, before + 1);

  const unscoped = await generate(TARGET, asked(), caller);
  const defaultExpiry = emu.checkAccessToken(String(unscoped.json.accessToken))?.expiresAt ?? 0;
  assert.ok(Math.abs(defaultExpiry - (Date.now() + 3_600_000)) < 2_000, "no lifetime: one hour");
});

test("the account may be URL-encoded or under a named project, and the caller token may come as ?access_token=", async () => {
  const caller = await userToken("alice@example.com");
  const encoded = await generate(
    TARGET,
    asked(),
    caller,
    `/v1/projects/-/serviceAccounts/${encodeURIComponent(TARGET)}:generateAccessToken`,
  );
  assert.equal(encoded.status, 200, JSON.stringify(encoded.json));
  const named = await generate(
    TARGET,
    asked(),
    caller,
    `/v1/projects/iam-project/serviceAccounts/${TARGET}:generateAccessToken`,
  );
  assert.equal(named.status, 200, JSON.stringify(named.json));
  const inQuery = await generate(
    TARGET,
    asked(),
    undefined,
    `/v1/projects/-/serviceAccounts/${TARGET}:generateAccessToken?access_token=${encodeURIComponent(caller)}`,
  );
  assert.equal(inQuery.status, 200, JSON.stringify(inQuery.json));
  const byUniqueId = await generate(
    TARGET,
    asked(),
    caller,
    `/v1/projects/-/serviceAccounts/${(await tokenInfoOf(String(named.json.accessToken))).azp}:generateAccessToken`,
  );
  assert.equal(
    emu.checkAccessToken(String(byUniqueId.json.accessToken))?.account,
    TARGET,
    "the unique id names it too",
  );
});

async function tokenInfoOf(token: string): Promise<Record<string, string>> {
  return (await (await fetch(`${emu.url}/tokeninfo?access_token=${encodeURIComponent(token)}`)).json()) as Record<
    string,
    string
  >;
}

test("an impersonated token expires at its expireTime", async () => {
  const caller = await userToken("alice@example.com");
  const reply = await generate(TARGET, asked({ lifetime: "1s" }), caller);
  assert.equal(reply.status, 200, JSON.stringify(reply.json));
  const token = String(reply.json.accessToken);
  await sleep(Math.max(0, Date.parse(String(reply.json.expireTime)) - Date.now()) + 50);
  assert.equal(emu.checkAccessToken(token), null);
  assert.equal((await fetch(`${emu.url}/tokeninfo?access_token=${token}`)).status, 400);
});

test("401 UNAUTHENTICATED: no, unknown, revoked or expired caller token", async () => {
  const missing = await generate(TARGET, asked(), undefined);
  assert.equal(missing.status, 401);
  assert.equal(missing.headers.get("www-authenticate"), 'Bearer realm="https://accounts.google.com/"');
  assert.deepEqual(missing.json, {
    error: {
      code: 401,
      message:
        "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
      status: "UNAUTHENTICATED",
      details: [
        {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "CREDENTIALS_MISSING",
          domain: "googleapis.com",
          metadata: {
            method: "google.iam.credentials.v1.IAMCredentials.GenerateAccessToken",
            service: "iamcredentials.googleapis.com",
          },
        },
      ],
    },
  });
  const invalid =
    "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.";
  const unknown = await generate(TARGET, asked(), "ya29.not-a-token");
  assert.equal(unknown.status, 401);
  assert.equal((unknown.json.error as { message: string }).message, invalid);
  assert.equal(reasonOf(unknown), "ACCESS_TOKEN_TYPE_UNSUPPORTED");

  const revokedToken = await userToken("alice@example.com");
  await postForm(`${emu.url}/revoke`, { token: revokedToken });
  const revoked = await generate(TARGET, asked(), revokedToken);
  assert.equal(revoked.status, 401);
  assert.ok(!JSON.stringify(revoked.json).includes(revokedToken), "no token in an error");

  const shortLived = await generate(TARGET, asked({ lifetime: "1s" }), await userToken("alice@example.com"));
  await sleep(Math.max(0, Date.parse(String(shortLived.json.expireTime)) - Date.now()) + 50);
  const expired = await generate(TARGET, asked(), String(shortLived.json.accessToken));
  assert.equal(expired.status, 401);
  assert.equal(reasonOf(expired), "ACCESS_TOKEN_EXPIRED");
});

function reasonOf(reply: Reply): string {
  return String((reply.json.error as { details?: { reason?: string }[] }).details?.[0]?.reason);
}

test("403 insufficient scopes: the caller's token needs cloud-platform or iam", async () => {
  const narrow = await generate(TARGET, asked(), await userToken("alice@example.com", [STORAGE_READ]));
  assert.equal(narrow.status, 403);
  assert.deepEqual(narrow.json, {
    error: {
      code: 403,
      message: "Request had insufficient authentication scopes.",
      status: "PERMISSION_DENIED",
      details: [
        {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "ACCESS_TOKEN_SCOPE_INSUFFICIENT",
          domain: "googleapis.com",
          metadata: {
            method: "google.iam.credentials.v1.IAMCredentials.GenerateAccessToken",
            service: "iamcredentials.googleapis.com",
          },
        },
      ],
    },
  });
  const iamOnly = await generate(TARGET, asked(), await userToken("alice@example.com", [IAM_SCOPE]));
  assert.equal(iamOnly.status, 200, "the iam scope is enough");
});

test("403 IAM_PERMISSION_DENIED without the role; 404 for an unknown account", async () => {
  const bob = await userToken("bob@example.com");
  const denied = await generate(TARGET, asked(), bob);
  assert.equal(denied.status, 403);
  assert.deepEqual(denied.json, DENIED);

  const ghost = serviceAccount("ghost");
  const missing = await generate(ghost, asked(), bob);
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.json, {
    error: { code: 404, message: `Not found; Gaia id not found for email ${ghost}`, status: "NOT_FOUND" },
  });

  const selfless = await generate(GCE.email, asked(), await metadataToken());
  assert.deepEqual(selfless.json, DENIED, "a service account needs the role on itself, too");
});

test("400 INVALID_ARGUMENT: scope, lifetime, account ids and the JSON body", async () => {
  const caller = await userToken("alice@example.com");
  for (const body of [{}, { scope: [] }, { scope: "x" }, { scope: [CLOUD], delegates: "x" }]) {
    const reply = await generate(TARGET, body, caller);
    assert.deepEqual([reply.status, reply.json], [400, INVALID_ARGUMENT], JSON.stringify(body));
  }
  for (const lifetime of ["3601s", "43200s", "0s", "-5s"]) {
    const reply = await generate(TARGET, asked({ lifetime }), caller);
    assert.deepEqual([reply.status, reply.json], [400, INVALID_ARGUMENT], lifetime);
  }
  const noUnit = await generate(TARGET, asked({ lifetime: "60" }), caller);
  assert.equal(noUnit.status, 400);
  const message =
    "Invalid value at 'lifetime' (type.googleapis.com/google.protobuf.Duration), Field 'lifetime', Illegal duration format; duration must end with 's'";
  assert.deepEqual(noUnit.json, {
    error: {
      code: 400,
      message,
      status: "INVALID_ARGUMENT",
      details: [
        {
          "@type": "type.googleapis.com/google.rpc.BadRequest",
          fieldViolations: [{ field: "lifetime", description: message }],
        },
      ],
    },
  });
  const notANumber = await generate(TARGET, asked({ lifetime: "ones" }), caller);
  assert.match(String((notANumber.json.error as { message: string }).message), /Illegal duration format$/);

  const badTarget = await generate("not-an-account", asked(), caller);
  assert.equal(badTarget.status, 400);
  assert.equal(
    (badTarget.json.error as { message: string }).message,
    "Invalid form of account ID not-an-account. Should be [Gaia ID |Email |Unique ID |] of the account",
  );
  const badDelegate = await generate(TARGET, asked({ delegates: ["projects/-/serviceAccounts/nobody"] }), caller);
  assert.equal(badDelegate.status, 400);
  assert.match(String((badDelegate.json.error as { message: string }).message), /^Invalid form of account ID nobody\./);

  const unknownField = await generate(TARGET, asked({ scopes: [CLOUD] }), caller);
  assert.equal(
    (unknownField.json.error as { message: string }).message,
    'Invalid JSON payload received. Unknown name "scopes": Cannot find field.',
  );
  assert.equal((await generate(TARGET, "{not json", caller)).status, 400);
  const get = await fetch(`${emu.url}/v1/projects/-/serviceAccounts/${TARGET}:generateAccessToken`);
  assert.equal(get.status, 405);
});

test("delegation: caller on delegates[0], each delegate on the next, the last on the target", async () => {
  const alice = await userToken("alice@example.com");
  const name = (email: string) => `projects/-/serviceAccounts/${email}`;
  const chain = await generate(END, asked({ delegates: [name(HOP1), name(HOP2)] }), alice);
  assert.equal(chain.status, 200, JSON.stringify(chain.json));
  await assertWorksAs(String(chain.json.accessToken), END);
  const bare = await generate(END, asked({ delegates: [HOP1, HOP2] }), alice);
  assert.equal(bare.status, 200, "bare e-mails name delegates too");

  const broken: [string, string[], string][] = [
    ["bob@example.com", [HOP1, HOP2], "the caller lacks the role on the first delegate"],
    ["alice@example.com", [HOP2], "the caller lacks the role on the only delegate"],
    ["alice@example.com", [HOP1], "the last delegate lacks the role on the target"],
    ["alice@example.com", [HOP2, HOP1], "the chain in the wrong order"],
    ["alice@example.com", [], "the caller lacks the role on the target"],
    ["alice@example.com", [HOP1, serviceAccount("ghost"), HOP2], "an unknown delegate"],
  ];
  for (const [account, delegates, why] of broken) {
    const reply = await generate(END, asked({ delegates: delegates.map(name) }), await userToken(account));
    assert.deepEqual([reply.status, reply.json], [403, DENIED], why);
  }
});

async function metadataToken(): Promise<string> {
  const res = await fetch(`${emu.url}/computeMetadata/v1/instance/service-accounts/default/token`, {
    headers: { "Metadata-Flavor": "Google" },
  });
  return String(((await res.json()) as { access_token: string }).access_token);
}

test("service-account callers: a key's jwt-bearer token, the metadata server's token, an impersonated token", async () => {
  const key = emu.createServiceAccountKey({ email: serviceAccount("ci-runner") });
  const runnable = serviceAccount("runnable");
  emu.addServiceAccount({ email: runnable, tokenCreators: [`serviceAccount:${key.client_email}`] });
  const fromKey = await generate(runnable, asked(), await serviceAccountAccessToken(key, [CLOUD]));
  assert.equal(fromKey.status, 200, JSON.stringify(fromKey.json));
  await assertWorksAs(String(fromKey.json.accessToken), runnable);

  emu.addServiceAccount({ email: runnable, tokenCreators: [`user:${key.client_email}`] });
  const wrongKind = await generate(runnable, asked(), await serviceAccountAccessToken(key, [CLOUD]));
  assert.deepEqual(wrongKind.json, DENIED, "a service account is not the user: member of the same e-mail");

  emu.addServiceAccount({ email: runnable, tokenCreators: [`serviceAccount:${GCE.email}`] });
  const fromMetadata = await generate(runnable, asked(), await metadataToken());
  assert.equal(fromMetadata.status, 200, JSON.stringify(fromMetadata.json));

  const hop1 = await generate(HOP1, asked(), await userToken("alice@example.com"));
  const fromImpersonated = await generate(HOP2, asked(), String(hop1.json.accessToken));
  assert.equal(fromImpersonated.status, 200, "HOP1's own token acts as serviceAccount:HOP1");
  assert.equal(emu.checkAccessToken(String(fromImpersonated.json.accessToken))?.account, HOP2);
});

test("federated callers: an STS token acts as its principal; principalSet grants a whole pool", async () => {
  const federated = async (subject: string) => {
    const reply = await postForm(`${emu.url}/v1/token`, {
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      requested_token_type: "urn:ietf:params:oauth:token-type:access_token",
      subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
      audience: DEFAULT_WORKLOAD_AUDIENCE,
      scope: CLOUD,
      subject_token: emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, subject }),
    });
    return String(reply.json.access_token);
  };
  const deployer = serviceAccount("deployer");
  emu.addServiceAccount({
    email: deployer,
    tokenCreators: [`principal://iam.googleapis.com/${POOL}/subject/repo:octo/app`],
  });
  const allowed = await generate(deployer, asked(), await federated("repo:octo/app"));
  assert.equal(allowed.status, 200, JSON.stringify(allowed.json));
  await assertWorksAs(String(allowed.json.accessToken), deployer);
  const other = await generate(deployer, asked(), await federated("repo:octo/other"));
  assert.deepEqual(other.json, DENIED);

  emu.addServiceAccount({ email: deployer, tokenCreators: [`principalSet://iam.googleapis.com/${POOL}/*`] });
  const anyone = await generate(deployer, asked(), await federated("repo:octo/other"));
  assert.equal(anyone.status, 200, "principalSet covers every subject of the pool");
});

test("google-auth-library's IdentityPoolClient with service_account_impersonation_url: STS, then generateAccessToken", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "iam-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const tokenFile = join(dir, "token.jwt");
  await writeFile(tokenFile, emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, subject: "repo:octo/ci" }));
  const ci = serviceAccount("federated-ci");
  emu.addServiceAccount({ email: ci, tokenCreators: [`principal://iam.googleapis.com/${POOL}/subject/repo:octo/ci`] });
  const client = (target: string) =>
    new IdentityPoolClient({
      type: "external_account",
      audience: DEFAULT_WORKLOAD_AUDIENCE,
      subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
      token_url: `${emu.url}/v1/token`,
      credential_source: { file: tokenFile },
      service_account_impersonation_url: `${emu.url}/v1/projects/-/serviceAccounts/${target}:generateAccessToken`,
      service_account_impersonation: { token_lifetime_seconds: 1200 },
    });
  const { token } = await client(ci).getAccessToken();
  await assertWorksAs(String(token), ci);
  assert.ok(Math.abs((emu.checkAccessToken(String(token))?.expiresAt ?? 0) - (Date.now() + 1_200_000)) < 3_000);
  await assert.rejects(client(TARGET).getAccessToken(), /Permission 'iam\.serviceAccounts\.getAccessToken' denied/);
});

test("google-auth-library's Impersonated client, with a UserRefreshClient source pointed at the emulator", async () => {
  const sourceClient = (account: string) =>
    new UserRefreshClient({
      clientId: DEMO_CLIENT.clientId,
      clientSecret: DEMO_CLIENT.clientSecret,
      refreshToken: emu.issueRefreshToken({ scopes: [CLOUD], account }),
      endpoints: { oauth2TokenUrl: `${emu.url}/token` },
    });
  const impersonated = new Impersonated({
    sourceClient: sourceClient("alice@example.com"),
    targetPrincipal: END,
    delegates: [`projects/-/serviceAccounts/${HOP1}`, `projects/-/serviceAccounts/${HOP2}`],
    targetScopes: [CLOUD],
    lifetime: 900,
    endpoint: emu.url,
  });
  const { token } = await impersonated.getAccessToken();
  const info = emu.checkAccessToken(String(token));
  assert.equal(info?.account, END);
  assert.equal(impersonated.credentials.expiry_date, info?.expiresAt);
  assert.ok(Math.abs((info?.expiresAt ?? 0) - (Date.now() + 900_000)) < 3_000);
  const res = await impersonated.request<{ items: { name: string }[] }>({
    url: `${emu.url}/storage/v1/b/demo-bucket/o`,
  });
  assert.deepEqual(
    res.data.items.map((i) => i.name),
    ["hello.txt"],
  );

  const refused = new Impersonated({
    sourceClient: sourceClient("bob@example.com"),
    targetPrincipal: TARGET,
    targetScopes: [CLOUD],
    endpoint: emu.url,
  });
  await assert.rejects(
    refused.getAccessToken(),
    /^Error: PERMISSION_DENIED: unable to impersonate: Permission 'iam\.serviceAccounts\.getAccessToken' denied/,
  );
});

test("admin route and startEmulator option register service accounts; bad members are refused", async () => {
  const admin = (body: unknown) =>
    fetch(`${emu.url}/__emulator/service-account`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  const email = serviceAccount("admin-added");
  const added = await admin({ email, tokenCreators: ["user:carol@example.com"] });
  assert.equal(added.status, 200);
  assert.deepEqual(await added.json(), { email, tokenCreators: ["user:carol@example.com"] });
  const reply = await generate(email, asked(), await userToken("carol@example.com"));
  assert.equal(reply.status, 200, JSON.stringify(reply.json));
  assert.equal((await admin({ email, tokenCreators: ["carol@example.com"] })).status, 400, "a member needs its kind");
  assert.equal((await admin({ tokenCreators: [] })).status, 400);
  assert.equal((await admin({ email: "not-an-email" })).status, 400);
  assert.throws(() => emu.addServiceAccount({ email, tokenCreators: ["group:x@example.com"] }), RangeError);
  await assert.rejects(
    startEmulator({ serviceAccounts: [{ email: "x@p.iam.gserviceaccount.com", tokenCreators: ["alice"] }] }),
    RangeError,
  );
});
