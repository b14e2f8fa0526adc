import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { CredCredentialsError, ERROR_CODES } from "cred-auth";
import type { Presenter, SaveUserCredentialsOptions } from "cred-auth";
import { planFace } from "../../dist/credentials/sign-in/plan.js";
import type { HostFacts } from "../../dist/runtime/detect.js";
import { type FacePlan, selectPresenter } from "../../dist/ui/select.js";

const PIPE: HostFacts = {
  platform: "linux",
  stdinIsTTY: false,
  stdoutIsTTY: false,
  stderrIsTTY: false,
  hostname: "box",
  inContainer: () => false,
};

/** The face the plan chooses for `presenter` where the globals are `globals` (no settings file, no terminal). */
function faceFor(
  presenter: SaveUserCredentialsOptions["presenter"],
  globals: object,
  env: NodeJS.ProcessEnv = {},
): FacePlan {
  return planFace(presenter === undefined ? {} : { presenter }, { env, settings: () => ({}), globals, host: PIPE });
}

/** Runs `body` with extra globals, removing them afterwards. */
async function withGlobals<T>(globals: Record<string, unknown>, body: () => Promise<T>): Promise<T> {
  const target = globalThis as Record<string, unknown>;
  const before = Object.keys(globals).map((key) => [key, Object.getOwnPropertyDescriptor(target, key)] as const);
  for (const [key, value] of Object.entries(globals))
    Object.defineProperty(target, key, { value, configurable: true, writable: true });
  try {
    return await body();
  } finally {
    for (const [key, descriptor] of before) {
      if (descriptor) Object.defineProperty(target, key, descriptor);
      else delete target[key];
    }
  }
}

/** Captures what is written to process.stderr while `body` runs. */
async function stderrOf(body: () => Promise<void> | void): Promise<string> {
  const original = process.stderr.write;
  let written = "";
  process.stderr.write = ((chunk: string | Uint8Array) => {
    written += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    await body();
  } finally {
    process.stderr.write = original;
  }
  return written;
}

test("a Presenter object is used as given", async () => {
  const mine: Presenter = { update() {} };
  assert.equal(await selectPresenter(faceFor(mine, {})), mine);
});

test("auto in tslab: the kernel's notebook display", async () => {
  const shown: string[] = [];
  const kernel = {
    require: (id: string) =>
      id === "tslab" ? { newDisplay: () => ({ html: (h: string) => void shown.push(h) }) } : undefined,
  };
  await withGlobals({ __tslab__: kernel }, async () => {
    const presenter = await selectPresenter(faceFor("auto", globalThis));
    assert.equal(presenter.readCode, undefined);
    presenter.update({ type: "waiting" });
    assert.equal(shown.length, 1);
    assert.match(shown[0]!, /data-cred-auth-status="waiting"/);
  });
});

test("auto under Deno's kernel: Deno.jupyter.display", async () => {
  const shown: unknown[] = [];
  const Deno = { jupyter: { display: async (bundle: unknown) => void shown.push(bundle) } };
  await withGlobals({ Deno }, async () => {
    const presenter = await selectPresenter(faceFor(undefined, globalThis));
    presenter.update({ type: "waiting" });
    assert.equal(shown.length, 1);
  });
});

test("auto in a pipe or another kernel: plain lines on stderr", async () => {
  for (const [kind, env] of [
    ["pipe", {}],
    ["jupyter", { JPY_PARENT_PID: "1" }],
  ] as const) {
    const presenter = await selectPresenter(faceFor("auto", {}, env));
    const written = await stderrOf(() =>
      presenter.update({
        type: "url",
        url: "http://127.0.0.1:9/auth",
        mode: "loopback",
        scopes: [],
        browserOpened: false,
      }),
    );
    assert.match(written, /http:\/\/127\.0\.0\.1:9\/auth/, kind);
    assert.equal(typeof presenter.readCode, "function");
  }
});

test("auto in tslab without a reachable kernel display falls back to plain", async () => {
  const presenter = await selectPresenter(faceFor("auto", { __tslab__: { require: () => undefined } }));
  const written = await stderrOf(() => presenter.update({ type: "waiting" }));
  assert.match(written, /Waiting/);
});

test("plain is plain even in a notebook", async () => {
  await withGlobals({ __tslab__: { require: () => assert.fail("tslab must not be used") } }, async () => {
    const presenter = await selectPresenter(faceFor("plain", globalThis));
    const written = await stderrOf(() => presenter.update({ type: "waiting" }));
    assert.match(written, /Waiting/);
  });
});

test("notebook outside a notebook kernel: a clear error, when the sign-in is planned", () => {
  assert.throws(
    () => faceFor("notebook", {}),
    (error: Error) => error instanceof CredCredentialsError && error.code === ERROR_CODES.PRESENTER_UNAVAILABLE,
  );
});

test("a planned face that cannot start: plain lines when it was chosen automatically, the error when forced", async () => {
  const broken: FacePlan = {
    face: "tslab",
    fallback: false,
    color: true,
    prompt: "stdin",
    codeEntry: "second-cell",
    notes: [],
    details: [],
  };
  await assert.rejects(selectPresenter(broken), Error);
  const written = await stderrOf(async () =>
    (await selectPresenter({ ...broken, fallback: true })).update({ type: "waiting" }),
  );
  assert.match(written, /Waiting/);
});

test("importing cred-auth loads neither ink nor React", () => {
  const script = `require("cred-auth"); const loaded = Object.keys(require.cache).filter((f) => /node_modules[\\\\/](react|ink|ink-text-input|tslab)[\\\\/]/.test(f)); process.stdout.write(JSON.stringify(loaded));`;
  const run = spawnSync(process.execPath, ["-e", script], { cwd: new URL("../..", import.meta.url), encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), []);
  const esm = `await import("cred-auth"); const { createRequire } = await import("node:module"); const r = createRequire(process.cwd() + "/"); process.stdout.write(JSON.stringify(Object.keys(r.cache).filter((f) => /node_modules[\\\\/](react|ink)[\\\\/]/.test(f))));`;
  const runEsm = spawnSync(process.execPath, ["--input-type=module", "-e", esm], {
    cwd: new URL("../..", import.meta.url),
    encoding: "utf8",
  });
  assert.equal(runEsm.status, 0, runEsm.stderr);
  assert.deepEqual(JSON.parse(runEsm.stdout), []);
});
