// The metadata-server platforms (Colab, Colab Enterprise, Vertex AI Workbench, Cloud Workstations,
// Cloud Shell) against the emulator's metadata server, and a fake one for the misbehaviours.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { Compute } from "google-auth-library";
import { type CredAuthError, CredConnectionError, CredCredentialsError, ERROR_CODES } from "cred-auth";
import { colabPlatform } from "../../dist/hosted/colab.js";
import { metadataEnvironment } from "../../dist/hosted/metadata.js";
import { tryHosted } from "../../dist/hosted/registry.js";
import { withEmulator } from "../support/emulator.ts";
import { deadPort, isolateHome, startFakeMetadata } from "./support.ts";

isolateHome();
// Only the environment object handed to the layer may point at a metadata server.
delete process.env.GCE_METADATA_HOST;
delete process.env.GCE_METADATA_IP;

const SCOPES = ["https://www.googleapis.com/auth/cloud-platform", "https://www.googleapis.com/auth/userinfo.email"];
// The server's own list of scopes covers the requested ones: a VM platform (Vertex AI Workbench,
// Cloud Workstations) checks it (the Compute Engine tests below).
const IDENTITY = { projectId: "emu-project", email: "notebook-user@example.com", scopes: SCOPES };

const PLATFORMS: Record<string, { env: NodeJS.ProcessEnv; label: string; advice: RegExp }> = {
  colab: {
    env: { COLAB_RELEASE_TAG: "release-colab_20250626" },
    label: "Colab",
    advice: /from google\.colab import auth; auth\.authenticate_user\(\)/,
  },
  "colab-enterprise": {
    env: { VERTEX_PRODUCT: "COLAB_ENTERPRISE" },
    label: "Colab Enterprise",
    advice: /runtime template/,
  },
  "vertex-workbench": {
    env: { VERTEX_PRODUCT: "WORKBENCH_INSTANCE" },
    label: "Vertex AI Workbench",
    advice: /service account/,
  },
  "cloud-workstations": {
    env: { GOOGLE_CLOUD_WORKSTATIONS: "true" },
    label: "Cloud Workstations",
    advice: /workstation configuration/,
  },
  "cloud-shell": { env: { CLOUD_SHELL: "true" }, label: "Cloud Shell", advice: /gcloud auth login/ },
};

// Cloud Run mode (the metadata server honours ?scopes=): these tests check that the layer asks for
// the caller's scopes. On a VM (Vertex AI Workbench, Cloud Workstations) the server ignores them;
// the layer checks the VM's scopes instead (the Compute Engine tests at the end of this file).
const emu = await withEmulator({ metadata: IDENTITY, metadataPlatform: "cloud-run" });
const fake = await startFakeMetadata();
after(() => fake.close());

for (const [name, platform] of Object.entries(PLATFORMS)) {
  test(`${name}: a self-refreshing Compute client for the notebook's user, with the metadata project id`, async () => {
    emu.setMetadata(IDENTITY);
    const before = emu.stats().metadataTokenRequests;
    const { result, attempts } = await tryHosted(SCOPES, true, { ...platform.env, GCE_METADATA_HOST: emu.host });
    assert.deepEqual(attempts, []);
    assert.ok(result);
    assert.equal(result.name, name);
    assert.equal(result.projectId, "emu-project");
    assert.ok(result.credentials instanceof Compute, "libraries see metadata-server credentials");

    const { token } = await result.credentials.getAccessToken();
    const info = emu.checkAccessToken(token ?? "");
    assert.equal(info?.account, IDENTITY.email);
    assert.deepEqual(info?.scopes, SCOPES, "the requested scopes were asked for");
    assert.equal(emu.stats().metadataTokenRequests, before + 1, "the token that proved the server is the one used");

    const reply = await result.credentials.request<{ email: string }>({ url: `${emu.url}/oauth2/v2/userinfo` });
    assert.equal(reply.data.email, IDENTITY.email);
  });

  test(`${name}: no token on the metadata server (404) is a credentials error telling what to do`, async () => {
    emu.setMetadata(null);
    const { result, attempts } = await tryHosted(SCOPES, true, { ...platform.env, GCE_METADATA_HOST: emu.host });
    assert.equal(result, undefined);
    assert.equal(attempts.length, 1);
    const { name: attempted, error } = attempts[0]!;
    assert.equal(attempted, name);
    assert.ok(error instanceof CredCredentialsError, String(error));
    assert.match(error.message, new RegExp(`^${platform.label}: .*HTTP 404`));
    assert.match(error.message, platform.advice);
    assert.doesNotMatch(error.message, /\n/);
  });
}

test("colab: once the user has authorized in the notebook, the same call succeeds", async () => {
  const env = { ...PLATFORMS.colab!.env, GCE_METADATA_HOST: emu.host };
  emu.setMetadata(null);
  assert.equal((await tryHosted(SCOPES, true, env)).result, undefined);
  emu.setMetadata(IDENTITY);
  const { result } = await tryHosted(SCOPES, true, env);
  assert.equal(result?.name, "colab");
});

test("the project id comes from GOOGLE_CLOUD_PROJECT first, then the metadata server, else null", async () => {
  emu.setMetadata(IDENTITY);
  const colab = PLATFORMS.colab!.env;
  const chosen = await tryHosted(SCOPES, true, {
    ...colab,
    GCE_METADATA_HOST: emu.host,
    GOOGLE_CLOUD_PROJECT: "users-choice",
  });
  assert.equal(chosen.result?.projectId, "users-choice");

  fake.mode = "ok";
  fake.projectId = null;
  const none = await tryHosted(SCOPES, true, { ...colab, GCE_METADATA_HOST: fake.host });
  assert.equal(none.result?.name, "colab");
  assert.equal(none.result?.projectId, null);
  fake.projectId = "fake-project";
});

test("GCE_METADATA_IP wins over GCE_METADATA_HOST, and a scheme in the host is accepted", async () => {
  emu.setMetadata(IDENTITY);
  const dead = `127.0.0.1:${await deadPort()}`;
  const viaIp = await tryHosted(SCOPES, true, {
    ...PLATFORMS["vertex-workbench"]!.env,
    GCE_METADATA_IP: emu.host,
    GCE_METADATA_HOST: dead,
  });
  assert.equal(viaIp.result?.projectId, "emu-project");
  const withScheme = await tryHosted(SCOPES, true, {
    ...PLATFORMS["vertex-workbench"]!.env,
    GCE_METADATA_HOST: `http://${emu.host}`,
  });
  assert.equal(withScheme.result?.projectId, "emu-project");
});

test("tokens are fetched again before they expire, from the host of the environment given", async () => {
  const shortLived = await withEmulator({ metadata: IDENTITY, accessTokenLifetimeSec: 60 });
  const { result } = await tryHosted(SCOPES, true, {
    ...PLATFORMS["cloud-workstations"]!.env,
    GCE_METADATA_HOST: shortLived.host,
  });
  assert.ok(result);
  const first = (await result.credentials.getAccessToken()).token!;
  // 60 s is inside google-auth-library's 5-minute eager-refresh window: the next call refreshes.
  const second = (await result.credentials.getAccessToken()).token!;
  assert.notEqual(second, first);
  assert.ok(shortLived.checkAccessToken(second));
  assert.equal(shortLived.stats().metadataTokenRequests, 3, "the proving token, then one per call");

  const { result: longLived } = await tryHosted(SCOPES, true, {
    ...PLATFORMS["cloud-workstations"]!.env,
    GCE_METADATA_HOST: emu.host,
  });
  const before = emu.stats().metadataTokenRequests;
  const a = (await longLived!.credentials.getAccessToken()).token;
  const b = (await longLived!.credentials.getAccessToken()).token;
  assert.equal(a, b, "a token far from expiry is reused");
  assert.equal(emu.stats().metadataTokenRequests, before);

  shortLived.setMetadata(null);
  await assert.rejects(result.credentials.getAccessToken(), (error: Error) => {
    assert.ok(error instanceof CredCredentialsError, String(error));
    assert.match(error.message, /^Cloud Workstations: .*HTTP 404/);
    return true;
  });
});

const FAILURES: { mode: typeof fake.mode; kind: typeof CredCredentialsError; code: string; message: RegExp }[] = [
  {
    mode: "propagation",
    kind: CredCredentialsError,
    code: ERROR_CODES.HOSTED_UNAVAILABLE,
    message: /^Colab: credential propagation was unsuccessful \(HTTP 500\); authorize first: .*authenticate_user/,
  },
  {
    mode: "forbidden",
    kind: CredCredentialsError,
    code: ERROR_CODES.HOSTED_UNAVAILABLE,
    message: /^Colab: the metadata server answered HTTP 403;/,
  },
  {
    mode: "error",
    kind: CredConnectionError,
    code: ERROR_CODES.SERVER_ERROR,
    message: /^Colab: the metadata server answered HTTP 503; try again later\.$/,
  },
  {
    mode: "no-flavor",
    kind: CredConnectionError,
    code: ERROR_CODES.SERVER_ERROR,
    message: /^Colab: the server at 127\.0\.0\.1:\d+ is not a metadata server/,
  },
  {
    mode: "malformed",
    kind: CredConnectionError,
    code: ERROR_CODES.SERVER_ERROR,
    message: /^Colab: the metadata server sent an unreadable reply \(not JSON\)\.$/,
  },
  {
    mode: "no-token",
    kind: CredConnectionError,
    code: ERROR_CODES.SERVER_ERROR,
    message: /^Colab: the metadata server sent a token reply without an access_token\.$/,
  },
];

for (const failure of FAILURES) {
  test(`colab: a metadata server answering "${failure.mode}" is a ${failure.kind.name} and default() may move on`, async () => {
    fake.mode = failure.mode;
    const { result, attempts } = await tryHosted(SCOPES, true, {
      ...PLATFORMS.colab!.env,
      GCE_METADATA_HOST: fake.host,
    });
    assert.equal(result, undefined);
    assert.equal(attempts[0]?.name, "colab");
    const error = attempts[0]!.error;
    assert.ok(error instanceof failure.kind, `${error.name}: ${error.message}`);
    assert.equal((error as CredAuthError).code, failure.code);
    assert.match(error.message, failure.message);
    assert.doesNotMatch(error.message, /\n/);
    fake.mode = "ok";
  });
}

test("a silent metadata server times out with a connection error", async () => {
  fake.mode = "slow";
  const quick = metadataEnvironment({ ...colabPlatform, timeoutMs: 300 });
  await assert.rejects(
    quick.credentials(SCOPES, { ...PLATFORMS.colab!.env, GCE_METADATA_HOST: fake.host }),
    (error: Error) => {
      assert.ok(error instanceof CredConnectionError, String(error));
      assert.equal(error.message, "Colab: the metadata server did not answer within 300 ms; try again later.");
      return true;
    },
  );
  fake.mode = "ok";
});

test("no metadata server at all is a connection error naming the cause", async () => {
  const { attempts } = await tryHosted(SCOPES, true, {
    ...PLATFORMS["colab-enterprise"]!.env,
    GCE_METADATA_HOST: `127.0.0.1:${await deadPort()}`,
  });
  const error = attempts[0]?.error;
  assert.ok(error instanceof CredConnectionError, String(error));
  assert.equal(error.message, "Colab Enterprise: could not reach the metadata server (ECONNREFUSED).");
});

test("METADATA_SERVER_DETECTION=none keeps the layer off the metadata server", async () => {
  emu.setMetadata(IDENTITY);
  const before = emu.stats().metadataTokenRequests;
  const { attempts } = await tryHosted(SCOPES, true, {
    ...PLATFORMS.colab!.env,
    GCE_METADATA_HOST: emu.host,
    METADATA_SERVER_DETECTION: "none",
  });
  assert.ok(attempts[0]?.error instanceof CredCredentialsError);
  assert.match(attempts[0]!.error.message, /METADATA_SERVER_DETECTION=none/);
  assert.equal(emu.stats().metadataTokenRequests, before);
});

test("a metadata server answering 429 or 5xx is asked again with backoff; past the retries, CredConnectionError", async () => {
  emu.setMetadata(IDENTITY);
  const env = { ...PLATFORMS.colab!.env, GCE_METADATA_HOST: emu.host };
  emu.failNext(1, { target: "metadata", status: 429 });
  emu.failNext(1, { target: "metadata", status: 503 });
  const { result, attempts } = await tryHosted(SCOPES, true, env);
  assert.deepEqual(attempts, []);
  assert.ok(result, "two temporary failures, then a token");
  emu.failNext(1, { target: "metadata", status: 408 });
  emu.failNext(2, { target: "metadata", status: 500 });
  assert.ok((await tryHosted(SCOPES, true, env)).result, "408 is temporary too: 3 retries, as gcp-metadata's");
  emu.failNext(4, { target: "metadata", status: 500 });
  const failed = await tryHosted(SCOPES, true, env);
  const error = failed.attempts[0]?.error;
  assert.ok(error instanceof CredConnectionError, String(error));
  assert.match(error.message, /HTTP 500; try again later/);
  emu.reset();
});

// Compute Engine mode: the metadata server ignores ?scopes= and hands out the VM's access scopes.
const vm = await withEmulator({
  metadata: { ...IDENTITY, scopes: ["https://www.googleapis.com/auth/cloud-platform"] },
  metadataPlatform: "compute-engine",
});
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const DRIVE = "https://www.googleapis.com/auth/drive";
const VM_PLATFORMS = {
  "vertex-workbench":
    /; stop the instance, give its VM these scopes \(gcloud compute instances set-service-account INSTANCE /,
  "cloud-workstations":
    /; add them to the workstation configuration \(gcloud workstations configs update CONFIG --service-account-scopes SCOPES\)/,
} as const;

for (const [name, advice] of Object.entries(VM_PLATFORMS)) {
  test(`${name} on Compute Engine: the VM's scopes serve Google Cloud ones; a scope beyond them (Drive) is refused, saying what to change`, async () => {
    const env = { ...PLATFORMS[name]!.env, GCE_METADATA_HOST: vm.host };
    const bigquery = await tryHosted([CLOUD, "https://www.googleapis.com/auth/bigquery"], true, env);
    assert.deepEqual(bigquery.attempts, []);
    const { token } = await bigquery.result!.credentials.getAccessToken();
    assert.deepEqual(vm.checkAccessToken(token ?? "")?.scopes, [CLOUD], "the VM's scopes, whatever was asked");

    const { result, attempts } = await tryHosted([CLOUD, DRIVE], true, env);
    assert.equal(result, undefined, "no token without Drive handed out in silence");
    const error = attempts[0]?.error;
    assert.ok(error instanceof CredCredentialsError, String(error));
    assert.equal(error.code, ERROR_CODES.INVALID_SCOPE);
    assert.match(
      error.message,
      new RegExp(
        `^${PLATFORMS[name]!.label}: the metadata server's token lacks https://www\\.googleapis\\.com/auth/drive: this VM's service account has the access scopes https://www\\.googleapis\\.com/auth/cloud-platform, and a VM's token carries those whatever is asked`,
      ),
    );
    assert.match(error.message, advice);
    assert.doesNotMatch(error.message, /\n/);
  });
}

test("Colab on Compute Engine mode: not a VM's server, its scopes are not judged by the VM list", async () => {
  const { result, attempts } = await tryHosted([CLOUD, DRIVE], true, {
    ...PLATFORMS.colab!.env,
    GCE_METADATA_HOST: vm.host,
  });
  assert.deepEqual(attempts, []);
  assert.equal(result?.name, "colab");
});
