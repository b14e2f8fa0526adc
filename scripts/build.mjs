// Builds dist/: tsc (CommonJS + .d.ts), then an ESM face over the same CommonJS module
// (one module instance, so `instanceof CredCredentialsError` holds for ESM and CJS callers),
// then the command line's hot path bundled into dist/cli.js (see bundleCli below), then the examples
// as JavaScript beside their TypeScript (see buildExamples below).
import { spawnSync } from "node:child_process";
import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const DIST = fileURLToPath(new URL("../dist/", import.meta.url));

// From nothing: a module moved or removed must not linger in dist/ (and so in the package, and under
// tests that would still find it).
rmSync(DIST, { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.json"], {
  stdio: "inherit",
});
const lenient = process.env.CRED_AUTH_BUILD_LENIENT === "1";
if (tsc.status !== 0 && !lenient) process.exit(tsc.status ?? 1);

writeFileSync("dist/package.json", `{ "type": "commonjs" }\n`);
const names = exportedNames("../dist/index.js");
// src/index.ts exports, lazily, the values src/api.ts declares: the same names, or the declarations
// would promise what the module does not have (or hide what it has).
const declared = exportedNames("../dist/api.js");
if (names.join() !== declared.join())
  throw new Error(`build: src/index.ts exports ${names.join(", ")}; src/api.ts declares ${declared.join(", ")}`);
// createRequire, not `import cjs from "./index.js"`: importing CommonJS from ESM puts the module
// through the ESM loader's CommonJS translator too, which made default() in a fresh process about
// a fifth dearer (bench/README.md, targets 1 and 4). require() shares the same module instance.
writeFileSync(
  "dist/index.mjs",
  `import { createRequire } from "node:module";\nconst cjs = createRequire(import.meta.url)("./index.js");\n` +
    `export const { ${names.join(", ")} } = cjs;\nexport default cjs.default;\n`,
);
await bundleDeclarations(new Set([...names, "default"]));
// The ESM face's declarations: index.d.ts's (CommonJS under dist/package.json) re-exported, with
// the ESM default of index.mjs. Not a copy: the tarball carries those 40 kB once.
writeFileSync(
  "dist/index.d.mts",
  'export * from "./index.js";\nimport { defaultCredentials } from "./index.js";\nexport default defaultCredentials;\n',
);
await bundleCli();
chmodSync("dist/cli.js", 0o755);
buildExamples();
if (tsc.status !== 0) console.error("build: type errors ignored (CRED_AUTH_BUILD_LENIENT=1)");

/** The names a CommonJS module of dist/ exports at run time, sorted. */
function exportedNames(path) {
  return Object.keys(require(path))
    .filter((n) => n !== "default" && n !== "__esModule")
    .sort();
}

/**
 * The command line bundled into dist/cli-bundle.js (which the bin, dist/cli.js, loads): its dispatcher, print-token, the token cache, the
 * credentials-file reader and, behind lazy `require()`s, login and the rest of the library, in
 * one file (packages stay `require`s of node_modules). Finding and reading ~19 files was a fifth
 * of print-token's start-up (bench/README.md, target 2); one file costs one. Everything is in it
 * so that one copy of each module exists in the process (one set of error classes for
 * `instanceof`, one "using the emulator" notice). Only the emulator stays files (it imports
 * nothing of the library but shared/constants). test/cli/hot-path.test.ts checks what loads.
 */
async function bundleCli() {
  const esbuild = require("esbuild");
  const emulatorStaysFiles = {
    name: "emulator-stays-files",
    setup(build) {
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        const target = relative(DIST, resolve(dirname(args.importer), args.path))
          .split("\\")
          .join("/");
        if (target.startsWith("..")) throw new Error(`build: ${args.importer} imports ${args.path}, outside dist/`);
        return target.startsWith("emulator/") ? { path: `./${target}`, external: true } : undefined;
      });
    },
  };
  await esbuild.build({
    entryPoints: [join(DIST, "cli", "start.js")],
    outfile: join(DIST, "cli-bundle.js"),
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node22",
    packages: "external",
    plugins: [emulatorStaysFiles],
    logLevel: "warning",
    legalComments: "none",
    // Fewer bytes to read and scan on every run: print-token's cached path used ~5% less CPU
    // minified (farm-bench, 60 pairs, bench/README.md). Names are kept (only whitespace and
    // syntax), so error classes still name themselves; the map turns frames back into dist/ files
    // under CRED_AUTH_DEBUG=1 (src/cli.ts), and lists the modules inside (test/cli/hot-path.test.ts).
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: "linked",
    sourcesContent: false,
  });
}

/**
 * dist/index.d.ts, bundled from src/api.ts's declarations: one file instead of the ~34 that tsc
 * emits for the public path (api -> credentials/, oauth/, runtime/, settings/, ui/, ...). A tslab
 * cell that imports cred-auth is type-checked, and reading those files made the first cell dearer
 * than importing google-auth-library (bench/README.md, target 9). rollup-plugin-dts keeps every declaration's
 * TSDoc. The modules behind the `cache` and `exceptions` namespaces stay tsc's own files (errors,
 * cache/*: 4 files that import nothing else of ours), so their members keep their declarations and
 * TSDoc and there is one `CredentialsCache` class, not a copy in the bundle. The other
 * dist/ .d.ts files stay for anything that imports them by path.
 */
async function bundleDeclarations(runtimeNames) {
  const { rollup } = require("rollup");
  const { dts } = require("rollup-plugin-dts");
  const api = join(DIST, "api.d.ts");
  const bundle = await rollup({
    input: api,
    plugins: [dts()],
    // Packages (google-auth-library) stay imports.
    external: (id) => !/^[./]/.test(id),
    logLevel: "warn",
  });
  const { output } = await bundle.generate({ format: "es" });
  await bundle.close();
  const packageDoc = readFileSync(api, "utf8").match(/^\/\*\*[\s\S]*?\*\/\n/)?.[0] ?? "";
  if (!packageDoc.includes("@packageDocumentation"))
    throw new Error("build: dist/api.d.ts lost its @packageDocumentation comment");
  const namespaceDocs = { cache: moduleDoc(join(DIST, "cache", "index.d.ts")) };
  const code = namespacesOfMembers(typeOnlyExports(output[0].code, runtimeNames), namespaceDocs);
  writeFileSync(join(DIST, "index.d.ts"), packageDoc + code);
  // api.js would load everything at once; nothing may reach it by accident.
  for (const file of ["api.js", "api.d.ts"]) rmSync(join(DIST, file));
}

/** A module's own TSDoc (its leading `@packageDocumentation` comment), without that tag. */
function moduleDoc(file) {
  const doc = readFileSync(file, "utf8").match(/^\/\*\*[\s\S]*?\*\/\n/)?.[0] ?? "";
  if (!doc.includes("@packageDocumentation")) throw new Error(`build: ${file} has no module TSDoc`);
  return doc.replace(/\n \*\n \* @packageDocumentation\n/, "\n");
}

/**
 * rollup-plugin-dts writes `export * as cache from ...` as a namespace of aliases
 * (`declare const index_d_NOOP: typeof NOOP;`, `type index_d_X = X;`, then
 * `declare namespace index_d { export { index_d_NOOP as NOOP, ... } }`): a hover on
 * `credAuth.cache.NOOP` shows the alias, without NOOP's TSDoc, and the namespace is `index_d`.
 * Here each namespace exports the declarations themselves (which a declaration file may do), is
 * named as users see it, and carries its module's TSDoc (`docs`); other modules' leading
 * `@packageDocumentation` comments, left mid-file by the bundle, go.
 */
function namespacesOfMembers(code, docs) {
  let out = code.replace(/^\/\*\*(?:(?!\*\/)[\s\S])*@packageDocumentation[\s\S]*?\*\/\n/gm, "");
  const blocks = [...out.matchAll(/^declare namespace (\w+) \{\n((?: {2}export .*\n)+)\}\n/gm)];
  for (const [block, name, body] of blocks) {
    const members = body.replace(/ {2}export (type )?\{ ([^}]*) \};\n/g, (_line, type, list) => {
      const specifiers = list.split(", ").map((specifier) => {
        const [local, exported = local] = specifier.split(" as ");
        const target = removeAlias(local);
        return target === exported ? exported : `${target} as ${exported}`;
      });
      return `  export ${type ?? ""}{ ${specifiers.join(", ")} };\n`;
    });
    const exported = out.match(new RegExp(`^export \\{[^}]*\\b${name} as (\\w+)\\b`, "m"))?.[1];
    const taken =
      exported && new RegExp(`^(declare (const|function|class|namespace)|type|interface) ${exported}\\b`, "m");
    const shown = exported && !taken.test(out) ? exported : name;
    out = out.replace(block, `${docs[shown] ?? ""}declare namespace ${shown} {\n${members}}\n`);
    if (shown !== name) out = out.replace(new RegExp(`\\b${name} as ${shown}\\b`), shown);
  }
  return out;

  /** Removes `local`'s alias declarations and returns what they alias. */
  function removeAlias(local) {
    let target;
    out = out.replace(
      new RegExp(`^(?:type ${local} = ([\\w$]+);|declare const ${local}: typeof ([\\w$]+);)\\n`, "gm"),
      (_line, type, value) => {
        target = type ?? value;
        return "";
      },
    );
    if (!target) throw new Error(`build: no alias ${local} in the bundled declarations`);
    return target;
  }
}

/**
 * rollup writes `export { CredentialsCache } from './cache/index.js'` for src/index.ts's
 * `export type { CredentialsCache }`: a value the JavaScript does not export. Every exported name
 * that dist/index.js does not export goes into an `export type` list, as in the source.
 */
function typeOnlyExports(code, runtimeNames) {
  return code.replace(/^export (type )?\{ ([^}]*) \}( from '[^']+')?;$/gm, (_line, type, list, from = "") => {
    const specifiers = list.split(", ");
    const exported = (s) => s.split(" as ").at(-1);
    const values = type ? [] : specifiers.filter((s) => runtimeNames.has(exported(s)));
    const types = specifiers.filter((s) => !values.includes(s));
    return [
      values.length ? `export { ${values.join(", ")} }${from};` : "",
      types.length ? `export type { ${types.join(", ")} }${from};` : "",
    ]
      .filter(Boolean)
      .join("\n");
  });
}

/**
 * examples/NAME.js beside each examples/NAME.ts: the same ES module with its types removed (comments
 * kept), so that `node node_modules/cred-auth/examples/NAME.js` runs from an installed package,
 * where Node refuses to strip types (ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING). Not in git
 * (.gitignore); packed (package.json `files`). test/examples/ runs them from the packed tarball.
 */
function buildExamples() {
  const ts = require("typescript");
  const dir = fileURLToPath(new URL("../examples/", import.meta.url));
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".ts"))) {
    const source = readFileSync(join(dir, name), "utf8");
    const { outputText, diagnostics } = ts.transpileModule(source, {
      fileName: name,
      reportDiagnostics: true,
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, removeComments: false },
    });
    if (diagnostics?.length) throw new Error(`build: examples/${name} does not transpile`);
    const js = name.replace(/\.ts$/, ".js");
    const header = `// Built from ${name} by cred-auth's build: the same program without its type annotations.\n`;
    writeFileSync(join(dir, js), header + outputText.replaceAll(`examples/${name}`, `examples/${js}`));
  }
}
