// print-token's cached path is the hot path of shell scripts: it must load no package at all
// (google-auth-library, conf, ink, react, node-fetch, open...), only a handful of our modules.
// A preload script records every module resolved (require and import) and require.cache at exit.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { withEmulator } from "../support/emulator.ts";
import { runCli, sandbox, serviceAccountFile, userFile, type Sandbox } from "./support.ts";

const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));
const HEAVY = [
  "google-auth-library",
  "gaxios",
  "gcp-metadata",
  "conf",
  "ink",
  "react",
  "node-fetch",
  "open",
  "tslab",
  "jws",
  "@napi-rs/keyring", // the keychain: read only when a refresh token is (docs/caching.md)
];
/**
 * The dist modules the cached path may load: the bin (dist/cli.js, which turns on the compile
 * cache) and the bundle `npm run build` makes of the whole command line with esbuild
 * (dist/cli-bundle.js: dispatcher, print-token, token cache, credentials-file reader, and the
 * cold paths behind lazy requires). Nothing else of cred-auth.
 */
const ALLOWED = ["cli-bundle.js", "cli.js"];

const RECORDER = `
const Module = require("node:module");
const { writeFileSync } = require("node:fs");
const { fileURLToPath } = require("node:url");
const seen = new Set();
if (typeof Module.registerHooks !== "function") throw new Error("module.registerHooks is needed to watch imports");
Module.registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    seen.add(result.url.startsWith("file:") ? fileURLToPath(result.url) : result.url);
    return result;
  },
});
process.on("exit", () => {
  for (const file of Object.keys(require.cache)) seen.add(file);
  writeFileSync(process.env.RECORD_MODULES_TO, JSON.stringify([...seen]));
});
`;

async function loadedBy(
  box: Sandbox,
  args: string[],
): Promise<{ code: number | null; stderr: string; modules: string[] }> {
  const recorder = join(box.dir, "record-modules.cjs");
  const record = join(box.dir, `modules-${Math.random()}.json`);
  writeFileSync(recorder, RECORDER);
  const r = await runCli(args, { ...box.env, RECORD_MODULES_TO: record }, { nodeArgs: ["--require", recorder] });
  return { code: r.code, stderr: r.stderr, modules: JSON.parse(readFileSync(record, "utf8")) as string[] };
}

function packagesIn(modules: string[]): string[] {
  const names = new Set<string>();
  for (const m of modules) {
    const match = /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(m);
    if (match) names.add(match[1]!.replace("\\", "/"));
  }
  return [...names].sort();
}

function distFilesIn(modules: string[]): string[] {
  return modules
    .filter((m) => m.startsWith(DIST))
    .map((m) => relative(DIST, m).split("\\").join("/"))
    .sort();
}

test("print-token with a cached token loads no package and only the allowed modules; the refresh path loads google-auth-library", async () => {
  const emu = await withEmulator();
  const box = sandbox(emu);
  const { path } = await userFile(emu, box);
  const { path: keyPath } = serviceAccountFile(emu, box);

  for (const credentials of [path, keyPath]) {
    // The recorder must be able to see google-auth-library, or the assertions below prove nothing.
    const refresh = await loadedBy(box, ["print-token", credentials]);
    assert.equal(refresh.code, 0, refresh.stderr);
    assert.ok(
      packagesIn(refresh.modules).includes("google-auth-library"),
      `refresh loaded: ${packagesIn(refresh.modules)}`,
    );

    for (const args of [
      ["print-token", credentials],
      ["print-token", credentials, "--format", "json"],
      ["print-token", credentials, "--header"],
    ]) {
      const cached = await loadedBy(box, args);
      assert.equal(cached.code, 0, cached.stderr);
      const packages = packagesIn(cached.modules);
      assert.deepEqual(packages, [], `the cached path loaded packages: ${packages.join(", ")}`);
      for (const heavy of HEAVY)
        assert.ok(!cached.modules.some((m) => m.includes(`${heavy}`) && m.includes("node_modules")), heavy);
      assert.deepEqual(
        distFilesIn(cached.modules),
        ALLOWED,
        "the cached path loads the bundle and errors.js, nothing else of cred-auth",
      );
    }
  }
});

test("print-identity-token with a cached ID token loads no package either; a new one loads google-auth-library", async () => {
  const emu = await withEmulator();
  const box = sandbox(emu);
  const { path } = serviceAccountFile(emu, box);
  const args = ["print-identity-token", path, "--audiences", "https://hello-abc123-uc.a.run.app"];
  const first = await loadedBy(box, args);
  assert.equal(first.code, 0, first.stderr);
  assert.ok(
    packagesIn(first.modules).includes("google-auth-library"),
    `a new token loaded: ${packagesIn(first.modules)}`,
  );
  const cached = await loadedBy(box, args);
  assert.equal(cached.code, 0, cached.stderr);
  assert.deepEqual(packagesIn(cached.modules), [], "the cached path loaded packages");
  assert.deepEqual(distFilesIn(cached.modules), ALLOWED);
});

test("help, --version and usage errors load no package either", async () => {
  const box = sandbox();
  const newCommands = [
    ["print-identity-token", "--help"],
    ["status", "--help"],
    ["revoke", "--help"],
    ["revoke", "a", "b"],
  ];
  for (const args of [["--help"], ["--version"], ["login", "--help"], ["print-token"], ...newCommands]) {
    const r = await loadedBy(box, args);
    assert.deepEqual(packagesIn(r.modules), [], args.join(" "));
  }
});

test("print-token's cached path does not load node:crypto (several milliseconds at start-up)", async () => {
  const emu = await withEmulator();
  const box = sandbox(emu);
  const { path } = await userFile(emu, box);
  assert.equal((await runCli(["print-token", path], box.env)).code, 0);
  const cached = await loadedBy(box, ["print-token", path]);
  assert.equal(cached.code, 0, cached.stderr);
  assert.ok(!cached.modules.includes("node:crypto"), "node:crypto was loaded");
});

test("dist/cli-bundle.js holds the command line: the token cache and the file reader live inside it", () => {
  assert.match(readFileSync(join(DIST, "cli.js"), "utf8"), /^#!\/usr\/bin\/env node\n/, "the bin keeps the shebang");
  const bundle = readFileSync(join(DIST, "cli-bundle.js"), "utf8");
  // The bundle is minified: its source map lists the modules inside it.
  const sources: string[] = JSON.parse(readFileSync(join(DIST, "cli-bundle.js.map"), "utf8")).sources;
  const bundled = (file: string) => sources.includes(file);
  for (const inside of [
    "access-token-cache/store.js",
    "formats/credentials-file.js",
    "credentials/file-token.js",
    "cli/print-token.js",
  ])
    assert.ok(bundled(inside), `${inside} is not bundled`);
  // One copy of each module: the error classes too (instanceof), and the cold paths.
  for (const inside of ["errors.js", "token-services/load-user.js", "cli/login.js"])
    assert.ok(bundled(inside), `${inside} is not bundled`);
  // Packages are required from node_modules, never bundled.
  assert.match(bundle, /require\("google-auth-library"\)/);
});

test("print-token writes its token line without creating process.stdout", async () => {
  const emu = await withEmulator();
  const box = sandbox(emu);
  const { path } = await userFile(emu, box);
  assert.equal((await runCli(["print-token", path], box.env)).code, 0);
  // The recorder's exit hook would create process.stdout itself; look before it runs.
  const probe = join(box.dir, "probe.cjs");
  writeFileSync(
    probe,
    `const { getOwnPropertyDescriptor } = Object;
let created = false;
const d = getOwnPropertyDescriptor(process, "stdout");
Object.defineProperty(process, "stdout", { configurable: true, enumerable: true, get() { created = true; return d.get.call(process); } });
process.on("exit", () => require("node:fs").writeSync(2, "stdout created: " + created + "\\n"));
`,
  );
  const r = await runCli(["print-token", path], box.env, { nodeArgs: ["--require", probe] });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^ya29\.[^\n]+\n$/);
  assert.match(r.stderr, /stdout created: false/);
});

test("the compile cache lives in a private directory, and one that others can write is not used", async () => {
  const own = sandbox();
  mkdirSync(join(own.dir, ".cache"));
  assert.equal((await runCli(["--version"], own.env)).code, 0);
  const cacheDir = join(own.dir, ".cache", "cred-auth", "compile-cache");
  const made = readdirSync(cacheDir);
  assert.equal(made.length, 1, "Node made its versioned cache directory");
  assert.equal(statSync(join(cacheDir, made[0]!)).mode & 0o777, 0o700);

  const planted = sandbox();
  const plantedDir = join(planted.dir, ".cache", "cred-auth", "compile-cache");
  mkdirSync(plantedDir, { recursive: true });
  chmodSync(plantedDir, 0o777);
  assert.equal((await runCli(["--version"], planted.env)).code, 0);
  assert.deepEqual(readdirSync(plantedDir), [], "code was cached in a directory others can write");
});
