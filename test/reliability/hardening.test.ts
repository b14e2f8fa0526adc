// Issue 12's hardening and "nothing approved is lost" items, each reproduced as the attack run
// did it: a DNS-rebinding request to the loopback receiver, a metadata server that redirects, a
// default cache that cannot be written, a destination that cannot be written, and errors that
// blamed a refresh token for a failed code exchange or a failed service-account key.
import assert from "node:assert/strict";
import { request as httpRequest, createServer, type Server } from "node:http";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { TestContext } from "node:test";
import {
  CredConnectionError,
  CredCredentialsError,
  getUserCredentials,
  loadServiceAccountCredentials,
  saveUserCredentials,
} from "cred-auth";
import type { Presenter, SignInEvent } from "cred-auth";
import { DEMO_CLIENT, approveSignIn, startEmulator } from "cred-auth/emulator";
import { findApplicationDefaultCredentials } from "../../dist/credentials/search/adc.js";
import { toCredError } from "../../dist/protocols/token-errors.js";
import { startLoopbackReceiver } from "../../dist/oauth/loopback.js";
import { tempDir } from "../support/files.ts";
import { freePortRange, rangeEnv, startSignInWith } from "../oauth/support.ts";
import { withEmulator } from "../support/emulator.ts";
import { SCOPES, interceptWarnings } from "./support.ts";

const emu = await withEmulator();

/** Sets process.env entries for one test. */
function useEnv(t: TestContext, values: Record<string, string>): void {
  const saved = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  Object.assign(process.env, values);
  t.after(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
}

/** A presenter playing the browser in the loopback flow: it approves and records what it saw. */
function approvingPresenter(): Presenter & { events: SignInEvent[] } {
  const events: SignInEvent[] = [];
  return {
    events,
    update(event) {
      events.push(event);
      if (event.type === "url" && event.mode === "loopback") void approveSignIn(event.url).catch(() => {});
    },
  };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)),
  );
}

test("the loopback receiver answers a request naming another host (DNS rebinding) with 421, and keeps waiting", async (t) => {
  const ports = await freePortRange(3);
  const state = "s".repeat(43);
  const receiver = await startLoopbackReceiver({ state, ports, host: "127.0.0.1" });
  t.after(() => receiver.close());
  let settled = false;
  receiver.callback.then(
    () => (settled = true),
    () => {},
  );
  const get = (host: string) =>
    new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        { host: "127.0.0.1", port: receiver.port, path: `/?code=4/0AbRebound&state=${state}`, headers: { host } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end();
    });
  // A rebinding page's request: the code and state are right, the Host is the attacker's name.
  const answered = await Promise.race([
    get(`rebound.attacker.example:${receiver.port}`),
    receiver.callback.then(() => -1),
  ]);
  assert.equal(answered, 421, "a request for another host completed the sign-in");
  assert.equal(settled, false);
  assert.equal(await get(`localhost:${receiver.port + 1}`), 421, "another port is another origin");
  // The browser's own redirect still completes it.
  void get(`127.0.0.1:${receiver.port}`).catch(() => {});
  const callback = await receiver.callback;
  assert.equal(callback.code, "4/0AbRebound");
  callback.finish({ ok: true });
});

test("ADC: a metadata server that redirects its token request is not followed; a clear CredConnectionError", async (t) => {
  let elsewhere = 0;
  const other = createServer((_req, res) => {
    elsewhere++;
    res.writeHead(200, { "content-type": "application/json", "metadata-flavor": "Google" });
    res.end(JSON.stringify({ access_token: "ya29.from-elsewhere", expires_in: 3600, token_type: "Bearer" }));
  });
  const otherPort = await listen(other);
  t.after(() => other.close());
  const metadata = createServer((req, res) => {
    if (req.url?.startsWith("/computeMetadata/v1/project/project-id")) {
      res.writeHead(200, { "metadata-flavor": "Google", "content-type": "text/plain" });
      return res.end("redirecting-project");
    }
    res.writeHead(302, { "metadata-flavor": "Google", location: `http://127.0.0.1:${otherPort}/token` });
    res.end();
  });
  const port = await listen(metadata);
  t.after(() => metadata.close());
  const home = tempDir(t);
  const env: NodeJS.ProcessEnv = {
    HOME: home,
    CLOUDSDK_CONFIG: join(home, "gcloud"),
    GCE_METADATA_HOST: `127.0.0.1:${port}`,
  };
  useEnv(t, { GCE_METADATA_HOST: `127.0.0.1:${port}` }); // google-auth-library reads process.env
  await assert.rejects(findApplicationDefaultCredentials(SCOPES, env), (error: Error) => {
    assert.ok(error instanceof CredConnectionError, `${error.name}: ${error.message}`);
    assert.match(error.message, /redirect \(HTTP 302\), which is never followed/);
    return true;
  });
  assert.equal(elsewhere, 0, "the redirect was followed");
});

test("getUserCredentials: a default cache that cannot be written loses nothing: a CRED_AUTH_CACHE warning, and the credentials", async (t) => {
  const home = tempDir(t);
  writeFileSync(join(home, ".config"), "a file where the directory should be");
  useEnv(t, {
    HOME: home,
    CRED_AUTH_EMULATOR_HOST: emu.host,
    CRED_AUTH_LOOPBACK_PORTS: rangeEnv(await freePortRange(3)),
    CRED_AUTH_TOKEN_CACHE: "off",
  });
  const warnings = interceptWarnings(t, (w) => w.code === "CRED_AUTH_CACHE");
  const credentials = await getUserCredentials(SCOPES, {
    clientId: DEMO_CLIENT.clientId,
    clientSecret: DEMO_CLIENT.clientSecret,
    openBrowser: false,
    useLocalWebserver: true,
    presenter: approvingPresenter(),
  });
  assert.ok(emu.checkAccessToken((await credentials.getAccessToken()).token ?? ""), "usable credentials");
  await new Promise((resolve) => setImmediate(resolve));
  const notWritten = warnings.filter((w) => /credentials cache was not written/.test(String(w)));
  assert.equal(notWritten.length, 1, warnings.map(String).join("\n"));
  assert.match(String(notWritten[0]), /not a directory/);
});

test("saveUserCredentials: a destination that cannot be written fails before any sign-in", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "file"), "x");
  useEnv(t, { CRED_AUTH_EMULATOR_HOST: emu.host, CRED_AUTH_LOOPBACK_PORTS: rangeEnv(await freePortRange(3)) });
  const presenter = approvingPresenter();
  const before = emu.stats().authorizations;
  await assert.rejects(
    saveUserCredentials(SCOPES, join(dir, "file", "creds.json"), {
      clientId: DEMO_CLIENT.clientId,
      clientSecret: DEMO_CLIENT.clientSecret,
      openBrowser: false,
      useLocalWebserver: true,
      presenter,
    }),
    (error: Error & { code?: string }) => {
      assert.ok(error instanceof CredCredentialsError);
      assert.match(error.message, /^Cannot save credentials to .*\/file" is not a directory\.$/);
      assert.equal(error.code, "ERR_FILE_UNWRITABLE");
      return true;
    },
  );
  assert.equal(presenter.events.filter((e) => e.type === "url").length, 0, "no sign-in was offered");
  assert.equal(emu.stats().authorizations, before, "nothing was approved");
  mkdirSync(join(dir, "ok"));
});

test("say what was rejected: a failed code exchange or service-account key never blames a refresh token", async (t) => {
  const pending = await startSignInWith({
    scopes: SCOPES,
    env: { CRED_AUTH_EMULATOR_HOST: emu.host },
    useLocalWebserver: false,
  });
  t.after(() => pending.cancel());
  await assert.rejects(pending.exchangeCode("4/0AbNeverIssued-code"), (error: Error) => {
    assert.ok(error instanceof CredCredentialsError, `${error.name}: ${error.message}`);
    assert.doesNotMatch(error.message, /refresh token/);
    assert.match(error.message, /code/);
    return true;
  });

  const stranger = await startEmulator();
  t.after(() => stranger.close());
  const dir = tempDir(t);
  const keyPath = join(dir, "key.json");
  writeFileSync(keyPath, JSON.stringify({ ...stranger.createServiceAccountKey(), token_uri: `${emu.url}/token` }));
  await assert.rejects(loadServiceAccountCredentials(keyPath), (error: Error) => {
    assert.ok(error instanceof CredCredentialsError, `${error.name}: ${error.message}`);
    assert.doesNotMatch(error.message, /refresh token/);
    assert.match(error.message, /service account/);
    return true;
  });

  // A rejection whose request is unknown names no culprit it cannot know.
  const generic = toCredError(
    Object.assign(new Error("400"), { response: { status: 400, data: { error: "invalid_grant" } } }),
    "Getting a token",
  );
  assert.doesNotMatch(generic.message, /refresh token/);
  assert.match(generic.message, /invalid_grant/);
});
