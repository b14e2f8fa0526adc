// The metadata server as Google runs it (issue 27): a VM ignores ?scopes=, Cloud Run honours them;
// its errors are plain text; a faulted token request still counts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { withEmulator } from "../support/emulator.ts";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const DRIVE = "https://www.googleapis.com/auth/drive";
const STORAGE_RO = "https://www.googleapis.com/auth/devstorage.read_only";
const identity = { projectId: "emu-vm", email: "vm@emu-vm.iam.gserviceaccount.com", scopes: [STORAGE_RO] };
const FLAVOR = { "Metadata-Flavor": "Google" };
const TOKEN = "/computeMetadata/v1/instance/service-accounts/default/token";

const emu = await withEmulator({ metadata: identity });
const cloudRun = await withEmulator({ metadata: identity, metadataPlatform: "cloud-run" });

async function tokenScopes(url: string, query = ""): Promise<{ scopes: string[]; tokeninfo: string; azp: string }> {
  const reply = await fetch(`${url}${TOKEN}${query}`, { headers: FLAVOR });
  assert.equal(reply.status, 200);
  const { access_token } = (await reply.json()) as { access_token: string };
  const info = (await (await fetch(`${url}/tokeninfo?access_token=${access_token}`)).json()) as {
    scope: string;
    azp: string;
  };
  return { scopes: info.scope.split(" "), tokeninfo: info.scope, azp: info.azp };
}

test("Compute Engine (the default): ?scopes= is ignored, the token carries the VM's access scopes", async () => {
  const asked = await tokenScopes(emu.url, `?scopes=${encodeURIComponent(`${DRIVE},${CLOUD}`)}`);
  assert.deepEqual(asked.scopes, [STORAGE_RO], "Drive was asked for, the VM's scopes were given");
  const none = await tokenScopes(emu.url);
  assert.deepEqual(none.scopes, [STORAGE_RO]);
  assert.match(asked.azp, /^\d{21}$/, "a service account's token names its numeric unique id as azp");
  const listed = await (
    await fetch(`${emu.url}/computeMetadata/v1/instance/service-accounts/default/scopes`, {
      headers: FLAVOR,
    })
  ).text();
  assert.equal(listed, `${STORAGE_RO}\n`, "the scopes path says what a token will carry");
});

test("Cloud Run: ?scopes= is honoured; without it, the identity's scopes", async () => {
  assert.deepEqual((await tokenScopes(cloudRun.url, `?scopes=${encodeURIComponent(DRIVE)}`)).scopes, [DRIVE]);
  assert.deepEqual((await tokenScopes(cloudRun.url)).scopes, [STORAGE_RO]);
});

test("the platform can be changed at run time, by method and admin route; bad values are refused", async () => {
  emu.setMetadataPlatform("cloud-run");
  try {
    assert.deepEqual((await tokenScopes(emu.url, `?scopes=${DRIVE}`)).scopes, [DRIVE]);
  } finally {
    emu.setMetadataPlatform("compute-engine");
  }
  assert.deepEqual((await tokenScopes(emu.url, `?scopes=${DRIVE}`)).scopes, [STORAGE_RO]);
  const admin = (path: string, body: unknown) =>
    fetch(`${emu.url}/__emulator${path}`, { method: "POST", body: JSON.stringify(body) });
  assert.equal((await admin("/metadata-platform", { platform: "cloud-run" })).status, 200);
  const config = (await (await fetch(`${emu.url}/__emulator`)).json()) as { metadataPlatform: string };
  assert.equal(config.metadataPlatform, "cloud-run");
  assert.deepEqual((await tokenScopes(emu.url, `?scopes=${DRIVE}`)).scopes, [DRIVE]);
  assert.equal((await admin("/metadata-platform", { platform: "compute-engine" })).status, 200);
  const bad = await admin("/metadata-platform", { platform: "lambda" });
  assert.equal(bad.status, 400);
  assert.match(await bad.text(), /compute-engine, cloud-run/);
  assert.throws(() => emu.setMetadataPlatform("gke" as "cloud-run"), RangeError);
  assert.deepEqual((await tokenScopes(emu.url, `?scopes=${DRIVE}`)).scopes, [STORAGE_RO]);
});

test("metadata faults answer in plain text, never OAuth JSON, and carry Metadata-Flavor", async () => {
  for (const status of [503, 429, 500]) {
    emu.failNext(1, { target: "metadata", status });
    const reply = await fetch(`${emu.url}${TOKEN}`, { headers: FLAVOR });
    assert.equal(reply.status, status);
    assert.match(reply.headers.get("content-type") ?? "", /^text\/plain/);
    assert.equal(reply.headers.get("metadata-flavor"), "Google");
    const body = await reply.text();
    assert.throws(() => JSON.parse(body), SyntaxError, `a ${status} body is not JSON: ${body}`);
    assert.doesNotMatch(body, /error_description|temporarily_unavailable|rate_limit/);
  }
  const refused = await fetch(`${emu.url}${TOKEN}`);
  assert.equal(refused.status, 403);
  assert.match(refused.headers.get("content-type") ?? "", /^text\/plain/);
});

test("a faulted metadata token request is counted in stats(), as docs/emulator.md says", async () => {
  const before = emu.stats().metadataTokenRequests;
  emu.failNext(2, { target: "metadata", status: 503 });
  assert.equal((await fetch(`${emu.url}${TOKEN}`, { headers: FLAVOR })).status, 503);
  assert.equal((await fetch(`${emu.url}${TOKEN}`, { headers: FLAVOR })).status, 503);
  assert.equal((await fetch(`${emu.url}${TOKEN}`, { headers: FLAVOR })).status, 200);
  assert.equal(emu.stats().metadataTokenRequests, before + 3);
  await fetch(`${emu.url}/computeMetadata/v1/project/project-id`, { headers: FLAVOR });
  assert.equal(emu.stats().metadataTokenRequests, before + 3, "other metadata paths are not token requests");
});
