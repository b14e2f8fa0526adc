// default() with a client the token server refuses (deleted or disabled on the console): it says
// so in the token server's words with the next step, on the sign-in's face, and never sends anyone
// to the consent page with that client. Against the emulator, and against "Google" (the emulator
// behind a loopback HTTPS proxy), where a client this process already proved is not checked again.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import * as credAuth from "cred-auth";
import { CredCredentialsError, ERROR_CODES } from "cred-auth";
import { testCredentialsFile } from "../support/emulator.ts";
import { type GoogleProxy, startGoogleProxy } from "../support/google-proxy.ts";
import { findPeerTools } from "../support/peers.ts";
import { runNode } from "../reliability/support.ts";
import { browserPresenter, isolatedWorld, OTHER_CLIENT, withEnv } from "./support.ts";

const { emulator, home } = await isolatedWorld();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const NEXT = "create or pick another client with `cred-auth config init`, then sign in again";
const hasOpenssl = Boolean(findPeerTools().openssl);

test("default() with cached credentials of a deleted client: Google's words and the next step on the face, no consent page", async () => {
  const signIn = browserPresenter();
  const options = { ...OTHER_CLIENT, useLocalWebserver: true };
  await credAuth.getUserCredentials([CLOUD], { ...options, presenter: signIn.presenter });
  assert.deepEqual(signIn.types(), ["url", "waiting", "signed-in"], "the cache holds the client's credentials");
  emulator.deleteClient(OTHER_CLIENT.clientId);
  try {
    const b = browserPresenter();
    const { authorizations } = emulator.stats();
    // Without the token cache: its still-valid access token would spare the refresh that finds out.
    const error = await withEnv({ CRED_AUTH_TOKEN_CACHE: "off" }, () =>
      credAuth.default([CLOUD], { ...options, presenter: b.presenter }).catch((e: Error) => e),
    );
    assert.ok(error instanceof CredCredentialsError, String(error));
    assert.equal(error.code, ERROR_CODES.INVALID_CLIENT);
    assert.equal(error.error, "deleted_client");
    assert.equal(
      error.message,
      `Checking the OAuth client ${OTHER_CLIENT.clientId} failed: deleted_client: the OAuth client was deleted; ${NEXT}.`,
    );
    assert.deepEqual(b.types(), ["failed"], "the face says it failed; no URL was shown");
    assert.equal(emulator.stats().authorizations, authorizations, "nobody was sent to the consent page");
  } finally {
    emulator.restoreClient(OTHER_CLIENT.clientId);
  }
});

test("default() with GOOGLE_APPLICATION_CREDENTIALS of a disabled client: the warning, then the refusal, no consent page", async () => {
  const path = await testCredentialsFile(emulator, join(home, "disabled"), { scopes: [CLOUD], client: OTHER_CLIENT });
  emulator.disableClient(OTHER_CLIENT.clientId);
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on("warning", onWarning);
  try {
    const b = browserPresenter();
    const { authorizations } = emulator.stats();
    const error = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () =>
      credAuth
        .default([CLOUD], { ...OTHER_CLIENT, credentialsCache: credAuth.cache.NOOP, presenter: b.presenter })
        .catch((e: Error) => e),
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(error instanceof CredCredentialsError, String(error));
    assert.equal(error.code, ERROR_CODES.INVALID_CLIENT);
    assert.match(
      error.message,
      new RegExp(`disabled_client: the OAuth client was disabled; ${NEXT.replace(/[`]/g, ".")}`),
    );
    assert.deepEqual(b.types(), ["failed"]);
    assert.equal(emulator.stats().authorizations, authorizations);
    const adc = warnings.find((w) => (w as { code?: string }).code === "CRED_AUTH_ADC");
    assert.match(adc?.message ?? "", /disabled_client: the OAuth client was disabled; create or pick another client/);
  } finally {
    process.off("warning", onWarning);
    emulator.restoreClient(OTHER_CLIENT.clientId);
  }
});

test("at Google: a client this process proved, then deleted, is asked again before any URL is shown", {
  skip: hasOpenssl ? false : "openssl is missing",
}, async (t) => {
  const proxy: GoogleProxy = await startGoogleProxy(emulator);
  t.after(() => proxy.close());
  const path = await testCredentialsFile(emulator, join(home, "google"), { scopes: [CLOUD], client: OTHER_CLIENT });
  const deleteUrl = `${emulator.url}/__emulator/oauth-client/delete`;
  // One process: it proves the client at "Google", the client is deleted, then its cached credentials are refused.
  const script = `
    const { readFileSync } = require("node:fs");
    const credAuth = require("./dist/index.js");
    const { planSignIn } = require("./dist/credentials/sign-in/plan.js");
    const { checkClient } = require("./dist/oauth/client-check.js");
    const { userRefreshClientFrom } = require("./dist/credentials/kinds/user/client.js");
    const client = ${JSON.stringify(OTHER_CLIENT)};
    const options = { ...client, useLocalWebserver: true };
    const flow = () => planSignIn({ scopes: ["${CLOUD}"], options }, { env: process.env, settings: () => ({}) }).flow;
    (async () => {
      await checkClient(flow(), "http://localhost:8080/");
      const proven = !flow().checkClient;
      await fetch(${JSON.stringify(deleteUrl)}, { method: "POST", body: JSON.stringify({ clientId: client.clientId }) });
      const json = JSON.parse(readFileSync(${JSON.stringify(path)}, "utf8"));
      const file = { type: "authorized_user", clientId: json.client_id, clientSecret: json.client_secret, refreshToken: json.refresh_token };
      const credentialsCache = Object.assign(new credAuth.cache.CredentialsCache(), { load: () => userRefreshClientFrom(file, {}) });
      const events = [];
      const presenter = { update: (event) => events.push(event.type) };
      const refused = await credAuth.default(["${CLOUD}"], { ...options, presenter, credentialsCache })
        .then(() => "signed in", (e) => ({ code: e.code, message: e.message }));
      console.log(JSON.stringify({ proven, events, refused }));
    })();`;
  try {
    const run = await runNode(["-e", script], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: join(home, "google-home"),
        HTTPS_PROXY: proxy.url,
        NODE_EXTRA_CA_CERTS: proxy.caFile,
        CRED_AUTH_TOKEN_CACHE: "off",
        CRED_AUTH_HOSTED: "off",
        METADATA_SERVER_DETECTION: "none",
        BROWSER: "none",
        CRED_AUTH_LOOPBACK_PORTS: process.env.CRED_AUTH_LOOPBACK_PORTS ?? "",
      },
    });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout) as { proven: boolean; events: string[]; refused: Record<string, string> };
    assert.equal(result.proven, true, "Google answered for the client: a plain sign-in would not check it again");
    assert.deepEqual(result.events, ["failed"], "the refused client was checked again: no URL shown");
    assert.equal(result.refused.code, ERROR_CODES.INVALID_CLIENT);
    assert.match(result.refused.message, /deleted_client: the OAuth client was deleted; create or pick another client/);
  } finally {
    emulator.restoreClient(OTHER_CLIENT.clientId);
  }
});
