// print-token's cached path is the hot path of shell scripts: it must load no package at all
// (google-auth-library, conf, ink, react, node-fetch, open...), only a handful of our modules.
// A preload script records every module resolved (require and import) and require.cache at exit.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { SourceMap } from "node:module";
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
 * caches) and the bundle of what print-token's cached path runs (dist/cli-bundle.js). Not the
 * bundle of the rest of the command line (dist/cli-cold.js), nothing else of cred-auth.
 */
const ALLOWED = ["cli-bundle.js", "cli.js"];
/**
 * The modules of ours print-token's cached path needs, and why each: it runs code of every one of
 * them (with a user or a service-account file, any output format).
 */
const EVALUATED_ON_CACHED_PATH = [
  "cli/start.js", // runs main() and exits
  "cli/main.js", // dispatch
  "cli/command.js", // parses the arguments
  "cli/commands/index.js", // the registry
  "cli/output.js", // writes the token line
  "cli/commands/print-token.js",
  "credentials/tokens/file-token.js", // the token for a file: cache first
  "credentials/kinds/table.js", // the file's kind, by its type
  "credentials/kinds/user/index.js", // a user file's token key and cache lookup
  "credentials/kinds/user/file.js", // parses a user file
  "credentials/kinds/google-credentials.js", // the token URL's part of a user's or key's key
  "stores/index.js", // which store holds the file's secrets, by its form
  "stores/credentials-file.js", // reads the file
  "formats/credentials-file.js", // a credentials file's JSON and fields
  "trust/files.js", // the file-trust rule, applied to the credentials file and the cache entry
  "trust/urls.js", // the universe and the file's token URL
  "formats/destinations.js", // where the file's secrets may go: part of the cache key
  "formats/stand-in.js", // a cache file whose secrets a store keeps elsewhere: its stand-in key
  "trust/text.js", // the token checked printable before it is printed
  "protocols/token-requests.js", // the token URL used
  "protocols/endpoints.js", // the emulator's token URL (these tests set CRED_AUTH_EMULATOR_HOST)
  "formats/cache-keys.js", // the cache key
  "util/sha256.js", // the key's digest
  "token-cache/index.js",
  "token-cache/get.js", // the cache lookup
  "token-cache/store.js", // reads the entry
  "formats/token-cache-entry.js", // parses the entry
  "shared/constants.js", // the cloud-platform scope, the token URLs
  "errors.js", // error classes the modules above extend at load
].sort();
/**
 * Of those, the modules without a function: the hot bundle defines their constants and re-exports in its one scope
 * when it loads, and V8's coverage, which counts functions, sees nothing of theirs run (evaluatedBy).
 */
const WITHOUT_FUNCTIONS = ["shared/constants.js", "token-cache/index.js"];
/** A service-account key's kind is the key's; only a user file can be in the keychain form. */
const EVALUATED_FOR_A_KEY = [
  ...EVALUATED_ON_CACHED_PATH.filter(
    (module) => !module.startsWith("credentials/kinds/user/") && module !== "formats/stand-in.js",
  ),
  "credentials/kinds/key/index.js",
  "credentials/kinds/key/file.js",
].sort();

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

/** A position in dist/cli-bundle.js to its module, by the source map ("" for code of no module of ours). */
function hotBundleModules(): (offset: number) => string {
  const bundle = readFileSync(join(DIST, "cli-bundle.js"), "latin1");
  const map = new SourceMap(JSON.parse(readFileSync(join(DIST, "cli-bundle.js.map"), "utf8")));
  const lineStarts = [0];
  for (let i = bundle.indexOf("\n"); i !== -1; i = bundle.indexOf("\n", i + 1)) lineStarts.push(i + 1);
  return (offset) => {
    let line = lineStarts.length - 1;
    while (lineStarts[line]! > offset) line--;
    const { originalSource } = map.findEntry(line, offset - lineStarts[line]!) as { originalSource?: string };
    // The registries and stubs between the hot bundle's parts, and esbuild's helpers (unmapped): no module of ours.
    if (originalSource === undefined || /(^|\/)(cli|lazy)-link:/.test(originalSource)) return "";
    const module = /\/src\/(.+)\.ts$/.exec(originalSource)?.[1];
    assert.ok(module, `${originalSource} is no module of src/`);
    return `${module}.js`;
  };
}

/**
 * dist/cli.js compiles the hot bundle inside this wrapper when it runs it from its bytecode cache (src/cli.ts
 * `runBundle`): V8's offsets in the script then count it, the source map does not.
 */
const BUNDLE_WRAPPER = "(function (exports, require, module, __filename, __dirname) {";
const hotBundleLength = (): number => readFileSync(join(DIST, "cli-bundle.js"), "latin1").length;

/**
 * The modules of ours whose code a CLI run ran, from V8's coverage. The hot bundle holds its modules in one scope
 * (scripts/build.mjs `hotSources`): each defines its functions when the bundle loads, and a module counts when one of
 * its functions ran (the source map names the module of each). The cold bundle keeps a function per module, named
 * after its file (`"dist/cli/login.js"(exports, module)`), which counts when it ran. Plain files of dist/ (the
 * emulator) count when they appear at all.
 */
async function evaluatedBy(
  box: Sandbox,
  args: string[],
): Promise<{ code: number | null; stderr: string; modules: string[] }> {
  assert.ok(readFileSync(join(DIST, "cli.js"), "utf8").includes(JSON.stringify(BUNDLE_WRAPPER).slice(1, -1)));
  const coverage = join(box.dir, `coverage-${Math.random()}`);
  const r = await runCli(args, { ...box.env, NODE_V8_COVERAGE: coverage });
  const hotModuleAt = hotBundleModules();
  const modules = new Set<string>();
  for (const file of readdirSync(coverage)) {
    const { result } = JSON.parse(readFileSync(join(coverage, file), "utf8")) as {
      result: {
        url: string;
        functions: { functionName: string; ranges: { startOffset: number; endOffset: number; count: number }[] }[];
      }[];
    };
    for (const script of result) {
      const path = script.url.startsWith("file:") ? fileURLToPath(script.url) : script.url;
      if (!path.startsWith(DIST)) continue;
      const name = relative(DIST, path);
      if (name === "cli-bundle.js") {
        // Run from the bytecode cache, the bundle is compiled inside the wrapper; without one, as a file (from 0).
        const end = Math.max(...script.functions.map((f) => f.ranges[0]!.endOffset));
        const shift = end === hotBundleLength() ? 0 : BUNDLE_WRAPPER.length;
        assert.ok(shift === 0 || end === hotBundleLength() + BUNDLE_WRAPPER.length + "\n})".length, `${end}`);
        for (const f of script.functions) {
          const start = f.ranges[0]!.startOffset - shift;
          if (f.ranges[0]!.count === 0 || start <= 0) continue; // the bundle's top level: its one scope
          const module = hotModuleAt(start);
          if (module) modules.add(module);
        }
        continue;
      }
      const bundled = script.functions.filter((f) => /^dist\/.+\.js$/.test(f.functionName));
      for (const f of bundled) if (f.ranges[0]!.count > 0) modules.add(f.functionName.slice("dist/".length));
      if (bundled.length === 0 && !/^cli(-cold)?\.js$/.test(name)) modules.add(name);
    }
  }
  return { code: r.code, stderr: r.stderr, modules: [...modules].sort() };
}

test("print-token's cached path evaluates only the modules it runs; a miss evaluates more, from the other bundle", async () => {
  const emu = await withEmulator();
  const box = sandbox(emu);
  const { path } = await userFile(emu, box);
  const { path: keyPath } = serviceAccountFile(emu, box);
  for (const credentials of [path, keyPath]) {
    // A miss: the refresh runs, so the coverage must see modules beyond the cached path's.
    const miss = await evaluatedBy(box, ["print-token", credentials]);
    assert.equal(miss.code, 0, miss.stderr);
    const more = miss.modules.filter((m) => !EVALUATED_ON_CACHED_PATH.includes(m));
    const refresh = `credentials/kinds/${credentials === keyPath ? "key" : "user"}/tokens.js`;
    assert.ok(more.includes(refresh), `a miss evaluated: ${miss.modules.join(" ")}`);
    for (const format of [[], ["--format", "json"], ["--header"]]) {
      const cached = await evaluatedBy(box, ["print-token", credentials, ...format]);
      assert.equal(cached.code, 0, cached.stderr);
      const expected = (credentials === keyPath ? EVALUATED_FOR_A_KEY : EVALUATED_ON_CACHED_PATH).filter(
        (module) => !WITHOUT_FUNCTIONS.includes(module),
      );
      assert.deepEqual(cached.modules, expected, `print-token ${credentials} ${format.join(" ")}`);
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
  assert.deepEqual(distFilesIn(cached.modules), ["cli-bundle.js", "cli-cold.js", "cli.js"]);
});

test("help, --version and usage errors load no package either", async () => {
  const box = sandbox();
  const newCommands = [
    ["print-identity-token", "--help"],
    ["status", "--help"],
    ["revoke", "--help"],
    ["revoke", "a", "b"],
  ];
  // (print-token without FILE is no usage error: it looks where default() looks.)
  for (const args of [["--help"], ["--version"], ["login", "--help"], ["print-token", "a", "b"], ...newCommands]) {
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

test("the two bundles hold the command line, each module once: print-token's cached path in dist/cli-bundle.js", () => {
  assert.match(readFileSync(join(DIST, "cli.js"), "utf8"), /^#!\/usr\/bin\/env node\n/, "the bin keeps the shebang");
  // The bundles are minified: their source maps list the modules inside them.
  const sourcesOf = (file: string): string[] => JSON.parse(readFileSync(join(DIST, `${file}.map`), "utf8")).sources;
  // The hot bundle is built from the TypeScript (../src/cli/main.ts), the cold one from tsc's files (cli/login.js).
  const hot = sourcesOf("cli-bundle.js")
    .flatMap((s) => /^\.\.\/src\/(.+)\.ts$/.exec(s)?.[1] ?? [])
    .map((m) => `${m}.js`);
  const cold = sourcesOf("cli-cold.js").filter((s) => s.endsWith(".js"));
  assert.deepEqual(
    hot.filter((s) => cold.includes(s)),
    [],
    "a module is in both bundles",
  );
  // token-cache/index.js only re-exports: in one scope, nothing of it is left to map.
  for (const inside of EVALUATED_FOR_A_KEY.filter((m) => m !== "token-cache/index.js"))
    assert.ok(hot.includes(inside), `${inside} is not in the hot bundle`);
  // One copy of each module: the cold paths are in the other bundle, never files of dist/.
  for (const inside of [
    "credentials/kinds/user/client.js",
    "cli/commands/login.js",
    "credentials/kinds/user/tokens.js",
    "trust/redact.js",
  ])
    assert.ok(cold.includes(inside), `${inside} is not in the cold bundle`);
  // Packages are required from node_modules, never bundled.
  assert.match(readFileSync(join(DIST, "cli-cold.js"), "utf8"), /require\("google-auth-library"\)/);
  assert.doesNotMatch(readFileSync(join(DIST, "cli-bundle.js"), "utf8"), /require\("google-auth-library"\)/);
});

test("print-token's path runs from a bytecode cache made by a successful run of that path, named after the bundle", async () => {
  const emu = await withEmulator();
  const box = sandbox(emu);
  mkdirSync(join(box.dir, ".cache"));
  const { path } = await userFile(emu, box);
  const cacheDir = join(box.dir, ".cache", "cred-auth", "compile-cache");
  const bytecode = () => readdirSync(cacheDir).filter((f) => f.startsWith("print-token-"));
  assert.equal((await runCli(["--version"], box.env)).code, 0);
  assert.equal((await runCli(["print-token", join(box.dir, "absent.json")], box.env)).code !== 0, true);
  assert.deepEqual(bytecode(), [], "only a print-token run that succeeded makes the cache");
  // An older bundle's cache and a dead run's temp file, both 40 days old, go when a cache is made;
  // another install's recent cache stays.
  const stale = ["print-token-0123456789abcdef-v22.0.0-x64.bin", "print-token-0123456789abcdef-v22.0.0-x64.bin.77.tmp"];
  const recent = "print-token-fedcba9876543210-v22.0.0-x64.bin";
  const old = new Date(Date.now() - 40 * 24 * 3600 * 1000);
  for (const name of [...stale, recent]) writeFileSync(join(cacheDir, name), "old bytecode", { mode: 0o600 });
  for (const name of stale) utimesSync(join(cacheDir, name), old, old);
  // The first run refreshes (it loads the cold bundle): its cache would hold the refresh's code, so it makes none.
  assert.equal((await runCli(["print-token", path], box.env)).code, 0);
  assert.deepEqual(bytecode().sort(), [...stale, recent].sort(), "a print-token run that refreshed made the cache");
  assert.equal((await runCli(["print-token", path], box.env)).code, 0);
  const digest = /BUNDLE_DIGEST = "([0-9a-f]{16})"/.exec(readFileSync(join(DIST, "cli.js"), "utf8"))?.[1];
  assert.ok(digest, "the build wrote the bundle's digest into dist/cli.js");
  assert.deepEqual(bytecode().sort(), [`print-token-${digest}-${process.version}-${process.arch}.bin`, recent].sort());
  rmSync(join(cacheDir, recent));
  const made = statSync(join(cacheDir, bytecode()[0]!));
  assert.equal(made.mode & 0o777, 0o600);
  const again = await runCli(["print-token", path, "--header"], box.env);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /^Authorization: Bearer ya29\./);
  // V8 took the cache: a rejected one is written again (a new file renamed over it).
  assert.equal(statSync(join(cacheDir, bytecode()[0]!)).ino, made.ino, "the cache was rejected and made again");
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
