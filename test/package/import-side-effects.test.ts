// Importing cred-auth (ESM and CommonJS) must do no file-system or network I/O and load none of
// the heavy dependencies. A child process runs with a preload (--import) that records every
// module loaded (module.registerHooks, Node >= 22.15) and every public fs / net / http / dns /
// fetch call, with HOME missing or read-only.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const HEAVY = [
  "google-auth-library",
  "gaxios",
  "gtoken",
  "conf",
  "atomically",
  "ink",
  "ink-text-input",
  "react",
  "tslab",
  "node-fetch",
  "open",
];

const work = mkdtempSync(join(tmpdir(), "cred-auth-import-"));
after(() => {
  chmodSync(join(work, "readonly-home"), 0o755);
  rmSync(work, { recursive: true, force: true });
});

const probe = join(work, "probe.mjs");
writeFileSync(
  probe,
  `
import * as fs from "node:fs";
import { createRequire, registerHooks, syncBuiltinESMExports } from "node:module";
import { fileURLToPath } from "node:url";
const report = { modules: [], io: [] };
globalThis.__probe = report;
if (typeof registerHooks !== "function") throw new Error("module.registerHooks is missing: Node >= 22.15 is required");
registerHooks({
  load(url, context, nextLoad) {
    report.modules.push(url);
    return nextLoad(url, context);
  },
});
const calls = [];
const record = (what) => (...args) => {
  // Calls on an already open fd are left out: the open that produced it is what counts.
  if (typeof args[0] === "number") return;
  calls.push([what, args[0] instanceof URL ? fileURLToPath(args[0]) : String(args[0])]);
};
// Module loading itself resolves and reads the modules' files through public fs (which calls,
// depends on the Node version): calls on files that were loaded as modules, or on package.json
// files, are the loader's.
const loaderCall = ([, path], modules) => modules.has(path) || path.endsWith("/package.json");
function wrap(object, name, label) {
  const original = object[name];
  if (typeof original !== "function" || /^[A-Z]/.test(name)) return;
  const note = record(label + name);
  object[name] = function (...args) { note(...args); return original.apply(this, args); };
}
for (const name of Object.keys(fs)) if (name !== "promises") wrap(fs.default ?? fs, name, "fs.");
for (const name of Object.keys(fs.promises)) wrap(fs.promises, name, "fs.promises.");
const require = createRequire(import.meta.url);
for (const mod of ["net", "http", "https", "dns", "tls", "child_process"]) {
  const m = require("node:" + mod);
  for (const name of ["connect", "createConnection", "request", "get", "lookup", "resolve", "spawn", "exec", "execFile", "fork", "spawnSync", "execSync", "execFileSync"]) wrap(m, name, mod + ".");
}
syncBuiltinESMExports();
const fetch = globalThis.fetch;
globalThis.fetch = (...args) => { report.io.push("fetch " + String(args[0])); return fetch(...args); };
process.on("exit", () => {
  const modules = new Set(report.modules.filter((url) => url.startsWith("file:")).map((url) => fileURLToPath(url)));
  report.io = calls.filter((call) => !loaderCall(call, modules)).map(([what, path]) => what + " " + path.slice(0, 200));
  process.stdout.write("\\n@@" + JSON.stringify(report));
});
`,
);

interface Report {
  modules: string[];
  io: string[];
}

/** Runs `script` with the probe; HOME and friends point at `home`. */
function run(script: string, home: string, esm: boolean): Report {
  const args = ["--import", pathToFileURL(probe).href, ...(esm ? ["--input-type=module"] : []), "-e", script];
  const env = {
    ...process.env,
    HOME: home,
    USERPROFILE: home,
    APPDATA: join(home, "AppData"),
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
  };
  // cwd is the repo so the eval script resolves "cred-auth" by self-reference, as the package is seen from inside.
  const child = spawnSync(process.execPath, args, { env, cwd: repo, encoding: "utf8" });
  assert.equal(child.status, 0, child.stderr);
  const line = child.stdout.split("\n@@").at(-1);
  return JSON.parse(line ?? "{}") as Report;
}

// After the import, let any promise or timer a module started at load time run before reporting.
const settle = "await new Promise((r) => setTimeout(r, 50)); await new Promise((r) => setImmediate(r));";
const requireFromRepo = `require("node:module").createRequire(${JSON.stringify(join(repo, "package.json"))})`;
const ESM = `const m = await import("cred-auth"); if (typeof m.default !== "function" || !m.cache.READ_WRITE) throw new Error("bad"); ${settle}`;
const CJS = `(async () => { const m = ${requireFromRepo}("cred-auth"); if (typeof m.default !== "function" || !m.cache.READ_WRITE) throw new Error("bad"); ${settle} })();`;

/** The heavy packages loaded, installed or built into dist/vendor/ (ink, React, conf, open: scripts/build.mjs). */
function heavyLoaded(report: Report): string[] {
  return report.modules.filter(
    (url) => url.includes("/dist/vendor/") || HEAVY.some((name) => url.includes(`/node_modules/${name}/`)),
  );
}

const missingHome = join(work, "no-such-home");
const readonlyHome = join(work, "readonly-home");
mkdirSync(readonlyHome);
chmodSync(readonlyHome, 0o555);

for (const [label, script, esm] of [
  ["import", ESM, true],
  ["require", CJS, false],
] as const) {
  for (const [homeLabel, home] of [
    ["missing", missingHome],
    ["read-only", readonlyHome],
  ] as const) {
    test(`${label}("cred-auth") with a ${homeLabel} HOME: no I/O, no heavy module`, () => {
      const report = run(script, home, esm);
      assert.ok(
        report.modules.some((url) => url.includes("/dist/index.")),
        "the probe saw the package load",
      );
      assert.ok(
        report.modules.some((url) => url.includes("/dist/credentials-cache/")),
        "the probe saw the package's own modules",
      );
      assert.deepEqual(heavyLoaded(report), []);
      assert.deepEqual(report.io, []);
      assert.deepEqual(readdirSync(readonlyHome), []);
    });
  }
}

test("the probe notices a heavy module and I/O (positive control)", () => {
  const report = run(
    `await import("google-auth-library"); await import(${JSON.stringify(pathToFileURL(join(repo, "dist/vendor/react.js")).href)}); (await import("node:fs")).existsSync(process.env.HOME + "/.config"); ${settle}`,
    missingHome,
    true,
  );
  assert.ok(heavyLoaded(report).some((url) => url.includes("google-auth-library")));
  assert.ok(
    heavyLoaded(report).some((url) => url.endsWith("/dist/vendor/react.js")),
    "a vendored package is seen",
  );
  assert.ok(
    report.io.some((line) => line.startsWith("fs.existsSync") && line.includes("no-such-home")),
    JSON.stringify(report.io),
  );
});

// src/index.ts loads the credentials machinery on a function's first call (bench/README.md,
// targets 1 and 9), and the caches what they read and write with on first use: the import loads
// the errors, the caches and the version only.
const MACHINERY =
  /\/dist\/(credentials|hosted|ui|runtime|settings|formats|protocols|token-cache)\/|\/dist\/oauth\/(?!pending\.js)/;

test("importing cred-auth loads none of the credentials machinery; a first call loads its module", () => {
  const script = `const m = ${requireFromRepo}("cred-auth");
    if (m.default !== m.defaultCredentials) throw new Error("default is not defaultCredentials");
    if (m.getUserCredentials.name !== "getUserCredentials") throw new Error("a forwarder lost its name");
    const before = Object.keys(require.cache).filter((f) => f.includes("/dist/"));
    const remove = m.registerHostedEnvironment({ name: "probe", detect: () => false, credentials: async () => { throw new Error("unused"); } });
    remove();
    const after = Object.keys(require.cache).filter((f) => f.includes("/dist/"));
    process.stdout.write("\\n@@" + JSON.stringify({ before, after }));`;
  const child = spawnSync(process.execPath, ["-e", script], { cwd: repo, encoding: "utf8" });
  assert.equal(child.status, 0, child.stderr);
  const { before, after } = JSON.parse(child.stdout.split("\n@@").at(-1) ?? "{}") as Record<string, string[]>;
  assert.ok(
    before.some((file) => file.endsWith("/dist/credentials-cache/disk.js")),
    "the probe saw the package's own modules",
  );
  assert.deepEqual(
    before.filter((file) => MACHINERY.test(file)),
    [],
  );
  assert.ok(
    after.some((file) => file.endsWith("/dist/hosted/registry.js")),
    after.join("\n"),
  );
});
