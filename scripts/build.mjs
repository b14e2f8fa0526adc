// Builds dist/: tsc (CommonJS + .d.ts), then an ESM face over the same CommonJS module
// (one module instance, so `instanceof CredCredentialsError` holds for ESM and CJS callers),
// then the command line's hot path bundled into dist/cli.js (see bundleCli below), then the examples
// as JavaScript beside their TypeScript (see buildExamples below).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire, isBuiltin } from "node:module";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const DIST = fileURLToPath(new URL("../dist/", import.meta.url));
const SRC = fileURLToPath(new URL("../src/", import.meta.url));

/**
 * The modules of the command line that print-token's cached path runs, in dist/cli-bundle.js;
 * every other module is in dist/cli-cold.js. A module missing here that the path does run loads
 * the cold bundle, and test/cli/hot-path.test.ts fails; one listed here that it does not run is
 * defined on every run for nothing (the test lists the modules whose code runs).
 */
const HOT_PATH = [
  "cli/start.js",
  "cli/main.js",
  "cli/command.js",
  "cli/commands/index.js",
  "cli/output.js",
  "cli/commands/print-token.js",
  "credentials/tokens/file-token.js",
  "credentials/kinds/table.js",
  "credentials/kinds/google-credentials.js",
  "credentials/kinds/file.js",
  "credentials/kinds/user/index.js",
  "credentials/kinds/user/file.js",
  "credentials/kinds/key/index.js",
  "credentials/kinds/key/file.js",
  "credentials/kinds/impersonated/index.js",
  "credentials/kinds/impersonated/file.js",
  "credentials/kinds/federated/index.js",
  "credentials/kinds/federated/file.js",
  "credentials/kinds/workforce-user/index.js",
  "credentials/kinds/workforce-user/file.js",
  "token-cache/index.js",
  "token-cache/get.js",
  "token-cache/store.js",
  "formats/credentials-file.js",
  "formats/cache-keys.js",
  "formats/destinations.js",
  "formats/token-cache-entry.js",
  "protocols/token-requests.js",
  "protocols/endpoints.js",
  "trust/urls.js",
  "trust/files.js",
  "trust/text.js",
  "formats/stand-in.js",
  "formats/impersonation-url.js",
  "stores/index.js",
  "stores/credentials-file.js",
  "util/sha256.js",
  "shared/constants.js",
  "errors.js",
];

/**
 * `cli-link:cold`: `__loadCold(name)`, a module from dist/cli-cold.js, which is handed the hot bundle's registry on
 * its first load, and `__lazyHot(name)`, a LAZY_HOT module. It imports no hot module, so it is no link in a cycle of
 * the hot modules' imports.
 */
const COLD_LOADER = `import { lazyHotModules } from "cli-link:lazy";
let hot, cold, lazy;
export const setHot = (registry) => { hot = registry; };
export const __loadCold = (name) => (cold ??= require("./cli-cold.js")).load(name, hot);
export const __lazyHot = (name) => (lazy ??= lazyHotModules({ hot: (n) => hot.load(n), cold: __loadCold }))[name];
`;

/**
 * Of HOT_PATH, the modules of the kinds other than a user's: in the hot bundle (so their files' cached paths stay hot),
 * but in a function of their own, evaluated when one of them is first used (`lazyHotCode`), so that a user file's
 * print-token defines none of them (0.6 M instructions of 87 M; bench/README.md, issue 46).
 */
const LAZY_HOT = new Set(
  ["key", "impersonated", "federated", "workforce-user"].flatMap((kind) =>
    ["index", "file"].map((m) => `credentials/kinds/${kind}/${m}.js`),
  ),
);

/** tsc's `const x_js_1 = require("./x.js")`: a module of ours, imported by name (lazyImports). */
const REQUIRE_OF_OURS = /^(const|var) (\w+) = require\(("\.\.?\/[^"]+")\);$/gm;

/** The helper behind lazyImports, at the top of each bundle. */
const LAZY_MODULE = `var __lazyModule=(load,m)=>new Proxy({},{get:(_,k)=>(m??=load())[k],has:(_,k)=>k in(m??=load())});`;

/** MIT's terms, for a package published under MIT without its licence file (licenceText). */
const MIT_TERMS = `Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.`;

// From nothing: a module moved or removed must not linger in dist/ (and so in the package, and under
// tests that would still find it).
rmSync(DIST, { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.json"], {
  stdio: "inherit",
});
const lenient = process.env.CRED_AUTH_BUILD_LENIENT === "1";
if (tsc.status !== 0 && !lenient) process.exit(tsc.status ?? 1);

writeFileSync("dist/package.json", `{ "type": "commonjs" }\n`);
writeLazyExports();
const names = exportedNames("../dist/index.js");
// A check, not a second list: dist/index.js must export what dist/api.js does (both from api.ts).
const declared = exportedNames("../dist/api.js");
if (names.join() !== declared.join())
  throw new Error(`build: dist/index.js exports ${names.join(", ")}; src/api.ts declares ${declared.join(", ")}`);
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
const vendored = await vendorPackages();
await bundleCli(vendored);
chmodSync("dist/cli.js", 0o755);
stampBundleDigest();
lazyLibraryImports(vendored);
await packageContents();
buildExamples();
if (tsc.status !== 0) console.error("build: type errors ignored (CRED_AUTH_BUILD_LENIENT=1)");

/**
 * src/api.ts is the one list of the public API. src/index.ts exports at once what the import may
 * load (the errors, the caches, the version); every other value api.ts exports is a function whose
 * module loads on its first call. This writes those into dist/index.js's LAZY_EXPORTS as
 * `[exported name, module, the module's export]`, read from api.ts's `export { ... } from` lines.
 */
function writeLazyExports() {
  const eager = new Set(exportedNames("../dist/index.js"));
  const lazy = apiValueExports().filter(([name]) => !eager.has(name));
  for (const [name, module, original] of lazy) {
    const value = require(join(DIST, module))[original];
    // A forwarder is a plain function: a class (`new`, `instanceof`) or a constant cannot be one.
    if (typeof value !== "function" || /^class\b/.test(Function.prototype.toString.call(value)))
      throw new Error(
        `build: api.ts exports ${name} from ${module}, not a function: src/index.ts must export it itself`,
      );
  }
  const index = join(DIST, "index.js");
  const declaration = "const LAZY_EXPORTS = [];";
  const code = readFileSync(index, "utf8");
  if (!code.includes(declaration)) throw new Error(`build: dist/index.js has no ${declaration}`);
  writeFileSync(index, code.replace(declaration, `const LAZY_EXPORTS = ${JSON.stringify(lazy)};`));
  delete require.cache[require.resolve(index)];
}

/** api.ts's value exports, `[exported name, "./module.js", the module's export]` (types left out). */
function apiValueExports() {
  const ts = require("typescript");
  const file = fileURLToPath(new URL("../src/api.ts", import.meta.url));
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022);
  const found = [];
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement) || statement.isTypeOnly || !statement.moduleSpecifier) continue;
    const module = statement.moduleSpecifier.text;
    // `export * as cache from ...`: a namespace, which src/index.ts exports itself.
    if (!statement.exportClause || !ts.isNamedExports(statement.exportClause)) continue;
    for (const element of statement.exportClause.elements)
      if (!element.isTypeOnly) found.push([element.name.text, module, (element.propertyName ?? element.name).text]);
  }
  return found;
}

/** The names a CommonJS module of dist/ exports at run time, sorted. */
function exportedNames(path) {
  return Object.keys(require(path))
    .filter((n) => n !== "default" && n !== "__esModule")
    .sort();
}

/**
 * The command line in two esbuild bundles that hold one copy of each module between them:
 * - dist/cli-bundle.js (which the bin, dist/cli.js, loads): the modules print-token's cached
 *   path runs (HOT_PATH: arguments, reading the file, the cache key, the cache entry, printing);
 * - dist/cli-cold.js: every other module of the command line (login, the refresh, the other
 *   commands, help, the library), loaded by the first `require` that reaches one of them.
 * Each side takes the other's modules by name (`hotSources`, `otherBundle`), so a module lives in
 * exactly one bundle (one set of error classes for `instanceof`, one "using the emulator"
 * notice). The hot bundle is one scope built from the TypeScript (`hotSources`); in the cold one,
 * built from tsc's files, a module's top-level imports are lazy (`lazyImports`): a module is
 * evaluated when one of its exports is first read, not when a module that imports it is. One
 * file rather than ~35 was a fifth of print-token's start-up; evaluating 35 modules where 23 run,
 * and compiling 142 where 23 run, was most of the rest (bench/README.md, target 2). Packages stay
 * `require`s of node_modules; the emulator stays files (it imports nothing of the library but
 * shared/constants). test/cli/hot-path.test.ts checks what loads and whose code runs.
 */
async function bundleCli(vendored) {
  const esbuild = require("esbuild");
  const common = {
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node22",
    packages: "external",
    logLevel: "warning",
    legalComments: "none",
    // Fewer bytes to read and scan on every run: print-token's cached path used ~5% less CPU
    // minified (farm-bench, 60 pairs, bench/README.md). Names are kept (only whitespace and
    // syntax), so error classes still name themselves and a stack under CRED_AUTH_DEBUG=1 names
    // each function. The maps (dist/*.map: a bundle offset back to its module and line, and the
    // modules inside, test/cli/hot-path.test.ts) are for this repository, not shipped (packageContents).
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: "external",
    sourcesContent: false,
  };
  // Every module of ours the command line can reach (a throwaway single bundle's inputs).
  const all = await esbuild.build({
    ...common,
    entryPoints: [join(DIST, "cli", "start.js")],
    outfile: join(DIST, "cli-all.js"),
    write: false,
    metafile: true,
    plugins: [emulatorStaysFiles(), vendoredFiles(vendored)],
  });
  const modules = Object.keys(all.metafile.inputs)
    .map((input) => relative(DIST, resolve(input)).split("\\").join("/"))
    .filter((m) => !m.startsWith(".."));
  const missing = HOT_PATH.filter((m) => !modules.includes(m));
  if (missing.length) throw new Error(`build: HOT_PATH names modules the command line does not have: ${missing}`);
  const cold = modules.filter((m) => !HOT_PATH.includes(m));
  await esbuild.build({
    ...common,
    stdin: {
      contents: 'import "cli-link:registry";\nimport "./cli/start.ts";\n',
      resolveDir: SRC,
      sourcefile: "cli-hot-entry.ts",
      loader: "ts",
    },
    outfile: join(DIST, "cli-bundle.js"),
    plugins: [hotSources(hotExportsRead([...cold, ...LAZY_HOT]), await lazyHotCode(esbuild, common))],
  });
  await esbuild.build({
    ...common,
    stdin: { contents: registry(cold), resolveDir: DIST, sourcefile: "cli-cold-entry.js" },
    outfile: join(DIST, "cli-cold.js"),
    plugins: [emulatorStaysFiles(), vendoredFiles(vendored), otherBundle(cold), lazyImports()],
  });
}

/**
 * The exports of each eagerly evaluated hot module that `readers` (the cold and the LAZY_HOT modules) read (tsc's
 * `x_js_1.name`, from dist/): what the hot bundle's registry must hand over. The hot bundle keeps only those and
 * what its own path uses (esbuild drops the rest).
 */
function hotExportsRead(readers) {
  const read = new Map(HOT_PATH.filter((m) => m !== "cli/start.js" && !LAZY_HOT.has(m)).map((m) => [m, new Set()]));
  for (const module of readers) {
    const file = join(DIST, module);
    const code = readFileSync(file, "utf8");
    let named = 0;
    for (const [, , name, path] of code.matchAll(REQUIRE_OF_OURS)) {
      const target = distPath({ importer: file, path: JSON.parse(path) });
      if (!read.has(target)) continue;
      named++;
      for (const [, key] of code.matchAll(new RegExp(`(?<![\\w$])(?<!(?<!\\.\\.)\\.)${name}\\.(\\w+)`, "g")))
        read.get(target).add(key);
    }
    // A hot module taken whole (`import * as`, `export *`), which the registry does not offer.
    const all = [...code.matchAll(/require\(("\.\.?\/[^"]+")\)/g)].filter(([, path]) =>
      read.has(distPath({ importer: file, path: JSON.parse(path) })),
    );
    if (all.length !== named)
      throw new Error(`build: dist/${module} takes a hot module other than by its exports' names`);
  }
  return read;
}

/** src/x/y.ts for "x/y.js". */
function sourceOf(module) {
  return join(SRC, module.replace(/\.js$/, ".ts"));
}

/**
 * dist/cli-bundle.js from the TypeScript of the hot path's modules (HOT_PATH), as ES modules in one scope: no
 * module wrappers, exports objects or requires between them, so fewer bytes of bytecode and less to run on every
 * print-token (bench/README.md, issue 46). A hot module's import of a cold one becomes a read through
 * `__loadCold(name)` at each use (`coldImportsLazy`), which loads dist/cli-cold.js on its first call; the cold
 * bundle takes a hot module from the registry (`hotRegistry`), an object of getters made on its first request. The
 * LAZY_HOT modules come from `lazyCode` (`lazyHotCode`).
 */
function hotSources(exports, lazyCode) {
  const hot = new Set(HOT_PATH);
  return {
    name: "hot-sources",
    setup(build) {
      build.onResolve({ filter: /^cli-link:(cold|registry|lazy)$/ }, (args) => ({
        path: args.path.slice(9),
        namespace: "cli-link",
      }));
      build.onResolve({ filter: /^\.\/cli-cold\.js$/ }, (args) =>
        args.namespace === "cli-link" ? { path: args.path, external: true } : undefined,
      );
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        if (args.namespace === "cli-link" || args.importer === "") return undefined;
        const module = moduleOfSource(args);
        if (!hot.has(module) || LAZY_HOT.has(module))
          throw new Error(`build: ${args.importer} imports ${args.path}, not on HOT_PATH or evaluated lazily`);
        return { path: sourceOf(module) };
      });
      build.onLoad({ filter: /.*/, namespace: "cli-link" }, (args) => ({
        contents: { registry: hotRegistry(exports), cold: COLD_LOADER, lazy: lazyCode }[args.path],
        resolveDir: DIST,
        loader: "js",
      }));
      build.onLoad({ filter: /\.ts$/ }, (args) => ({
        contents: coldImportsLazy(readFileSync(args.path, "utf8"), args.path, hot),
        loader: "ts",
      }));
    },
  };
}

/** The module an import in src/ names, as its path under dist/ ("cli/main.js"). */
function moduleOfSource(args) {
  const target = relative(SRC, resolve(args.resolveDir || dirname(args.importer), args.path))
    .split("\\")
    .join("/");
  if (target.startsWith("..")) throw new Error(`build: ${args.importer} imports ${args.path}, outside src/`);
  return target.replace(/\.ts$/, ".js");
}

/**
 * `cli-link:lazy`: `lazyHotModules(link)`, which evaluates the LAZY_HOT modules (a bundle of their own, from the
 * TypeScript, inside the function) and returns each one's exports by name. They take the eagerly evaluated hot modules
 * through `link.hot(name)` (the registry) and the cold ones through `link.cold(name)`; the source map goes along.
 */
async function lazyHotCode(esbuild, common) {
  const hot = new Set(HOT_PATH);
  const modules = [...LAZY_HOT];
  const entry =
    modules.map((m, i) => `import * as m${i} from ${JSON.stringify(sourceOf(m))};`).join("\n") +
    `\nexport const modules = { ${modules.map((m, i) => `${JSON.stringify(m)}: m${i}`).join(", ")} };\n`;
  const { outputFiles } = await esbuild.build({
    ...common,
    format: "iife",
    globalName: "lazyHot",
    stdin: { contents: entry, resolveDir: SRC, sourcefile: "lazy-link:entry", loader: "ts" },
    outfile: join(DIST, "cli-lazy.js"),
    write: false,
    plugins: [
      {
        name: "lazy-hot-sources",
        setup(build) {
          build.onResolve({ filter: /^cli-link:cold$/ }, () => ({ path: "cold", namespace: "lazy-link" }));
          build.onResolve({ filter: /^\.\.?\// }, (args) => {
            if (args.importer === "") return undefined;
            const module = moduleOfSource(args);
            if (!hot.has(module)) throw new Error(`build: ${args.importer} imports ${args.path}, not on HOT_PATH`);
            return LAZY_HOT.has(module) ? { path: sourceOf(module) } : { path: module, namespace: "lazy-link" };
          });
          build.onLoad({ filter: /.*/, namespace: "lazy-link" }, (args) => ({
            contents:
              args.path === "cold"
                ? "export const __loadCold = (name) => __link.cold(name);\nexport const __lazyHot = undefined;\n"
                : `module.exports = __link.hot(${JSON.stringify(args.path)});\n`,
            loader: "js",
          }));
          build.onLoad({ filter: /\.ts$/ }, (args) => ({
            contents: coldImportsLazy(readFileSync(args.path, "utf8"), args.path, hot),
            loader: "ts",
          }));
        },
      },
    ],
  });
  const code = outputFiles.find((f) => f.path.endsWith(".js")).text.replace(/\/\/# sourceMappingURL=.*\n?$/, "");
  const map = JSON.parse(outputFiles.find((f) => f.path.endsWith(".map")).text);
  const head = "export function lazyHotModules(__link) {\n";
  // The function's first line comes before the bundle's: its map moves down one line.
  map.mappings = `;${map.mappings}`;
  const inline = Buffer.from(JSON.stringify(map)).toString("base64");
  return `${head}${code}\nreturn lazyHot.modules;\n}\n//# sourceMappingURL=data:application/json;base64,${inline}\n`;
}

/**
 * `cli-link:registry`, which the hot bundle's entry imports before cli/start.ts: each hot module's exports as getters
 * of its bindings, made when the cold bundle first asks for that module (`load(name)`), given to `cli-link:cold`.
 */
function hotRegistry(exports) {
  const imports = [];
  const entries = [];
  [...exports].forEach(([module, read], i) => {
    const names = [...read].sort();
    if (names.length === 0) return; // a hot module no cold one reads
    const local = (name) => `h${i}_${name}`;
    imports.push(
      `import { ${names.map((n) => `${n} as ${local(n)}`).join(", ")} } from ${JSON.stringify(sourceOf(module))};`,
    );
    const getters = names.map((n) => `get ${n}() { return ${local(n)}; }`);
    entries.push(`    case ${JSON.stringify(module)}: return { __esModule: true, ${getters.join(", ")} };`);
  });
  for (const module of LAZY_HOT)
    entries.push(`    case ${JSON.stringify(module)}: return __lazyHot(${JSON.stringify(module)});`);
  // A function, not an object of functions: nothing of it is made when the bundle loads.
  return `import { __lazyHot, setHot } from "cli-link:cold";
${imports.join("\n")}
function hotModule(name) {
  switch (name) {
${entries.join("\n")}
  }
}
const made = {};
setHot({ load: (name) => (made[name] ??= hotModule(name)) });
`;
}

/**
 * A hot module's TypeScript with its imports of cold modules (not on HOT_PATH) made lazy: the import goes, and each
 * use of a name it bound becomes `(__loadCold("x.js").name)`, which loads the cold bundle on its first call (no
 * closure or variable per import: nothing of them is made when the bundle loads); an eagerly evaluated module's
 * import of a LAZY_HOT one becomes `(__lazyHot("x.js").name)` the same way. Type positions are left alone (esbuild
 * drops them). A local that shadows such a name, a re-export of a cold module or a bare import of one fails the
 * build rather than be rewritten wrongly.
 */
function coldImportsLazy(code, file, hot) {
  const ts = require("typescript");
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const bindings = new Map();
  const edits = [];
  const loaded = new Set();
  const self = moduleOfSource({ resolveDir: dirname(file), path: basename(file) });
  // A cold module, or from an eagerly evaluated module a LAZY_HOT one.
  const coldModule = (specifier) => {
    if (!specifier.startsWith(".")) return undefined;
    const module = moduleOfSource({ resolveDir: dirname(file), path: specifier });
    return !hot.has(module) || (LAZY_HOT.has(module) && !LAZY_HOT.has(self)) ? module : undefined;
  };
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
      if (coldModule(statement.moduleSpecifier.text))
        throw new Error(`build: ${file} re-exports ${statement.moduleSpecifier.text}, off the hot path`);
      continue;
    }
    if (!ts.isImportDeclaration(statement)) continue;
    const module = coldModule(statement.moduleSpecifier.text);
    if (!module) continue;
    const clause = statement.importClause;
    if (!clause) throw new Error(`build: ${file} imports ${module} for its effects, off the hot path`);
    // Its lines stay (blank), so the source map's lines stay the file's.
    edits.push([statement.getStart(source), statement.end, statement.getText(source).replace(/[^\n]/g, "")]);
    if (clause.isTypeOnly) continue;
    const loader = `${LAZY_HOT.has(module) ? "__lazyHot" : "__loadCold"}(${JSON.stringify(module)})`;
    loaded.add(module);
    if (clause.name) bindings.set(clause.name.text, `${loader}.default`);
    const named = clause.namedBindings;
    if (named && ts.isNamespaceImport(named)) bindings.set(named.name.text, loader);
    else if (named)
      for (const element of named.elements)
        if (!element.isTypeOnly && !clause.isTypeOnly)
          bindings.set(element.name.text, `${loader}.${(element.propertyName ?? element.name).text}`);
  }
  if (loaded.size === 0) return code;
  const visit = (node) => {
    // `class A extends B`: B is a value (esbuild keeps it), though TypeScript's tree holds it as a type.
    if (ts.isHeritageClause(node) && node.token === ts.SyntaxKind.ExtendsKeyword && ts.isClassLike(node.parent)) {
      for (const type of node.types) visit(type.expression);
      return;
    }
    if (
      ts.isImportDeclaration(node) ||
      ts.isTypeNode(node) ||
      ts.isInterfaceDeclaration(node) ||
      ts.isTypeAliasDeclaration(node)
    )
      return;
    if (ts.isIdentifier(node) && bindings.has(node.text)) edits.push(...editsOf(node));
    ts.forEachChild(node, visit);
  };
  const editsOf = (node) => {
    const parent = node.parent;
    const read = `(${bindings.get(node.text)})`;
    if (ts.isShorthandPropertyAssignment(parent)) return [[node.getStart(source), node.end, `${node.text}: ${read}`]];
    if (ts.isExportSpecifier(parent)) throw new Error(`build: ${file} exports ${node.text}, a cold module's`);
    const declares =
      ts.isVariableDeclaration(parent) ||
      ts.isParameter(parent) ||
      ts.isFunctionDeclaration(parent) ||
      ts.isClassDeclaration(parent) ||
      ts.isBindingElement(parent) ||
      ts.isFunctionExpression(parent) ||
      ts.isClassExpression(parent);
    if (declares && parent.name === node) throw new Error(`build: ${file} declares ${node.text} over a cold import`);
    if (ts.isBindingElement(parent) && parent.propertyName === node) return [];
    // Property names: `a.x`, `{ x: 1 }`, methods, class members, enum members.
    if (
      (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
      ((ts.isPropertyAssignment(parent) ||
        ts.isMethodDeclaration(parent) ||
        ts.isPropertyDeclaration(parent) ||
        ts.isGetAccessorDeclaration(parent) ||
        ts.isSetAccessorDeclaration(parent) ||
        ts.isEnumMember(parent) ||
        ts.isPropertySignature(parent)) &&
        parent.name === node)
    )
      return [];
    return [[node.getStart(source), node.end, read]];
  };
  visit(source);
  let out = code;
  for (const [start, end, text] of edits.sort((a, b) => b[0] - a[0])) out = out.slice(0, start) + text + out.slice(end);
  // After the module's own lines (imports are hoisted), so that a stack's line numbers are the file's.
  return `${out}\nimport { __lazyHot, __loadCold } from "cli-link:cold";\n`;
}

/**
 * The packages our code imports that package.json does not install (devDependencies: ink, React,
 * ink-text-input, conf, open) are built into dist/vendor/, one file per import name, tree-shaken and
 * minified: `require("react")` finds dist/vendor/react.js, `import("ink")` dist/vendor/ink.mjs
 * (ESM: ink has top-level await). A user's install then holds their code, not their 60 packages
 * (bench/footprint.mjs; docs/architecture.md, "Install"). Which names, and in which form, is read
 * from esbuild's view of dist/ (an import() gives an ES module, a require() a CommonJS one); a
 * vendored file takes another vendored name from its file, so there is one React in the process.
 * Returns each name's file, relative to dist/; their licences go to dist/THIRD_PARTY_NOTICES.md.
 */
async function vendorPackages() {
  const esbuild = require("esbuild");
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  const installed = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]);
  const kinds = await externalImports(esbuild);
  const vendored = new Map();
  for (const [name, kind] of kinds) {
    if (installed.has(packageOf(name))) continue;
    if (!pkg.devDependencies?.[packageOf(name)])
      throw new Error(`build: dist imports ${name}, which package.json neither installs nor pins as a devDependency`);
    const format = kind.has("require-call") || kind.has("require-resolve") ? "cjs" : "esm";
    vendored.set(name, { file: `vendor/${name}.${format === "esm" ? "mjs" : "js"}`, format });
  }
  const packages = new Map();
  for (const [name, { file, format }] of vendored) {
    const result = await esbuild.build({
      entryPoints: [name],
      absWorkingDir: ROOT,
      outfile: join(DIST, file),
      bundle: true,
      platform: "node",
      target: "node22",
      format,
      minify: true,
      metafile: true,
      logLevel: "warning",
      legalComments: "none",
      // React's production build: a third of the development one, and no development warnings on a user's screen.
      define: { "process.env.NODE_ENV": '"production"' },
      // An ES module bundle that holds CommonJS code (or takes another vendored CommonJS file) needs `require`.
      banner:
        format === "esm"
          ? {
              js: `import{createRequire as __vendorRequire}from"node:module";const require=__vendorRequire(import.meta.url);`,
            }
          : {},
      plugins: [otherVendoredFiles(name, vendored), unresolvedStubs()],
    });
    for (const input of Object.keys(result.metafile.inputs)) {
      const file = resolve(ROOT, input);
      const root = packageRoot(file);
      if (!root) continue;
      const entry = packages.get(root) ?? { names: new Set(), files: new Set() };
      packages.set(root, entry);
      entry.names.add(name);
      entry.files.add(file);
    }
  }
  writeNotices(packages);
  return vendored;
}

/** Every package name dist/ imports, with how (esbuild's import kinds), node's own modules left out. */
async function externalImports(esbuild) {
  const files = readdirSync(DIST, { recursive: true })
    .map((f) => join(DIST, String(f)))
    .filter((f) => f.endsWith(".js"));
  const { metafile } = await esbuild.build({
    entryPoints: files,
    outdir: join(DIST, ".imports"),
    write: false,
    bundle: true,
    packages: "external",
    platform: "node",
    format: "cjs",
    metafile: true,
    logLevel: "warning",
  });
  const found = new Map();
  for (const input of Object.values(metafile.inputs))
    for (const { path, kind, external } of input.imports)
      if (external && !isBuiltin(path)) found.set(path, (found.get(path) ?? new Set()).add(kind));
  return found;
}

/** "react/jsx-runtime" -> "react"; "@napi-rs/keyring" -> "@napi-rs/keyring". */
function packageOf(name) {
  return name
    .split("/")
    .slice(0, name.startsWith("@") ? 2 : 1)
    .join("/");
}

/** The node_modules/NAME directory a bundled file came from, or undefined for code of ours. */
function packageRoot(file) {
  const match = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(file);
  return match?.[1];
}

/**
 * Inside one vendored file, the other vendored names stay imports of their own files (one React);
 * an ES module takes a CommonJS one through `require`, whose named exports Node could not see.
 */
function otherVendoredFiles(self, vendored) {
  const from = dirname(join(DIST, vendored.get(self).file));
  return {
    name: "other-vendored-files",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        const other = vendored.get(args.path);
        if (args.kind === "entry-point" || !other || args.path === self) return undefined;
        const path = `./${relative(from, join(DIST, other.file)).split("\\").join("/")}`;
        if (vendored.get(self).format === "cjs" || other.format === "esm") return { path, external: true };
        return { path, namespace: "vendored-cjs" };
      });
      build.onResolve({ filter: /.*/, namespace: "vendored-cjs" }, (args) => ({ path: args.path, external: true }));
      build.onLoad({ filter: /.*/, namespace: "vendored-cjs" }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)});`,
        loader: "js",
        resolveDir: from,
      }));
    },
  };
}

/**
 * A package a vendored one imports but nobody installed (ink's `react-devtools-core`, an optional
 * peer behind ink's `DEV=true`) becomes a module that throws when it is loaded, where esbuild would
 * stop the build.
 */
function unresolvedStubs() {
  return {
    name: "unresolved-stubs",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.kind === "entry-point" || args.pluginData === "stub-check" || isBuiltin(args.path)) return undefined;
        const found = await build.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: "stub-check",
        });
        return found.errors.length ? { path: args.path, namespace: "unresolved-stub" } : undefined;
      });
      build.onLoad({ filter: /.*/, namespace: "unresolved-stub" }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`${args.path} is not built into cred-auth`)});`,
        loader: "js",
      }));
    },
  };
}

/**
 * dist/THIRD_PARTY_NOTICES.md: each package built into dist/vendor/, its version, its licence's
 * name and text (its LICENSE file, as its authors ask of copies), and the vendored names it is in.
 */
function writeNotices(packages) {
  // Two copies of one version (installed at two paths) are one section.
  const byVersion = new Map();
  for (const [root, { names, files }] of packages) {
    const meta = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    const id = `${meta.name}@${meta.version}`;
    const seen = byVersion.get(id);
    if (seen) for (const n of names) seen.names.add(n);
    else byVersion.set(id, { meta, names: new Set(names), text: licenceText(root, meta, files) });
  }
  const sections = [...byVersion]
    .sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true }))
    .map(([id, { meta, names, text }]) => {
      const heading = `## ${id} (${meta.license}; in ${[...names].sort().join(", ")})`;
      return { body: `${heading}\n\n${"```"}\n${text}\n${"```"}\n` };
    });
  const head =
    "# Third-party notices\n\nThe code of these packages is built into cred-auth's `dist/vendor/` files, " +
    "minified; their licences follow.\n";
  writeFileSync(join(DIST, "THIRD_PARTY_NOTICES.md"), `${head}\n${sections.map((s) => s.body).join("\n")}`);
}

/**
 * A package's licence file; a package published without one (yoga-layout) under MIT gets MIT's text
 * with the copyright lines of the files of it that were bundled. Any other gap stops the build.
 */
function licenceText(root, meta, files) {
  const file = readdirSync(root).find((f) => /^(licen[cs]e|copying)([.-].*)?$/i.test(f));
  if (file) return readFileSync(join(root, file), "utf8").trim();
  const holders = new Set();
  for (const f of files)
    for (const [line] of readFileSync(f, "utf8").matchAll(/Copyright \(c\)[^\n*]*/gi)) holders.add(line.trim());
  if (meta.license !== "MIT" || holders.size === 0)
    throw new Error(`build: ${meta.name} has no licence file to ship with its code`);
  return `${[...holders].join("\n")}\n\n${MIT_TERMS}`;
}

/**
 * The library's own modules (dist/**\/*.js, not the bundles, not the emulator) get the bundles'
 * lazy imports too (`lazyImports`): a module is evaluated when one of its exports is first read,
 * so default()'s warm path compiles and runs only the modules it uses, not every module its
 * modules import for other paths (a sign-in, a refresh, a hosted platform's token). After the
 * bundles, which are built from tsc's own files.
 */
function lazyLibraryImports(vendored) {
  const files = readdirSync(DIST, { recursive: true })
    .map((f) => String(f).split("\\").join("/"))
    .filter((f) => f.endsWith(".js") && !/^(emulator|vendor)\//.test(f) && !/^cli(-bundle|-cold)?\.js$/.test(f));
  for (const file of files) {
    const path = join(DIST, file);
    const code = vendoredImports(readFileSync(path, "utf8"), file, vendored);
    const lazy = code.replace(REQUIRE_OF_OURS, "$1 $2 = __lazyModule(() => require($3));");
    if (lazy !== code) writeFileSync(path, lazy.replace(/^("use strict";\n)?/, `$1${LAZY_MODULE}\n`));
    else writeFileSync(path, code);
  }
}

/**
 * tsc's `require("react")` and `import("ink")` in dist/FILE, for a vendored name, point at its file
 * in dist/vendor/ (vendorPackages). Any other form of importing one fails the build.
 */
function vendoredImports(code, file, vendored) {
  let out = code;
  for (const [name, { file: target }] of vendored) {
    const path = JSON.stringify(
      `./${relative(dirname(join(DIST, file)), join(DIST, target))
        .split("\\")
        .join("/")}`.replace(/^\.\/\.\.\//, "../"),
    );
    const quoted = JSON.stringify(name);
    out = out.replaceAll(`require(${quoted})`, `require(${path})`).replaceAll(`import(${quoted})`, `import(${path})`);
    if (new RegExp(`\\b(require|import|resolve)\\(\\s*${quoted.replace("/", "\\/")}`).test(out))
      throw new Error(`build: dist/${file} names ${name} in a form the build does not point at dist/vendor/`);
  }
  return out;
}

/** In the command line's bundles, a vendored name stays an import of its file in dist/vendor/. */
function vendoredFiles(vendored) {
  return {
    name: "vendored-files",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        const found = vendored.get(args.path);
        return found ? { path: `./${found.file}`, external: true } : undefined;
      });
    },
  };
}

/**
 * A module's top-level `const x_js_1 = require("./x.js")` (tsc's form of `import { ... } from`)
 * becomes `let x_js_1;`, and each `x_js_1.` after it `(x_js_1 ??= require("./x.js")).`: the module
 * is evaluated when one of its exports is first read, not when something that imports it is.
 * Namespace imports (`__importStar`), `export *` and bare side-effect imports stay as they were.
 * (A proxy per import did the same at 105 proxies and 51 trapped reads on print-token's cached path.)
 */
function lazyImports() {
  return {
    name: "lazy-imports",
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, (args) => {
        if (!resolve(args.path).startsWith(DIST)) return undefined;
        const code = readFileSync(args.path, "utf8");
        return {
          contents: lazyReferences(code, args.path),
          loader: "js",
        };
      });
    },
  };
}

/** lazyImports' rewrite of one module; a use of an import other than reading an export fails the build. */
function lazyReferences(code, file) {
  const imports = new Map();
  let out = code.replace(REQUIRE_OF_OURS, (_, _kind, name, path) => {
    imports.set(name, path);
    return `let ${name};`;
  });
  for (const [name, path] of imports) {
    // Not after a property's dot (`a.x_js_1`), but after a spread's (`...x_js_1.SETTINGS`).
    out = out.replace(new RegExp(`(?<![\\w$])(?<!(?<!\\.\\.)\\.)${name}\\.`, "g"), `(${name} ??= require(${path})).`);
    const uses = out.match(new RegExp(`(?<![\\w$])${name}(?![\\w$])`, "g")) ?? [];
    const reads = out.split(`(${name} ??= require(${path})).`).length - 1;
    if (uses.length !== reads + 1) throw new Error(`build: ${file} uses ${name} other than by reading an export`);
  }
  return out;
}

/**
 * Resolves each module of ours that is not in `own` (the cold bundle's modules) to a stub that takes it from the hot
 * bundle's registry, handed to the cold bundle's entry on its first load (hotRegistry).
 */
function otherBundle(own) {
  const ownSet = new Set(own);
  return {
    name: "other-bundle",
    setup(build) {
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        const target = distPath(args);
        return ownSet.has(target) ? undefined : { path: target, namespace: "other-bundle" };
      });
      build.onResolve({ filter: /^cli-link:hot$/ }, () => ({ path: "hot", namespace: "cli-link" }));
      build.onLoad({ filter: /.*/, namespace: "other-bundle" }, (args) => ({
        contents: `module.exports = require("cli-link:hot").get(${JSON.stringify(args.path)});\n`,
        resolveDir: DIST,
        loader: "js",
      }));
      build.onLoad({ filter: /.*/, namespace: "cli-link" }, () => ({
        contents:
          "let hot;\nexports.set = (registry) => { hot ??= registry; };\nexports.get = (name) => hot.load(name);\n",
        resolveDir: DIST,
        loader: "js",
      }));
    },
  };
}

/** The cold bundle's entry: `exports.load(name, hot)` over its `modules` (paths under dist/), keeping `hot`. */
function registry(modules) {
  const entries = modules.map((m) => `  ${JSON.stringify(m)}: () => require(${JSON.stringify(`./${m}`)}),`).join("\n");
  return `const modules = {\n${entries}\n};\nexports.load = (name, hot) => {\n  require("cli-link:hot").set(hot);\n  return modules[name]();\n};\n`;
}

/** Only the emulator stays files: it imports nothing of the library but shared/constants. */
function emulatorStaysFiles() {
  return {
    name: "emulator-stays-files",
    setup(build) {
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        const target = distPath(args);
        return target.startsWith("emulator/") ? { path: `./${target}`, external: true } : undefined;
      });
    },
  };
}

/** The module an import names, as a path under dist/ ("cli/main.js"). */
function distPath(args) {
  const target = relative(DIST, resolve(args.resolveDir || dirname(args.importer), args.path))
    .split("\\")
    .join("/");
  if (target.startsWith("..")) throw new Error(`build: ${args.importer} imports ${args.path}, outside dist/`);
  return target;
}

/**
 * Writes dist/cli-bundle.js's digest into dist/cli.js, which names its bytecode cache after it
 * (src/cli.ts `runBundle`): a cache made from one bundle is never offered to another.
 */
function stampBundleDigest() {
  const bundle = readFileSync(join(DIST, "cli-bundle.js"));
  // dist/cli.js reads the bundle as latin1 (cheaper than UTF-8 to decode): it must be ASCII, as esbuild writes it.
  if (bundle.some((byte) => byte > 0x7f)) throw new Error("build: dist/cli-bundle.js is not ASCII");
  const digest = createHash("sha256").update(bundle).digest("hex").slice(0, 16);
  const bin = readFileSync(join(DIST, "cli.js"), "utf8");
  const declaration = 'const BUNDLE_DIGEST = "unbuilt";';
  if (!bin.includes(declaration)) throw new Error(`build: dist/cli.js has no ${declaration}`);
  writeFileSync(join(DIST, "cli.js"), bin.replace(declaration, `const BUNDLE_DIGEST = "${digest}";`));
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
  const namespaceDocs = { cache: moduleDoc(join(DIST, "credentials-cache", "index.d.ts")) };
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
 * rollup writes `export { CredentialsCache } from './credentials-cache/index.js'` for src/index.ts's
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
 * dist/.npmignore: the files of dist/ that no user's process loads or type-check reads, so that the
 * package carries none of them (npm reads a .npmignore below package.json's `files`). Used are:
 * - JavaScript that esbuild reaches from the package's entries (package.json's exports and bin, the
 *   bin's bundle, and dist/index.js's lazy functions, which it requires by a name it computes);
 * - declarations that TypeScript reads from the exports' `types`;
 * - dist/package.json (CommonJS for dist/) and the notices of the built-in packages.
 * Not used, so not packed: the command line's modules as files (its bundles hold them; the library
 * never loads them), modules that hold only types (tsc still writes an empty .js), the ~200 .d.ts
 * files that dist/index.d.ts (one bundled file) replaces, and the bundles' source maps.
 * test/package/pack.test.ts checks the tarball's every file by its own reading of the same rules.
 */
async function packageContents() {
  const all = readdirSync(DIST, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(DIST, join(e.parentPath, e.name)).split("\\").join("/"));
  const used = new Set([
    "package.json",
    "THIRD_PARTY_NOTICES.md",
    ...(await reachedJavaScript()),
    ...reachedDeclarations(),
  ]);
  const unused = all.filter((f) => !used.has(f)).sort();
  writeFileSync(join(DIST, ".npmignore"), `${unused.join("\n")}\n`);
}

/** The JavaScript files of dist/ that the package's entries reach (esbuild, all imports followed). */
async function reachedJavaScript() {
  const esbuild = require("esbuild");
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  const targets = (value) =>
    typeof value === "string" ? [value] : Object.values(value ?? {}).flatMap((v) => targets(v));
  const entries = new Set(
    [...targets(pkg.exports), ...targets(pkg.bin), pkg.main].filter((f) => /\.m?js$/.test(f)).map((f) => join(ROOT, f)),
  );
  // Named, not imported: the bin's bundle (src/cli.ts) and the library's lazy functions (LAZY_EXPORTS).
  entries.add(join(DIST, "cli-bundle.js"));
  const index = readFileSync(join(DIST, "index.js"), "utf8");
  for (const [, module] of JSON.parse(/const LAZY_EXPORTS = (\[.*\]);/.exec(index)[1])) entries.add(join(DIST, module));
  const { metafile } = await esbuild.build({
    entryPoints: [...entries].map((file) => ({ in: file, out: relative(DIST, file).replaceAll(".", "_") })),
    outdir: join(DIST, ".reach"),
    write: false,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    packages: "external",
    metafile: true,
    logLevel: "error",
  });
  return Object.keys(metafile.inputs).map((input) => relative(DIST, resolve(ROOT, input)).split("\\").join("/"));
}

/** The declaration files of dist/ that TypeScript reads from package.json's `types`. */
function reachedDeclarations() {
  const ts = require("typescript");
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  const roots = [
    pkg.types,
    ...JSON.stringify(pkg.exports)
      .match(/"types":"[^"]+"/g)
      .map((m) => m.slice(9, -1)),
  ].map((f) => join(ROOT, f));
  const program = ts.createProgram(roots, { noEmit: true, skipLibCheck: true, types: [] });
  return program
    .getSourceFiles()
    .map((f) => relative(DIST, f.fileName).split("\\").join("/"))
    .filter((f) => !f.startsWith(".."));
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
