// The OAuth client a sign-in runs as, chosen by the plan (credentials/sign-in/plan.ts): the options, the
// environment (id and secret, then a client-secret file), the settings, the emulator's demo client.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { CredCredentialsError } from "cred-auth";
import { planSignIn } from "../../dist/credentials/sign-in/plan.js";
import { type Endpoints, resolveEndpoints } from "../../dist/protocols/endpoints.js";

const google = resolveEndpoints({});
const EMULATOR_HOST = "127.0.0.1:9";
const emulator = resolveEndpoints({ CRED_AUTH_EMULATOR_HOST: EMULATOR_HOST });
const dir = mkdtempSync(join(tmpdir(), "cred-auth-client-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The plan's client for these options and environment (at Google or the emulator), with no settings file. */
function clientOf(
  options: { clientId?: string; clientSecret?: string; mode?: "loopback" | "paste"; redirectUri?: string },
  env: NodeJS.ProcessEnv,
  endpoints: Endpoints,
) {
  const { mode = "loopback", ...rest } = options;
  const where = endpoints.emulator ? { ...env, CRED_AUTH_EMULATOR_HOST: EMULATOR_HOST } : env;
  const request = { scopes: ["openid"], options: { ...rest, useLocalWebserver: mode === "loopback" } };
  return planSignIn(request, { env: where, settings: () => ({}) }).flow.client;
}

function secretFile(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

test("options win over the environment and the file", () => {
  const env = { CRED_AUTH_CLIENT_ID: "env-id", CRED_AUTH_CLIENT_SECRET: "env-secret" };
  assert.deepEqual(clientOf({ clientId: "opt-id", clientSecret: "opt-secret" }, env, google), {
    clientId: "opt-id",
    clientSecret: "opt-secret",
    source: "options",
  });
});

test("CRED_AUTH_CLIENT_ID/SECRET come next", () => {
  const env = {
    CRED_AUTH_CLIENT_ID: "env-id",
    CRED_AUTH_CLIENT_SECRET: "env-secret",
    CRED_AUTH_CLIENT_SECRET_FILE: "/nonexistent",
  };
  assert.deepEqual(clientOf({}, env, google), { clientId: "env-id", clientSecret: "env-secret", source: "env" });
});

test("a client-secret file of the installed or the web shape", () => {
  const installed = secretFile(
    "installed.json",
    JSON.stringify({
      installed: { client_id: "i-id", client_secret: "i-secret", redirect_uris: ["http://localhost"] },
    }),
  );
  const web = secretFile("web.json", JSON.stringify({ web: { client_id: "w-id", client_secret: "w-secret" } }));
  assert.deepEqual(clientOf({}, { CRED_AUTH_CLIENT_SECRET_FILE: installed }, google), {
    clientId: "i-id",
    clientSecret: "i-secret",
    source: "file",
    kind: "desktop",
  });
  assert.deepEqual(clientOf({}, { CRED_AUTH_CLIENT_SECRET_FILE: web }, google), {
    clientId: "w-id",
    clientSecret: "w-secret",
    source: "file",
    kind: "web",
  });
});

test("a broken client-secret file is an error naming the file, never its content", () => {
  const broken = secretFile("broken.json", '{"installed": {"client_id": "x", "client_secret": "TOPSECRET-1"');
  const wrongShape = secretFile(
    "shape.json",
    JSON.stringify({ other: { client_id: "x", client_secret: "TOPSECRET-2" } }),
  );
  for (const path of [broken, wrongShape, join(dir, "missing.json")]) {
    assert.throws(
      () => clientOf({}, { CRED_AUTH_CLIENT_SECRET_FILE: path }, google),
      (error: Error) => {
        assert.ok(error instanceof CredCredentialsError);
        assert.ok(error.message.includes(path), error.message);
        assert.doesNotMatch(error.message, /TOPSECRET/);
        return true;
      },
    );
  }
});

test("the demo clients only with the emulator: desktop for loopback, web for copy-paste", () => {
  assert.equal(clientOf({}, {}, emulator).source, "demo");
  const desktop = clientOf({ mode: "loopback" }, {}, emulator);
  const web = clientOf({ mode: "paste" }, {}, emulator);
  assert.notEqual(desktop.clientId, web.clientId);
  assert.match(web.clientId, /web/);
});

test("no client anywhere (no gcloud): one line naming config init, the client-secret file variable and the doc", () => {
  assert.throws(
    () => clientOf({}, {}, google),
    (error: Error) => {
      assert.ok(error instanceof CredCredentialsError);
      assert.equal(
        error.message,
        "No OAuth client configured: `cred-auth config init` creates your own client once (or set CRED_AUTH_CLIENT_SECRET_FILE); see docs/oauth-client.md.",
      );
      return true;
    },
  );
});

test("half a client is refused without echoing the secret", () => {
  assert.throws(
    () => clientOf({ clientSecret: "TOPSECRET-3" }, {}, emulator),
    (error: Error) => {
      assert.ok(error instanceof CredCredentialsError);
      assert.doesNotMatch(error.message, /TOPSECRET/);
      return true;
    },
  );
  assert.throws(
    () => clientOf({}, { CRED_AUTH_CLIENT_ID: "only-id" }, emulator),
    /CRED_AUTH_CLIENT_ID and CRED_AUTH_CLIENT_SECRET/,
  );
});

test("copy-paste to an explicit redirectUri needs the caller's id and secret (FACTS 1)", () => {
  const message = "Unable to get valid credentials: please provide a valid client_id and/or client_secret.";
  const paste = { mode: "paste" as const, redirectUri: "https://example.org/oauth.html" };
  assert.throws(() => clientOf(paste, {}, emulator), { message });
  assert.throws(() => clientOf({ ...paste, clientId: "only-id" }, {}, emulator), { message });
  assert.equal(clientOf({ ...paste, clientId: "id", clientSecret: "s" }, {}, emulator).source, "options");
  // Without an explicit redirect URI the emulator's demo web client is fine.
  assert.equal(clientOf({ mode: "paste" }, {}, emulator).source, "demo");
});
