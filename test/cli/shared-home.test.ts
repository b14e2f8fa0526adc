// Attacker: uid 65534 shares a sticky HOME (HOME=/tmp in a container or CI) and plants a credentials
// cache of their own account where getUserCredentials() keeps the user's. The commands that look
// where default() looks skip it, as READ_WRITE.load() does, and say why: print-token and
// print-identity-token print no token of the planter's, status names it as passed over, and revoke
// revokes nothing.
import assert from "node:assert/strict";
import { chmodSync, chownSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { DEMO_CLIENT } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { runCli, sandbox } from "./support.ts";

const emu = await withEmulator();
const SCOPES = [
  "openid",
  "https://www.googleapis.com/auth/userinfo.email",
  "https://www.googleapis.com/auth/cloud-platform",
];

test("a credentials cache planted by uid 65534 in a shared sticky HOME is skipped, with a note", async () => {
  const box = sandbox(emu, { METADATA_SERVER_DETECTION: "none" });
  const home = join(box.dir, "shared");
  mkdirSync(home);
  chmodSync(home, 0o1777);
  const planted = join(home, ".config", "cred", "cred_credentials.json");
  mkdirSync(join(home, ".config", "cred"), { recursive: true, mode: 0o700 });
  const refreshToken = emu.issueRefreshToken({
    clientId: DEMO_CLIENT.clientId,
    scopes: SCOPES,
    account: "planter@example.com",
  });
  const file = {
    type: "authorized_user",
    client_id: DEMO_CLIENT.clientId,
    client_secret: DEMO_CLIENT.clientSecret,
    refresh_token: refreshToken,
    token_uri: `${emu.url}/token`,
  };
  writeFileSync(planted, JSON.stringify(file), { mode: 0o600 });
  for (const path of [join(home, ".config"), join(home, ".config", "cred"), planted]) chownSync(path, 65534, 65534);
  const env = {
    ...box.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    CLOUDSDK_CONFIG: join(box.dir, "gcloud"),
  };
  const note = /the cached sign-in at .*cred_credentials\.json belongs to another user \(uid 65534\).*skipped/;
  for (const command of ["print-token", "print-identity-token"]) {
    const r = await runCli([command], env);
    assert.equal(r.stdout, "", `${command} printed a token of the planter's`);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, note);
    assert.match(r.stderr, /\(ERR_NO_CREDENTIALS\)/);
  }
  const status = await runCli(["status", "--no-check"], env);
  assert.equal(status.code, 1);
  assert.match(status.stdout, /passed over: +the cached sign-in .* skipped/);
  assert.doesNotMatch(status.stdout, /planter/);
  const revoke = await runCli(["revoke", "--quiet"], env);
  assert.equal(revoke.code, 1);
  assert.match(revoke.stderr, note);
  const named = await runCli(["print-token", planted], env);
  assert.equal(named.code, 0, `named, the file is read, and its grant still works: ${named.stderr}`);
});
