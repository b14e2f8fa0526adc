// What issue 26 added to the sign-in plan (credentials/sign-in/plan.ts): the face for the terminal it
// finds (TERM=dumb, NO_COLOR, where a prompt reads and writes), how a notebook takes the code and
// what its first cell returns, the flow line's advice for this client and this machine, Google's
// known scopes, the client check, and the account note on a cache hit. All plain values.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { CredCredentialsError, ERROR_CODES, type Presenter, type SaveUserCredentialsOptions } from "cred-auth";
import { planAccountNote } from "../../dist/credentials/sign-in/account-note.js";
import { type PlanSources, planSignIn } from "../../dist/credentials/sign-in/plan.js";
import type { HostFacts } from "../../dist/runtime/detect.js";
import type { Settings } from "../../dist/settings/keys.js";
import { hostFacts as host } from "../support/host.ts";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const EMULATOR = { CRED_AUTH_EMULATOR_HOST: "127.0.0.1:9" };
const TSLAB = { __tslab__: { require() {} } };
const DENO = { Deno: { jupyter: { display() {} } } };
const dir = mkdtempSync(join(tmpdir(), "cred-auth-plan-faces-"));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Where {
  env?: NodeJS.ProcessEnv;
  settings?: Settings;
  globals?: object;
  host?: Partial<HostFacts>;
}

function sources({ env = {}, settings = {}, globals = {}, host: facts = {} }: Where = {}): PlanSources {
  return {
    env: { DISPLAY: ":0", TERM: "xterm-256color", ...EMULATOR, ...env },
    settings: () => settings,
    globals,
    host: host(facts),
  };
}

const plan = (options: SaveUserCredentialsOptions = {}, where: Where = {}, scopes = [CLOUD]) =>
  planSignIn({ scopes, options }, sources(where));

/** A Desktop ("installed") client-secret file, as the console downloads it. */
function desktopClient(): string {
  const path = join(dir, "desktop.json");
  writeFileSync(path, JSON.stringify({ installed: { client_id: "d-id", client_secret: "d-secret" } }));
  return path;
}

test("TERM=dumb, or no TERM at all: plain lines, no colour; a terminal that can redraw gets the ink face", () => {
  assert.equal(plan().face.face, "terminal");
  for (const term of ["dumb", "", undefined]) {
    const face = plan({}, { env: { TERM: term } }).face;
    assert.equal(face.face, "plain", `TERM=${term}`);
    assert.equal(face.color, false, `TERM=${term}`);
  }
  assert.equal(plan({}, { env: { TERM: undefined }, host: { platform: "win32" } }).face.face, "terminal");
  assert.ok(plan({}, { env: { TERM: "dumb" } }).runtime.reasons.includes("no cursor control: TERM=dumb"));
  assert.equal(plan({ presenter: "terminal" }, { env: { TERM: "dumb" } }).face.face, "terminal", "asked for");
});

test("NO_COLOR (set and not empty, no-color.org) turns colour off on every face", () => {
  for (const where of [{}, { host: { stdinIsTTY: false } }, { globals: TSLAB }]) {
    assert.equal(plan({}, { ...where, env: { NO_COLOR: "1" } }).face.color, false);
  }
  assert.equal(plan({}, { env: { NO_COLOR: "" } }).face.color, true, "empty: as if unset");
});

test("the prompt reads and writes the terminal; with stderr redirected, the controlling terminal; a pipe without echo", () => {
  assert.equal(plan().face.prompt, "stderr");
  const logged = plan({}, { host: { stderrIsTTY: false } }).face;
  assert.equal(logged.face, "plain", "stderr is a file: no live face there");
  assert.equal(logged.prompt, "tty", "what is typed goes to /dev/tty, never into the log");
  assert.equal(plan({}, { host: { stdinIsTTY: false } }).face.prompt, "stdin");
  assert.equal(plan({}, { env: { CI: "true" } }).face.prompt, "stdin", "CI: nobody at a terminal");
});

test("notebooks: the first cell returns credentials (whenPending), Deno takes a code with prompt() but an address in the next cell", () => {
  const tslab = plan({}, { globals: TSLAB, env: { CRED_AUTH_REMOTE: "1" } });
  assert.equal(tslab.face.face, "tslab");
  assert.equal(tslab.whenPending, "return", "the cell ends normally: tslab would drop the next one");
  assert.equal(tslab.face.codeEntry, "second-cell");
  const denoPaste = plan({}, { globals: DENO, env: { CRED_AUTH_REMOTE: "1" } });
  assert.equal(denoPaste.flow.redirect.mode, "paste");
  assert.equal(denoPaste.face.codeEntry, "prompt", "copy-paste: the kernel's input box");
  const denoBack = plan({}, { globals: DENO, env: { CRED_AUTH_REMOTE: "1", CRED_AUTH_EMULATOR_CODE_PAGE: "off" } });
  assert.equal(denoBack.flow.pasteBack, true);
  assert.equal(denoBack.face.codeEntry, "second-cell", "beside the loopback wait: prompt() would hold the kernel");
  assert.equal(denoBack.whenPending, "return");
  assert.equal(plan({ whenPending: "throw" }, { globals: TSLAB }).whenPending, "throw", "the caller's word");
  const own: Presenter = { update() {} };
  assert.equal(plan({ presenter: own }, { globals: TSLAB }).whenPending, "throw", "a program's own presenter");
  assert.equal(plan().whenPending, "throw");
});

test("the flow line names what works for this client here: CRED_AUTH_REMOTE=0 in a container, no code page for a Desktop client", () => {
  const container = plan({}, { host: { inContainer: () => "/.dockerenv" } });
  assert.equal(container.flow.redirect.mode, "paste", "the emulator's code page");
  assert.match(container.announcement ?? "", /this machine looks remote \(inside a container \(\/\.dockerenv\)\)/);
  assert.match(container.announcement ?? "", /if the browser runs on this machine, CRED_AUTH_REMOTE=0/);
  assert.doesNotMatch(
    plan({}, { env: { SSH_TTY: "/dev/pts/1" } }).announcement ?? "",
    /CRED_AUTH_REMOTE=0/,
    "SSH is no guess",
  );

  const desktop = { CRED_AUTH_CLIENT_SECRET_FILE: desktopClient() };
  const remote = plan({}, { env: { ...desktop, SSH_TTY: "/dev/pts/1" } });
  assert.equal(remote.flow.client.kind, "desktop");
  assert.deepEqual(
    [remote.flow.redirect.mode, remote.flow.pasteBack],
    ["loopback", true],
    "a Desktop client is never sent to a code page, even the emulator's",
  );
  assert.match(
    remote.announcement ?? "",
    /^loopback sign-in with the address pasted back: .* a Desktop client has no code page\.$/,
  );
  assert.doesNotMatch(remote.announcement ?? "", /REDIRECT_URI|redirectUri|no-use-local-webserver/);
  const local = plan({}, { env: desktop });
  assert.doesNotMatch(local.announcement ?? "", /no-use-local-webserver|useLocalWebserver: false/);
  assert.match(local.announcement ?? "", /CRED_AUTH_REMOTE=1/);
  const unknownKind = plan({}, { env: { SSH_TTY: "/dev/pts/1", CRED_AUTH_EMULATOR_CODE_PAGE: "off" } });
  assert.match(
    unknownKind.announcement ?? "",
    /CRED_AUTH_REDIRECT_URI or redirectUri \(--redirect-uri\) names a code page/,
  );
});

test("the copy-paste flow asked for with no code page says what works instead", () => {
  assert.throws(
    () => plan({ useLocalWebserver: false }, { env: { CRED_AUTH_EMULATOR_CODE_PAGE: "off" } }),
    (e: Error & { code?: string }) =>
      e.code === ERROR_CODES.INVALID_OPTION &&
      /Google has none for a Desktop client: leave useLocalWebserver/.test(e.message) &&
      /CRED_AUTH_REMOTE=1/.test(e.message),
  );
});

test("scopes: a typo of one of Google's is refused with did you mean; an unknown one is let through with a note", () => {
  assert.throws(
    () => plan({}, {}, ["https://www.googleapis.com/auth/cloud-platfrom"]),
    (e: Error & { code?: string }) =>
      e instanceof CredCredentialsError &&
      e.code === ERROR_CODES.INVALID_SCOPE &&
      e.message.includes("did you mean https://www.googleapis.com/auth/cloud-platform?") &&
      /CRED_AUTH_SCOPE_CHECK=off/.test(e.message),
  );
  for (const typo of ["devstorage.readonly", "Cloud-Platform", "bigqery", "cloud-platform/"])
    assert.throws(() => plan({}, {}, [`https://www.googleapis.com/auth/${typo}`]), /did you mean/, typo);
  const unknown = "https://www.googleapis.com/auth/zz-not-a-google-scope";
  const note = plan({}, {}, [unknown]).face.notes.at(-1) ?? "";
  assert.match(
    note,
    /zz-not-a-google-scope is not among the scopes of Google's API discovery documents of \d{4}-\d\d-\d\d/,
  );
  for (const known of ["sqlservice.login", "accounts.reauth", "drive.file", "userinfo.email", "bigquery"])
    assert.doesNotThrow(() => plan({}, {}, [`https://www.googleapis.com/auth/${known}`]), known);
  assert.doesNotThrow(() => plan({}, {}, ["https://mail.google.com/", "openid", "email"]), "outside the prefix");
  const off = plan({}, { env: { CRED_AUTH_SCOPE_CHECK: "off" } }, ["https://www.googleapis.com/auth/cloud-platfrom"]);
  assert.deepEqual(off.flow.scopes.slice(0, 1), ["https://www.googleapis.com/auth/cloud-platfrom"], "the way out");
});

test("the client check: always at the emulator; at Google until this process has seen the client answered", () => {
  assert.equal(plan().flow.checkClient, true);
  const google = { CRED_AUTH_EMULATOR_HOST: "", CRED_AUTH_CLIENT_ID: "never-checked", CRED_AUTH_CLIENT_SECRET: "s" };
  assert.equal(plan({}, { env: google }).flow.checkClient, true);
});

test("the account note on a cache hit: in a notebook kernel, unless the option or the setting turns it off", () => {
  const note = (options: Parameters<typeof planAccountNote>[0], where: Where = {}) =>
    planAccountNote(options, sources(where));
  assert.equal(note({}), undefined, "a terminal: no note");
  assert.equal(note({}, { globals: TSLAB }), "tslab");
  assert.equal(note({}, { globals: DENO }), "deno");
  assert.equal(note({ accountNote: false }, { globals: TSLAB }), undefined);
  assert.equal(note({}, { globals: TSLAB, settings: { "account-note": false } }), undefined, "the setting");
  assert.equal(note({ accountNote: true }, { globals: TSLAB, settings: { "account-note": false } }), "tslab");
  assert.equal(note({ presenter: "plain" }, { globals: TSLAB }), undefined, "asked for plain lines");
  let reads = 0;
  const counting = (): Settings => {
    reads++;
    return {};
  };
  planAccountNote({}, { ...sources(), settings: counting });
  assert.equal(reads, 0, "outside a notebook the settings file is not even read");
});
