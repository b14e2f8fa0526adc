// IAM Credentials' other refusals (issue 27): a 403 is not always a missing role. Queued faults
// answer with Google's real bodies: the API disabled in the consumer project, the caller not
// allowed to use the quota project; and bare 5xx/429 in Google's API error JSON.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Impersonated, UserRefreshClient } from "google-auth-library";
import { DEMO_CLIENT } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { tokenRequest } from "./support.ts";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const TARGET = "deployer@iam-project.iam.gserviceaccount.com";
const emu = await withEmulator({ serviceAccounts: [{ email: TARGET, tokenCreators: ["user:alice@example.com"] }] });

async function aliceToken(): Promise<string> {
  const refreshToken = emu.issueRefreshToken({ scopes: [CLOUD], account: "alice@example.com" });
  return String(
    (await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: refreshToken })).json.access_token,
  );
}

async function generate(headers: Record<string, string> = {}): Promise<{ status: number; json: GoogleError }> {
  const res = await fetch(`${emu.url}/v1/projects/-/serviceAccounts/${TARGET}:generateAccessToken`, {
    method: "POST",
    headers: { Authorization: `Bearer ${await aliceToken()}`, "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ scope: [CLOUD] }),
  });
  return { status: res.status, json: (await res.json()) as GoogleError };
}

interface Detail {
  "@type": string;
  reason?: string;
  metadata?: Record<string, string>;
  links?: unknown[];
  message?: string;
}

interface GoogleError {
  error: {
    code: number;
    message: string;
    status: string;
    details?: Detail[];
  };
  accessToken?: string;
}

const detail = (reply: GoogleError, type: string) =>
  reply.error.details?.find((d) => d["@type"] === `type.googleapis.com/google.rpc.${type}`);

test("service-disabled: Google's SERVICE_DISABLED reply, with the enable link, for the consumer project", async () => {
  emu.failNext(1, { target: "iam", kind: "service-disabled", project: "987654321098" });
  const { status, json } = await generate();
  assert.equal(status, 403);
  const url =
    "https://console.developers.google.com/apis/api/iamcredentials.googleapis.com/overview?project=987654321098";
  assert.equal(json.error.code, 403);
  assert.equal(json.error.status, "PERMISSION_DENIED");
  assert.equal(
    json.error.message,
    `IAM Service Account Credentials API has not been used in project 987654321098 before or it is disabled. Enable it by visiting ${url} then retry. If you enabled this API recently, wait a few minutes for the action to propagate to our systems and retry.`,
  );
  assert.deepEqual(detail(json, "ErrorInfo"), {
    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
    reason: "SERVICE_DISABLED",
    domain: "googleapis.com",
    metadata: {
      containerInfo: "987654321098",
      consumer: "projects/987654321098",
      service: "iamcredentials.googleapis.com",
      serviceTitle: "IAM Service Account Credentials API",
      activationUrl: url,
    },
  });
  assert.deepEqual(detail(json, "Help"), {
    "@type": "type.googleapis.com/google.rpc.Help",
    links: [{ description: "Google developers console API activation", url }],
  });
  assert.equal(detail(json, "LocalizedMessage")?.message, json.error.message);
  assert.equal((await generate()).status, 200, "one fault, one refusal");
});

test("user-project-denied: 'Caller does not have required permission to use project X', USER_PROJECT_DENIED", async () => {
  emu.failNext(1, { target: "iam", kind: "user-project-denied" });
  const { status, json } = await generate({ "x-goog-user-project": "quota-proj" });
  assert.equal(status, 403);
  const url = "https://console.developers.google.com/iam-admin/iam?project=quota-proj";
  assert.equal(
    json.error.message,
    `Caller does not have required permission to use project quota-proj. Grant the caller the roles/serviceusage.serviceUsageConsumer role, or a custom role with the serviceusage.services.use permission, by visiting ${url} and then retry. Propagation of the new permission may take a few minutes.`,
    "the project is the caller's quota project (x-goog-user-project) when the fault names none",
  );
  assert.equal(json.error.status, "PERMISSION_DENIED");
  const info = detail(json, "ErrorInfo");
  assert.equal(info?.reason, "USER_PROJECT_DENIED");
  assert.equal(info?.metadata?.consumer, "projects/quota-proj");
  assert.equal(info?.metadata?.service, "iamcredentials.googleapis.com");
  assert.deepEqual(detail(json, "Help")?.links, [{ description: "Google developer console IAM admin", url }]);
});

test("without a project anywhere, the refusal names the default project number", async () => {
  emu.failNext(1, { target: "iam", kind: "service-disabled" });
  const { json } = await generate();
  assert.match(json.error.message, /in project 123456789012 before/);
});

test("bare IAM faults answer in Google's API error JSON, not OAuth JSON; they count as IAM requests", async () => {
  const before = emu.stats().iamRequests;
  emu.failNext(1, { target: "iam", status: 503 });
  const unavailable = await generate();
  assert.equal(unavailable.status, 503);
  assert.deepEqual(unavailable.json, {
    error: { code: 503, message: "The service is currently unavailable.", status: "UNAVAILABLE" },
  });
  emu.failNext(1, { target: "iam", status: 429 });
  assert.equal((await generate()).json.error.status, "RESOURCE_EXHAUSTED");
  assert.equal(emu.stats().iamRequests, before + 2);
});

test("IAM-only kinds need target iam; the admin route queues them too", async () => {
  assert.throws(() => emu.failNext(1, { kind: "service-disabled" }), /target "iam"/);
  assert.throws(() => emu.failNext(1, { target: "metadata", kind: "user-project-denied" }), /target "iam"/);
  assert.throws(
    () => emu.failNext(1, { target: "iam", kind: "service-disabled", project: "Bad Project!" }),
    RangeError,
  );
  assert.throws(() => emu.failNext(1, { target: "sts" as "iam" }), /target must be one of/);
  const queued = await fetch(`${emu.url}/__emulator/fail`, {
    method: "POST",
    body: JSON.stringify({ count: 1, target: "iam", kind: "user-project-denied", project: "admin-proj" }),
  });
  assert.equal(queued.status, 200);
  assert.match((await generate()).json.error.message, /use project admin-proj\./);
});

test("google-auth-library's Impersonated client surfaces Google's text whole", async () => {
  const source = new UserRefreshClient({
    clientId: DEMO_CLIENT.clientId,
    clientSecret: DEMO_CLIENT.clientSecret,
    refreshToken: emu.issueRefreshToken({ scopes: [CLOUD], account: "alice@example.com" }),
    endpoints: { oauth2TokenUrl: `${emu.url}/token` },
  });
  const client = new Impersonated({
    sourceClient: source,
    targetPrincipal: TARGET,
    targetScopes: [CLOUD],
    delegates: [],
    endpoint: emu.url,
  });
  emu.failNext(1, { target: "iam", kind: "service-disabled", project: "555555555555" });
  await assert.rejects(client.getAccessToken(), (error: Error & { status?: number }) => {
    assert.match(error.message, /IAM Service Account Credentials API has not been used in project 555555555555/);
    return true;
  });
  assert.ok((await client.getAccessToken()).token, "the next request gets a token");
});
