// A consumer project outside the repo (node_modules/cred-auth -> this repo) compiles
// test/fixtures/consumer.ts against dist/*.d.ts: TypeScript 5.0 with node10 resolution (what
// tslab uses) and current TypeScript with nodenext (CommonJS and ESM) and bundler resolution.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const modules = join(repo, "node_modules");
let project = "";

before(() => {
  project = mkdtempSync(join(tmpdir(), "cred-auth-consumer-"));
  mkdirSync(join(project, "node_modules", "@types"), { recursive: true });
  symlinkSync(repo, join(project, "node_modules", "cred-auth"), "dir");
  symlinkSync(join(modules, "google-auth-library"), join(project, "node_modules", "google-auth-library"), "dir");
  symlinkSync(join(modules, "@types", "node"), join(project, "node_modules", "@types", "node"), "dir");
  const consumer = fileURLToPath(new URL("../fixtures/consumer.ts", import.meta.url));
  copyFileSync(consumer, join(project, "consumer.ts"));
  copyFileSync(consumer, join(project, "consumer.mts"));
});
after(() => rmSync(project, { recursive: true, force: true }));

function tsc(compiler: "typescript-5.0" | "typescript-current", file: string, flags: string[]): void {
  const run = runTsc(compiler, file, flags);
  assert.equal(run.status, 0, `${compiler} ${flags.join(" ")} ${file}:\n${run.stdout}${run.stderr}`);
}

function runTsc(compiler: "typescript-5.0" | "typescript-current", file: string, flags: string[]) {
  return spawnSync(
    process.execPath,
    [
      join(modules, compiler, "bin", "tsc"),
      "--noEmit",
      "--strict",
      "--target",
      "es2022",
      "--types",
      "node",
      ...flags,
      file,
    ],
    {
      cwd: project,
      encoding: "utf8",
    },
  );
}

/** tslab's options for a cell (node10 resolution, skipLibCheck). */
const TSLAB = ["--module", "esnext", "--moduleResolution", "node10", "--lib", "es2022", "--skipLibCheck"];

test("TypeScript 5.0, module commonjs + moduleResolution node10 (tslab), library files checked too", () => {
  // lib "dom" is left out: @types/node 22's web-globals clash with TS 5.0's lib.dom (TS2502), not cred-auth or google-auth-library.
  tsc("typescript-5.0", "consumer.ts", ["--module", "commonjs", "--moduleResolution", "node10", "--lib", "es2023"]);
});

test("TypeScript 5.0 with lib dom and skipLibCheck, as notebooks usually run", () => {
  tsc("typescript-5.0", "consumer.ts", [
    "--module",
    "commonjs",
    "--moduleResolution",
    "node10",
    "--lib",
    "es2023,dom",
    "--skipLibCheck",
    "--esModuleInterop",
  ]);
});

test("current TypeScript, nodenext, from CommonJS (.ts) and ESM (.mts)", () => {
  tsc("typescript-current", "consumer.ts", [
    "--module",
    "nodenext",
    "--moduleResolution",
    "nodenext",
    "--lib",
    "es2023,dom",
  ]);
  tsc("typescript-current", "consumer.mts", [
    "--module",
    "nodenext",
    "--moduleResolution",
    "nodenext",
    "--lib",
    "es2023,dom",
  ]);
});

test("current TypeScript, bundler resolution", () => {
  tsc("typescript-current", "consumer.ts", [
    "--module",
    "preserve",
    "--moduleResolution",
    "bundler",
    "--lib",
    "es2023,dom",
  ]);
});

test("a tslab cell importing cred-auth reads one of its declaration files, not the ~34 tsc emits (bench target 9)", () => {
  // dist/index.d.ts is bundled (scripts/build.mjs bundleDeclarations), the cache and exceptions namespaces included.
  writeFileSync(join(project, "cell.ts"), 'import * as credAuth from "cred-auth";\nexport { credAuth };\n');
  const run = runTsc("typescript-5.0", "cell.ts", [...TSLAB, "--listFiles"]);
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  const dist = `${realpathSync(repo)}/dist/`;
  const ours = run.stdout
    .split("\n")
    .filter((file) => file.startsWith(dist))
    .map((file) => file.slice(dist.length));
  assert.deepEqual(ours, ["index.d.ts"]);
});

test("a hover in a notebook shows the TSDoc of the namespaces and of their members", () => {
  // What tslab's inspect (TypeScript 5.0's quick info) shows for credAuth.cache, cache.NOOP,
  // exceptions.CredAuthError, exceptions.ERROR_CODES: the declarations' own TSDoc.
  const ts = createRequire(import.meta.url)(join(modules, "typescript-5.0")) as typeof import("typescript");
  const text = [
    'import * as credAuth from "cred-auth";',
    "credAuth.cache.NOOP;",
    "credAuth.exceptions.CredAuthError;",
    "credAuth.exceptions.ERROR_CODES;",
    "",
  ].join("\n");
  const file = join(project, "hover.ts");
  writeFileSync(file, text);
  const options = {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    skipLibCheck: true,
  };
  const service = ts.createLanguageService({
    getCompilationSettings: () => options,
    getScriptFileNames: () => [file],
    getScriptVersion: () => "1",
    getScriptSnapshot: (name) =>
      ts.sys.fileExists(name) ? ts.ScriptSnapshot.fromString(ts.sys.readFile(name) ?? "") : undefined,
    getCurrentDirectory: () => project,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    realpath: ts.sys.realpath,
  });
  const doc = (expression: string, name: string) => {
    const at = text.indexOf(expression) + expression.lastIndexOf(name);
    const info = service.getQuickInfoAtPosition(file, at);
    return ts.displayPartsToString(info?.documentation);
  };
  assert.match(doc("credAuth.cache.NOOP", "cache"), /Credentials caches: where/);
  assert.match(doc("credAuth.cache.NOOP", "NOOP"), /Always reauthorizes and never writes credentials to disk/);
  assert.match(
    doc("credAuth.exceptions.CredAuthError", "CredAuthError"),
    /An error is one line wherever it is printed/,
  );
  assert.match(doc("credAuth.exceptions.ERROR_CODES", "ERROR_CODES"), /Branch on these, never on message text/);
});

test("the bundled declarations keep src/api.ts's type-only exports type-only", () => {
  // CredentialsCache is exported as a type at the top (the class is cache.CredentialsCache);
  // dist/index.js has no such value, so using it as one must not compile.
  writeFileSync(
    join(project, "value.ts"),
    'import * as credAuth from "cred-auth";\nexport const c = credAuth.CredentialsCache;\n',
  );
  const run = runTsc("typescript-5.0", "value.ts", TSLAB);
  assert.notEqual(run.status, 0, "credAuth.CredentialsCache compiled as a value");
  assert.match(run.stdout, /CredentialsCache/);
});

test("ESM under node16/nodenext (TypeScript 5.0 and current) and bundler: the default is defaultCredentials, from one declaration file", () => {
  // dist/index.d.mts re-exports dist/index.d.ts and adds index.mjs's default; it is no copy of it.
  const text = [
    'import credAuthDefault, * as credAuth from "cred-auth";',
    'import { defaultCredentials, type DefaultOptions } from "cred-auth";',
    "export const viaDefault: typeof defaultCredentials = credAuthDefault;",
    "export const viaNamespace: typeof defaultCredentials = credAuth.default;",
    "export const options: DefaultOptions = { hosted: false };",
    "",
  ].join("\n");
  writeFileSync(join(project, "esm-default.mts"), text);
  for (const [compiler, resolution] of [
    ["typescript-5.0", "node16"],
    ["typescript-current", "nodenext"],
  ] as const)
    tsc(compiler, "esm-default.mts", ["--module", resolution, "--moduleResolution", resolution, "--lib", "es2023"]);
  tsc("typescript-current", "esm-default.mts", [
    "--module",
    "preserve",
    "--moduleResolution",
    "bundler",
    "--lib",
    "es2023",
  ]);
  const size = statSync(join(repo, "dist", "index.d.mts")).size;
  assert.ok(size < 400, `dist/index.d.mts is ${size} bytes: a copy of index.d.ts again?`);
});
