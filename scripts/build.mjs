// Builds dist/: tsc (CommonJS + .d.ts), then an ESM face over the same CommonJS module
// (one module instance, so `instanceof CredCredentialsError` holds for ESM and CJS callers).
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const tsc = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.json"], {
  stdio: "inherit",
});
const lenient = process.env.CRED_AUTH_BUILD_LENIENT === "1";
if (tsc.status !== 0 && !lenient) process.exit(tsc.status ?? 1);

writeFileSync("dist/package.json", `{ "type": "commonjs" }\n`);
const names = Object.keys(require("../dist/index.js")).filter((n) => n !== "default" && n !== "__esModule");
// createRequire, not `import cjs from "./index.js"`: importing CommonJS from ESM puts the module
// through the ESM loader's CommonJS translator too, which made default() in a fresh process about
// a fifth dearer (bench/README.md, targets 1 and 4). require() shares the same module instance.
writeFileSync(
  "dist/index.mjs",
  `import { createRequire } from "node:module";\nconst cjs = createRequire(import.meta.url)("./index.js");\n` +
    `export const { ${names.join(", ")} } = cjs;\nexport default cjs.default;\n`,
);
// index.d.ts only re-exports named bindings and declares its own default, so the same text is a valid ESM declaration.
copyFileSync("dist/index.d.ts", "dist/index.d.mts");
chmodSync("dist/cli.js", 0o755);
if (tsc.status !== 0) console.error("build: type errors ignored (CRED_AUTH_BUILD_LENIENT=1)");
