// The client check before the browser opens (oauth/client-check.ts): an OAuth client the token
// server does not know, or a token server that does not answer (a dead emulator), fails before
// any URL is shown, instead of after the user signed in or when the sign-in times out. Against
// the emulator, and against "Google" (the emulator behind a loopback HTTPS proxy that plays
// oauth2.googleapis.com), since the check's words and its skipping differ there.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import {
  CredConnectionError,
  CredCredentialsError,
  ERROR_CODES,
  getUserCredentials,
  type SignInEvent,
} from "cred-auth";
import { DEMO_CLIENT, type Emulator } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { type GoogleProxy, startGoogleProxy } from "../support/google-proxy.ts";
import { closedPort } from "../support/net.ts";
import { findPeerTools } from "../support/peers.ts";
import { runNode } from "../reliability/support.ts";
import { freePortRange, rangeEnv } from "./support.ts";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const root = fileURLToPath(new URL("../..", import.meta.url));
const hasOpenssl = Boolean(findPeerTools().openssl);
if (!hasOpenssl && process.env.CI) throw new Error("openssl is missing, and CI must run the client-check proxy test");

const emulator: Emulator = await withEmulator();

/** A sign-in's events, for a sign-in that must end before its URL is ever shown. */
function faceEvents() {
  const events: SignInEvent[] = [];
  return { events, presenter: { update: (event: SignInEvent) => void events.push(event) } };
}

/** Runs `work` with these environment variables set (the library reads `process.env`), then puts them back. */
async function withEnv<T>(vars: Record<string, string>, work: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((key) => [key, process.env[key]]));
  Object.assign(process.env, vars);
  try {
    return await work();
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

const noCache = { credentialsCache: (await import("cred-auth")).cache.NOOP, useLocalWebserver: true };

test("a client the emulator does not know: ERR_INVALID_CLIENT before any URL, with the way out", async () => {
  const ports = await freePortRange(3);
  const face = faceEvents();
  const asked = emulator.stats().byGrant.authorization_code ?? 0;
  const error = await withEnv(
    { CRED_AUTH_EMULATOR_HOST: emulator.host, CRED_AUTH_LOOPBACK_PORTS: rangeEnv(ports) },
    () =>
      getUserCredentials([CLOUD], {
        ...noCache,
        clientId: "1234-mine.apps.googleusercontent.com",
        clientSecret: "GOCSPX-mine/x+y=",
        presenter: face.presenter,
      }).catch((e: Error) => e),
  );
  assert.ok(error instanceof CredCredentialsError, String(error));
  assert.equal(error.code, ERROR_CODES.INVALID_CLIENT);
  assert.equal(
    error.message,
    "The emulator does not know the OAuth client from the clientId/clientSecret options or --client-secret-file: leave it out to use its demo client, or register it (docs/emulator.md).",
  );
  assert.doesNotMatch(error.message, /GOCSPX/, "never the secret");
  assert.deepEqual(
    face.events.map((event) => event.type),
    ["failed"],
    "the face says it failed; no URL was ever shown",
  );
  assert.equal((emulator.stats().byGrant.authorization_code ?? 0) - asked, 1, "one request: the check");
  assert.equal(emulator.stats().authorizations, 0, "nobody was sent to the consent page");
});

test("a dead emulator: ERR_UNREACHABLE before any URL, saying how to start it", async () => {
  const port = await closedPort();
  const face = faceEvents();
  const error = await withEnv({ CRED_AUTH_EMULATOR_HOST: `127.0.0.1:${port}` }, () =>
    getUserCredentials([CLOUD], { ...noCache, presenter: face.presenter }).catch((e: Error) => e),
  );
  assert.ok(error instanceof CredConnectionError, String(error));
  assert.equal(error.code, ERROR_CODES.UNREACHABLE);
  assert.match(error.message, new RegExp(`Nothing answers at the emulator's address http://127\\.0\\.0\\.1:${port}`));
  assert.match(error.message, new RegExp(`cred-auth emulator --port ${port}`));
  assert.deepEqual(
    face.events.map((event) => event.type),
    ["failed"],
  );
});

test("a client the emulator knows: the check answers invalid_grant and the sign-in goes on", async () => {
  const ports = await freePortRange(3);
  const face = faceEvents();
  const asked = emulator.stats().byGrant.authorization_code ?? 0;
  await withEnv({ CRED_AUTH_EMULATOR_HOST: emulator.host, CRED_AUTH_LOOPBACK_PORTS: rangeEnv(ports) }, async () => {
    const { approveSignIn } = await import("cred-auth/emulator");
    const presenter = {
      update(event: SignInEvent) {
        face.events.push(event);
        if (event.type === "url") void approveSignIn(event.url);
      },
    };
    await getUserCredentials([CLOUD], { ...noCache, ...DEMO_CLIENT, presenter });
  });
  assert.deepEqual(
    face.events.map((event) => event.type),
    ["url", "waiting", "signed-in"],
  );
  assert.equal((emulator.stats().byGrant.authorization_code ?? 0) - asked, 2, "the check, then the exchange");
});

test("at Google: an unknown client in Google's words; a client Google answered for is not asked again", {
  skip: hasOpenssl ? false : "openssl is missing",
}, async (t) => {
  // Google's own endpoints, reached through a loopback proxy that plays Google's host names.
  const proxy: GoogleProxy = await startGoogleProxy(emulator);
  t.after(() => proxy.close());
  const script = `
    const { planSignIn } = require("./dist/credentials/sign-in/plan.js");
    const { checkClient } = require("./dist/oauth/client-check.js");
    const plan = (clientId, clientSecret) =>
      planSignIn({ scopes: ["${CLOUD}"], options: { clientId, clientSecret, useLocalWebserver: true } }, { env: process.env, settings: () => ({}) }).flow;
    (async () => {
      const out = {};
      const known = plan(${JSON.stringify(DEMO_CLIENT.clientId)}, ${JSON.stringify(DEMO_CLIENT.clientSecret)});
      out.first = known.checkClient;
      out.known = await checkClient(known, "http://localhost:8080/").then(() => "ok", (e) => e.message);
      out.again = plan(${JSON.stringify(DEMO_CLIENT.clientId)}, ${JSON.stringify(DEMO_CLIENT.clientSecret)}).checkClient;
      const unknown = plan("1234-gone.apps.googleusercontent.com", "GOCSPX-gone/a+b=");
      out.unknownChecked = unknown.checkClient;
      out.refused = await checkClient(unknown, "http://localhost:8080/").then(() => "accepted", (e) => ({ code: e.code, message: e.message }));
      console.log(JSON.stringify(out));
    })();`;
  const run = await runNode(["-e", script], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: join(root, ".tmp", "no-home"),
      HTTPS_PROXY: proxy.url,
      NODE_EXTRA_CA_CERTS: proxy.caFile,
    },
  });
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout) as {
    first: boolean;
    known: string;
    again: boolean;
    unknownChecked: boolean;
    refused: { code: string; message: string };
  };
  assert.equal(result.first, true, "a client this process has not seen answered is checked");
  assert.equal(result.known, "ok", "Google knows it: invalid_grant for the made-up code, and the sign-in goes on");
  assert.equal(result.again, false, "once Google answered for it, the check is skipped: it cannot help");
  assert.equal(result.unknownChecked, true);
  assert.equal(result.refused.code, ERROR_CODES.INVALID_CLIENT);
  assert.match(
    result.refused.message,
    /^Google does not accept the OAuth client from the clientId\/clientSecret options .*: deleted, or its id or secret mistyped; /,
  );
  assert.match(result.refused.message, /cred-auth config init/);
  const checks = proxy.forwarded.filter(
    (request) => request.host === "oauth2.googleapis.com" && request.path === "/token",
  );
  assert.equal(checks.length, 2, "one request per check, no retry");
  assert.ok(checks.every((request) => /grant_type=authorization_code/.test(request.body)));
});

test("a client the emulator knows, with a wrong secret: said as a wrong secret, not as an unknown client", async () => {
  const ports = await freePortRange(3);
  const face = faceEvents();
  const error = await withEnv(
    { CRED_AUTH_EMULATOR_HOST: emulator.host, CRED_AUTH_LOOPBACK_PORTS: rangeEnv(ports) },
    () =>
      getUserCredentials([CLOUD], {
        ...noCache,
        clientId: DEMO_CLIENT.clientId,
        clientSecret: "GOCSPX-typo/x+y=",
        presenter: face.presenter,
      }).catch((e: Error) => e),
  );
  assert.ok(error instanceof CredCredentialsError, String(error));
  assert.equal(error.code, ERROR_CODES.INVALID_CLIENT);
  assert.equal(
    error.message,
    "The emulator refused the OAuth client's secret (from the clientId/clientSecret options or --client-secret-file): mistyped, or replaced; copy it again from the console's Credentials page, or `cred-auth config init FILE` a new download.",
  );
  assert.deepEqual(
    face.events.map((event) => event.type),
    ["failed"],
  );
});
