// The sign-in plan (credentials/sign-in/plan.ts): every decision of a sign-in made once, from the call's
// options, the environment, the settings and where the code runs, in the settings order
// option > environment > setting > default. The plan is a plain value: these tests read it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CredCredentialsError, ERROR_CODES } from "cred-auth";
import type { Presenter, SaveUserCredentialsOptions } from "cred-auth";
import {
  ACCOUNT_SCOPES,
  loopbackTarget,
  type PlanSources,
  planFace,
  planSignIn,
  planSources,
  withAccountScopes,
} from "../../dist/credentials/sign-in/plan.js";
import { hostFacts as host } from "../support/host.ts";
import type { Settings } from "../../dist/settings/keys.js";
import { MESSAGES } from "../../dist/messages.js";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const EMULATOR = { CRED_AUTH_EMULATOR_HOST: "127.0.0.1:9" };
const NOTICE = "CRED_AUTH_EMULATOR_HOST: using the local emulator at http://127.0.0.1:9, not Google.";

/** Sources with `settings` as the file's content, counting the reads; a desktop terminal unless told. */
function sources(env: NodeJS.ProcessEnv = {}, settings: Settings = {}, where: Partial<PlanSources> = {}) {
  const read = { count: 0 };
  const planned: PlanSources = {
    env: { DISPLAY: ":0", TERM: "xterm-256color", ...EMULATOR, ...env },
    settings: () => {
      read.count++;
      return settings;
    },
    globals: {},
    host: host(),
    ...where,
  };
  return { sources: planned, read };
}

function plan(
  options: SaveUserCredentialsOptions = {},
  env?: NodeJS.ProcessEnv,
  settings?: Settings,
  scopes = [CLOUD],
) {
  return planSignIn({ scopes, options }, sources(env, settings).sources);
}

test("a local desktop: loopback on 8080-8089, the browser opened, the ink face, the account scopes added", () => {
  const p = plan();
  assert.deepEqual(p.flow.redirect, {
    mode: "loopback",
    host: "localhost",
    ports: { first: 8080, last: 8089 },
    path: "/",
  });
  assert.equal(p.flow.pasteBack, false);
  assert.equal(p.flow.browser, "system");
  assert.equal(p.flow.timeoutMs, 300_000);
  assert.deepEqual(p.flow.scopes, [CLOUD, ...ACCOUNT_SCOPES]);
  assert.deepEqual(p.scopes, [CLOUD]);
  assert.equal(p.flow.client.source, "demo");
  assert.deepEqual(p.face, {
    face: "terminal",
    fallback: true,
    color: true,
    prompt: "stderr",
    codeEntry: "second-cell",
    notes: [NOTICE],
    details: [p.announcement, MESSAGES.googleErrorPage],
  });
  assert.equal(p.runtime.kind, "terminal");
  assert.equal(
    p.announcement,
    "loopback sign-in: the browser can reach this machine; useLocalWebserver: false (--no-use-local-webserver) pastes a code instead; if the browser is on another machine, CRED_AUTH_REMOTE=1 (or `cred-auth config set remote true`) pastes its final address back.",
  );
  assert.equal(p.flow.checkClient, true, "at the emulator the client is always checked");
  assert.equal(p.whenPending, "throw", "a terminal reads the code itself");
});

test("a remote machine: copy-paste when a code page is configured, else loopback with the address pasted back", () => {
  const ssh = { SSH_CONNECTION: "1.2.3.4 5 6.7.8.9 22" };
  const paste = plan({}, ssh);
  assert.deepEqual(paste.flow.redirect, { mode: "paste", uri: "http://127.0.0.1:9/oauth/code" });
  assert.equal(paste.flow.client.source, "demo");
  assert.match(paste.flow.client.clientId, /web/, "the copy-paste flow runs as a web client");
  assert.equal(paste.flow.browser, "none", "no browser over SSH");
  assert.match(paste.announcement ?? "", /^copy-paste sign-in: this machine looks remote \(SSH session/);
  const back = plan({}, { ...ssh, CRED_AUTH_EMULATOR_CODE_PAGE: "off" });
  assert.equal(back.flow.redirect.mode, "loopback");
  assert.equal(back.flow.pasteBack, true);
  assert.match(
    back.announcement ?? "",
    /^loopback sign-in with the address pasted back: .* CRED_AUTH_REDIRECT_URI or redirectUri/,
  );
});

test("the caller's flow: no announcement, no paste-back verdict; a redirectUri elsewhere is copy-paste", () => {
  const loopback = plan({ useLocalWebserver: true }, { SSH_TTY: "/dev/pts/1" });
  assert.equal(loopback.flow.redirect.mode, "loopback");
  assert.equal(loopback.flow.pasteBack, undefined);
  assert.equal(loopback.announcement, undefined);
  assert.equal(plan({ useLocalWebserver: false }).flow.redirect.mode, "paste");
  const page = plan({ redirectUri: "https://org.example/code", clientId: "id", clientSecret: "s" });
  assert.deepEqual(page.flow.redirect, { mode: "paste", uri: "https://org.example/code" });
  assert.deepEqual(plan({ redirectUri: "http://127.0.0.1:9004/cb" }).flow.redirect, {
    mode: "loopback",
    host: "127.0.0.1",
    ports: { first: 9004, last: 9004 },
    path: "/cb",
  });
  assert.throws(
    () => plan({ useLocalWebserver: true, redirectUri: "https://org.example/oauth" }),
    (e: Error & { code?: string }) => e.code === ERROR_CODES.INVALID_OPTION && /not a loopback address/.test(e.message),
  );
});

test("loopbackTarget: host, port and path of a loopback redirect URI only", () => {
  assert.deepEqual(loopbackTarget("http://[::1]:9004/cb"), {
    host: "::1",
    ports: { first: 9004, last: 9004 },
    path: "/cb",
  });
  assert.equal(loopbackTarget("http://localhost:8/")?.host, "localhost");
  assert.equal(loopbackTarget("http://localhost:80/"), undefined, "port 80 is the default: no port in the URL");
  for (const uri of [
    "http://localhost/",
    "https://localhost:9/",
    "http://example.com:9/",
    "http://127.0.0.1:9/?x=1",
    "nonsense",
  ])
    assert.equal(loopbackTarget(uri), undefined, uri);
});

test("copy-paste needs a page that shows the code: the caller's, the emulator's, CRED_AUTH_REDIRECT_URI", () => {
  const google = { CRED_AUTH_EMULATOR_HOST: "", CRED_AUTH_CLIENT_ID: "id", CRED_AUTH_CLIENT_SECRET: "s" };
  const withEnvPage = plan(
    { useLocalWebserver: false },
    { ...google, CRED_AUTH_REDIRECT_URI: "https://env.example/o.html" },
  );
  assert.deepEqual(withEnvPage.flow.redirect, { mode: "paste", uri: "https://env.example/o.html" });
  assert.throws(
    () => plan({ useLocalWebserver: false }, google),
    (e: Error) =>
      e instanceof CredCredentialsError && /host docs\/oauth\.html .*CRED_AUTH_REDIRECT_URI/.test(e.message),
  );
  const own = { useLocalWebserver: false, clientId: "id", clientSecret: "s" };
  const uriOf = (redirectUri: string, env: NodeJS.ProcessEnv = google) => {
    const { redirect } = plan({ ...own, redirectUri }, env).flow;
    return redirect.mode === "paste" ? redirect.uri : undefined;
  };
  assert.equal(uriOf("  https://org.example/cb "), "https://org.example/cb", "trimmed");
  assert.equal(uriOf("   ", { ...google, CRED_AUTH_REDIRECT_URI: "http://h.example/p" }), "http://h.example/p");
  assert.equal(
    uriOf("HTTPS://org.example/cb", { CRED_AUTH_REDIRECT_URI: "http://h.example/p" }),
    "HTTPS://org.example/cb",
  );
  assert.throws(
    () => uriOf("javascript:alert(1)//https://x"),
    (e: Error) => e instanceof CredCredentialsError && /must be an http\(s\) address, not "javascript:/.test(e.message),
  );
  assert.throws(() => uriOf("ftp://org.example/https://"), /must be an http\(s\) address/);
});

test("ports: CRED_AUTH_LOOPBACK_PORTS, then the loopback-ports setting, then 8080-8089; nonsense is refused", () => {
  const portsOf = (env: NodeJS.ProcessEnv, settings: Settings = {}) => {
    const { redirect } = plan({ useLocalWebserver: true }, env, settings).flow;
    return redirect.mode === "loopback" ? redirect.ports : undefined;
  };
  assert.deepEqual(portsOf({}), { first: 8080, last: 8089 });
  assert.deepEqual(portsOf({ CRED_AUTH_LOOPBACK_PORTS: " 20000 - 20009 " }), { first: 20000, last: 20009 });
  assert.deepEqual(portsOf({ CRED_AUTH_LOOPBACK_PORTS: "20005" }), { first: 20005, last: 20005 });
  assert.deepEqual(portsOf({ CRED_AUTH_LOOPBACK_PORTS: "1-65535" }), { first: 1, last: 65535 });
  assert.deepEqual(portsOf({ CRED_AUTH_LOOPBACK_PORTS: "   " }, { "loopback-ports": "30000-30001" }), {
    first: 30000,
    last: 30001,
  });
  assert.deepEqual(portsOf({ CRED_AUTH_LOOPBACK_PORTS: "7-7" }, { "loopback-ports": "30000" }), { first: 7, last: 7 });
  for (const bad of ["0-5", "1-65536", "10-9", "20000-", "x20000", "20000-20009x", "123456", "abc"]) {
    assert.throws(
      () => portsOf({ CRED_AUTH_LOOPBACK_PORTS: bad }),
      (e: Error & { code?: string }) =>
        e instanceof CredCredentialsError &&
        e.code === ERROR_CODES.INVALID_OPTION &&
        e.message.includes(`CRED_AUTH_LOOPBACK_PORTS="${bad}" is not a port range`),
      bad,
    );
  }
});

test("remote: CRED_AUTH_REMOTE, then the remote setting, then the detection; each says why", () => {
  const inContainer = host({ inContainer: () => true });
  const runtime = (env: NodeJS.ProcessEnv, settings: Settings = {}, facts = inContainer) =>
    planSignIn({ scopes: [CLOUD], options: {} }, sources(env, settings, { host: facts }).sources).runtime;
  const forcedLocal = runtime({ CRED_AUTH_REMOTE: "0" }, { remote: true });
  assert.equal(forcedLocal.remote, false);
  assert.ok(forcedLocal.reasons.includes("local: CRED_AUTH_REMOTE=0"), forcedLocal.reasons.join("; "));
  assert.equal(runtime({ CRED_AUTH_REMOTE: "1" }, { remote: false }, host()).remote, true);
  const setting = runtime({ CRED_AUTH_REMOTE: "yes" }, { remote: false });
  assert.equal(setting.remote, false, "a value other than 0 or 1 is no word: the setting decides");
  assert.ok(setting.reasons.includes("local: the remote setting (cred-auth config)"));
  assert.equal(runtime({}, {}).remote, true, "no word: the detection (a container)");
  assert.equal(runtime({}, {}, host()).remote, false);
});

test("the face: the presenter option, then the ui setting, then auto for where the code runs", () => {
  const face = (options: SaveUserCredentialsOptions, settings: Settings = {}, where: Partial<PlanSources> = {}) =>
    planSignIn({ scopes: [CLOUD], options }, sources({}, settings, where).sources).face;
  const pipe = { host: host({ stdinIsTTY: false }) };
  assert.deepEqual(face({}, {}, pipe), {
    face: "plain",
    fallback: true,
    color: true,
    prompt: "stdin",
    codeEntry: "second-cell",
    notes: [NOTICE],
    details: [
      planSignIn({ scopes: [CLOUD], options: {} }, sources({}, {}, pipe).sources).announcement,
      MESSAGES.googleErrorPage,
    ],
  });
  assert.equal(face({}, {}, { globals: { __tslab__: {} } }).face, "tslab");
  assert.equal(face({}, {}, { globals: { Deno: { jupyter: {} } } }).face, "deno");
  assert.equal(face({}, { ui: "plain" }).face, "plain");
  assert.equal(face({}, { ui: "plain" }).fallback, false);
  assert.equal(face({ presenter: "terminal" }, { ui: "plain" }, pipe).face, "terminal");
  assert.equal(face({ presenter: "auto" }, { ui: "plain" }).face, "terminal", "an explicit auto beats the setting");
  assert.equal(face({ presenter: "notebook" }, {}, { globals: { __tslab__: {} } }).face, "tslab");
  const own: Presenter = { update() {} };
  assert.equal(face({ presenter: own }).face, own);
  assert.throws(
    () => face({ presenter: "notebook" }),
    (e: Error & { code?: string }) => e.code === ERROR_CODES.PRESENTER_UNAVAILABLE,
  );
  const noColor = planSignIn({ scopes: [CLOUD], options: {} }, sources({ NO_COLOR: "1" }).sources).face;
  assert.equal(noColor.color, false);
  assert.deepEqual(planFace({}, sources({}, { ui: "plain" }).sources), {
    face: "plain",
    fallback: false,
    color: true,
    prompt: "stderr",
    codeEntry: "second-cell",
    notes: [],
    details: [],
  });
});

test("the browser: the openBrowser option, else where the code runs; BROWSER names the command, none never", () => {
  assert.equal(plan({ openBrowser: false }).flow.browser, "none");
  assert.equal(plan({}, { BROWSER: "firefox --new-window" }).flow.browser.toString(), "[object Object]");
  assert.deepEqual(plan({}, { BROWSER: " firefox --new-window " }).flow.browser, { command: "firefox --new-window" });
  assert.equal(plan({ openBrowser: true }, { BROWSER: "None" }).flow.browser, "none");
  assert.equal(plan({}, { CI: "true" }).flow.browser, "none");
  assert.equal(plan({ openBrowser: true }, { CI: "true" }).flow.browser, "system");
});

test("scopes: the caller's, else the scopes setting, else cloud-platform; checked; impersonation signs in for cloud-platform", () => {
  const fromSettings = planSignIn({ options: {} }, sources({}, { scopes: ["openid", "email"] }).sources);
  assert.deepEqual(fromSettings.scopes, ["openid", "email"]);
  assert.deepEqual(fromSettings.flow.scopes, ["openid", "email"], "email is userinfo.email: nothing to add");
  assert.deepEqual(planSignIn({ options: {} }, sources().sources).scopes, [CLOUD]);
  assert.deepEqual(plan({ includeAccountScopes: false }).flow.scopes, [CLOUD]);
  assert.throws(() => planSignIn({ options: {} }, sources({}, { scopes: ["bigquery"] }).sources), {
    code: ERROR_CODES.INVALID_SCOPE,
  });
  const chain = { target: "sa@p.iam.gserviceaccount.com", delegates: [] };
  const bigquery = "https://www.googleapis.com/auth/bigquery";
  const acting = planSignIn({ scopes: [bigquery], options: {}, impersonation: chain }, sources().sources);
  assert.deepEqual(acting.scopes, [bigquery]);
  assert.deepEqual(acting.flow.scopes, [CLOUD, ...ACCOUNT_SCOPES]);
  assert.equal(acting.impersonation, chain);
  assert.deepEqual(withAccountScopes(["profile", ACCOUNT_SCOPES[1]!], true), ["profile", ACCOUNT_SCOPES[1], "openid"]);
});

test("the timeout and login hint are the caller's", () => {
  const p = plan({ timeoutMs: 5000, loginHint: "bob@example.com" });
  assert.equal(p.flow.timeoutMs, 5000);
  assert.equal(p.flow.loginHint, "bob@example.com");
});

test("the settings are asked for only where the options and the environment leave a decision open", () => {
  const everything = {
    clientId: "id",
    clientSecret: "s",
    presenter: "plain" as const,
    useLocalWebserver: true,
  };
  const quiet = sources({ CRED_AUTH_REMOTE: "0", CRED_AUTH_LOOPBACK_PORTS: "20000" });
  planSignIn({ scopes: [CLOUD], options: everything }, quiet.sources);
  assert.equal(quiet.read.count, 0);
  const open = sources();
  planSignIn({ scopes: [CLOUD], options: {} }, open.sources);
  assert.ok(open.read.count > 0);
});

test("planSources reads the settings file on first use and keeps what it read", () => {
  const source = planSources({ XDG_CONFIG_HOME: "/nonexistent/cred-auth-test" });
  const first = source.settings();
  assert.deepEqual(first, {});
  assert.equal(source.settings(), first, "the same object: read once");
});

test("a plan detects the runtime once: the container check runs once per sign-in", () => {
  let checks = 0;
  const facts = host({
    inContainer: () => {
      checks++;
      return false;
    },
  });
  planSignIn({ scopes: [CLOUD], options: {} }, sources({}, {}, { host: facts }).sources);
  assert.equal(checks, 1);
});

test("no OAuth client at Google: gcloud's sign-in named first when gcloud is on PATH (with --scopes beyond its own), then config init", async () => {
  const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const bin = mkdtempSync(join(tmpdir(), "cred-auth-gcloud-"));
  try {
    writeFileSync(join(bin, "gcloud"), "#!/bin/sh\n", { mode: 0o755 });
    const refusal = (path: string, scopes = [CLOUD]) => {
      try {
        planSignIn({ scopes, options: {} }, { env: { PATH: path }, settings: () => ({}) });
      } catch (error) {
        assert.equal((error as CredCredentialsError).code, ERROR_CODES.NO_OAUTH_CLIENT);
        return (error as Error).message;
      }
      assert.fail("no client: the plan refuses");
    };
    assert.match(
      refusal(bin),
      new RegExp(
        `^No OAuth client configured: run \`gcloud auth application-default login --scopes=${CLOUD}\`, or make your own client with \`cred-auth config init\``,
      ),
    );
    const drive = "https://www.googleapis.com/auth/drive.readonly";
    assert.match(refusal(bin, [drive]), new RegExp(`login --scopes=${CLOUD},${drive}\``));
    assert.match(
      refusal("/nonexistent"),
      /^No OAuth client configured: `cred-auth config init` creates your own client once/,
    );
    assert.doesNotMatch(refusal("/nonexistent"), /gcloud/);
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});
