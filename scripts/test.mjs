// `npm test` after the build: lint, check the layers, type-check the tests, then run them with node's test runner.
// Files named *.serial.test.ts hold fixed resources (the default loopback ports 8080-8089,
// a real terminal) and run one at a time after the rest.
import { spawnSync } from "node:child_process";
import { globSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const only = args.filter((a) => !a.startsWith("--"));
const pick = (pattern) =>
  globSync(pattern)
    .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
    .sort();

// Lint and format first (zero warnings: any diagnostic fails), then the type check.
const lint = spawnSync(
  process.execPath,
  [require.resolve("@biomejs/biome/bin/biome"), "check", "--error-on-warnings", "--no-errors-on-unmatched", "."],
  { stdio: "inherit" },
);
if (lint.status !== 0) process.exit(lint.status ?? 1);

// The layers (.dependency-cruiser.cjs): imports run down, no circles.
const layers = spawnSync(
  process.execPath,
  ["node_modules/dependency-cruiser/bin/dependency-cruiser.mjs", "src", "--config", ".dependency-cruiser.cjs"],
  { stdio: "inherit" },
);
if (layers.status !== 0) process.exit(layers.status ?? 1);

const typecheck = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "test/tsconfig.json"], {
  stdio: "inherit",
});
if (typecheck.status !== 0) process.exit(typecheck.status ?? 1);

const all = pick("test/**/*.test.{ts,tsx}");
const serial = all.filter((f) => f.includes(".serial."));
const parallel = all.filter((f) => !serial.includes(f));
const base = ["--disable-warning=ExperimentalWarning", "--test", "--test-reporter=spec", "--test-timeout=240000"];
let failed = false;
for (const [files, concurrency] of [
  [parallel, 2],
  [serial, 1],
]) {
  if (files.length === 0) continue;
  const run = spawnSync(process.execPath, [...base, `--test-concurrency=${concurrency}`, ...files], {
    stdio: "inherit",
  });
  failed ||= run.status !== 0;
}
process.exit(failed ? 1 : 0);
