// The GCE metadata server, over real HTTP.
import { test } from "node:test";
import assert from "node:assert/strict";
import { withEmulator } from "../support/emulator.ts";
import { verifyIdToken } from "../support/id-tokens.ts";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const identity = { projectId: "emu-project", email: "vm-sa@emu-project.iam.gserviceaccount.com" };
const emu = await withEmulator({ metadata: identity });
const FLAVOR = { "Metadata-Flavor": "Google" };
const md = (path: string, headers: Record<string, string> = FLAVOR) =>
  fetch(`${emu.url}/computeMetadata/v1/${path}`, { headers });

test("every answer needs and carries Metadata-Flavor: Google", async () => {
  const missing = await md("project/project-id", {});
  assert.equal(missing.status, 403);
  assert.equal(missing.headers.get("metadata-flavor"), "Google");
  const wrong = await md("project/project-id", { "Metadata-Flavor": "Other" });
  assert.equal(wrong.status, 403);
  const ok = await md("project/project-id");
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get("metadata-flavor"), "Google");
  assert.equal(await ok.text(), "emu-project");
});

test("detection probes: root, /computeMetadata/v1/ and instance answer 200", async () => {
  for (const path of ["/", "/computeMetadata/v1/", "/computeMetadata/v1/instance", "/computeMetadata/v1/instance/"]) {
    const res = await fetch(`${emu.url}${path}`, { headers: FLAVOR });
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get("metadata-flavor"), "Google", path);
  }
  const page = await fetch(`${emu.url}/`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /cred-auth emulator/);
});

test("project id, numeric project id, service account email, scopes, listing", async () => {
  const numeric = await (await md("project/numeric-project-id")).text();
  assert.match(numeric, /^\d{12}$/);
  assert.equal(await (await md("instance/service-accounts/default/email")).text(), identity.email);
  assert.equal(await (await md(`instance/service-accounts/${identity.email}/email`)).text(), identity.email);
  assert.equal(await (await md("instance/service-accounts/default/scopes")).text(), `${CLOUD}\n`);
  assert.equal(await (await md("instance/service-accounts/")).text(), `default/\n${identity.email}/\n`);
  const recursive = (await (await md("instance/service-accounts/default/?recursive=true")).json()) as {
    email: string;
    aliases: string[];
  };
  assert.equal(recursive.email, identity.email);
  assert.equal((await md("instance/service-accounts/other@x.iam.gserviceaccount.com/email")).status, 404);
  assert.equal((await md("instance/nothing-here")).status, 404);
  assert.equal(await (await md("universe/universe-domain")).text(), "googleapis.com");
});

test("token: JSON access token checkable like any other, the VM's scopes whatever is asked (Compute Engine), counted", async () => {
  const before = emu.stats().metadataTokenRequests;
  const res = await md("instance/service-accounts/default/token");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("metadata-flavor"), "Google");
  const body = (await res.json()) as { access_token: string; expires_in: number; token_type: string };
  assert.equal(body.token_type, "Bearer");
  assert.equal(body.expires_in, 3600);
  const info = emu.checkAccessToken(body.access_token);
  assert.equal(info?.account, identity.email);
  assert.deepEqual(info?.scopes, [CLOUD]);
  const scoped = (await (await md("instance/service-accounts/default/token?scopes=a,b")).json()) as {
    access_token: string;
  };
  assert.deepEqual(emu.checkAccessToken(scoped.access_token)?.scopes, [CLOUD], "a VM ignores ?scopes=");
  assert.equal(emu.stats().metadataTokenRequests, before + 2);
  const tokeninfo = (await (await fetch(`${emu.url}/tokeninfo?access_token=${body.access_token}`)).json()) as {
    email?: string;
    scope?: string;
  };
  assert.equal(tokeninfo.email, undefined, "no e-mail scope, no email field (as Google)");
  assert.equal(tokeninfo.scope, CLOUD, "tokeninfo shows the scopes the token really has");
  emu.setMetadataPlatform("cloud-run");
  try {
    const withEmail = (await (
      await md("instance/service-accounts/default/token?scopes=https://www.googleapis.com/auth/userinfo.email")
    ).json()) as { access_token: string };
    const info2 = (await (await fetch(`${emu.url}/tokeninfo?access_token=${withEmail.access_token}`)).json()) as {
      email?: string;
    };
    assert.equal(info2.email, identity.email);
  } finally {
    emu.setMetadataPlatform("compute-engine");
  }
});

test("identity: an id token for an audience", async () => {
  const res = await md("instance/service-accounts/default/identity?audience=https://run.example&format=full");
  const claims = await verifyIdToken(emu, await res.text(), "https://run.example");
  assert.equal(claims.aud, "https://run.example");
  assert.equal(claims.email, identity.email);
  assert.equal((await md("instance/service-accounts/default/identity")).status, 400);
});

test("without an identity: token, email and project answer 404 while detection still answers", async () => {
  emu.setMetadata(null);
  try {
    for (const path of [
      "instance/service-accounts/default/token",
      "instance/service-accounts/default/email",
      "project/project-id",
      "instance/service-accounts/",
    ]) {
      const res = await md(path);
      assert.equal(res.status, 404, path);
      assert.equal(res.headers.get("metadata-flavor"), "Google");
    }
    assert.equal((await md("instance")).status, 200);
    const bare = await withEmulator();
    assert.equal((await fetch(`${bare.url}/computeMetadata/v1/project/project-id`, { headers: FLAVOR })).status, 404);
  } finally {
    emu.setMetadata(identity);
  }
  assert.equal((await md("project/project-id")).status, 200);
});

test("custom default scopes and non-GET methods", async () => {
  emu.setMetadata({ ...identity, scopes: ["s1", "s2"] });
  try {
    const token = (await (await md("instance/service-accounts/default/token")).json()) as { access_token: string };
    assert.deepEqual(emu.checkAccessToken(token.access_token)?.scopes, ["s1", "s2"]);
    const post = await fetch(`${emu.url}/computeMetadata/v1/instance/service-accounts/default/token`, {
      method: "POST",
      headers: FLAVOR,
    });
    assert.equal(post.status, 405);
  } finally {
    emu.setMetadata(identity);
  }
});
