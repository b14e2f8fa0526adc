// Cloud Resource Manager's projects.get, as google-auth-library's external_account clients call it
// to turn the pool's project number into a project id.
import assert from "node:assert/strict";
import { test } from "node:test";
import { withEmulator } from "../support/emulator.ts";
import { serviceAccountAccessToken } from "./support.ts";

const emu = await withEmulator();
const key = emu.createServiceAccountKey();

async function getProject(id: string, token?: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const reply = await fetch(`${emu.url}/v1/projects/${id}`, {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  return { status: reply.status, json: (await reply.json()) as Record<string, unknown> };
}

test("projects.get: the default pool's project number and a project id, with a cloud-platform token", async () => {
  const token = await serviceAccountAccessToken(key, ["https://www.googleapis.com/auth/cloud-platform"]);
  const byNumber = await getProject("123456789012", token);
  assert.equal(byNumber.status, 200);
  assert.deepEqual(
    { projectNumber: byNumber.json.projectNumber, projectId: byNumber.json.projectId },
    { projectNumber: "123456789012", projectId: "emulator-project" },
  );
  const byId = await getProject("emu-project", token);
  assert.equal(byId.json.projectId, "emu-project");
  assert.match(String(byId.json.projectNumber), /^\d{12}$/);
  assert.equal((await getProject("emu-project", token)).json.projectNumber, byId.json.projectNumber, "stable");
  assert.equal((await getProject("999999999999", token)).status, 403, "an unknown number: not visible");
});

test("projects.get: no token is 401, a token without a cloud-platform scope is 403", async () => {
  assert.equal((await getProject("123456789012")).status, 401);
  const storage = await serviceAccountAccessToken(key, ["https://www.googleapis.com/auth/devstorage.read_only"]);
  assert.equal((await getProject("123456789012", storage)).status, 403);
});
