// StrykerJS configuration for `npm run mutation` (scripts/mutation.mjs): one Stryker run per
// security-critical module, chosen by CRED_AUTH_MUTATION_MODULE. Each run mutates one file of
// src/, rebuilds dist/ from the mutated sources once (mutation switching: every mutant is in the
// build, the test run picks one through __STRYKER_ACTIVE_MUTANT__), and runs only that module's
// tests against dist/. See docs/security.md, "Mutation testing".
import { MUTATION_MODULES } from "./scripts/mutation-modules.mjs";

const name = process.env.CRED_AUTH_MUTATION_MODULE ?? "";
const module = MUTATION_MODULES.find((m) => m.name === name);
if (!module)
  throw new Error(`CRED_AUTH_MUTATION_MODULE must be one of ${MUTATION_MODULES.map((m) => m.name).join(", ")}`);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: "npm",
  mutate: [module.file].flat(), // one file, or a kind's folder as a list
  buildCommand: "node scripts/build.mjs",
  testRunner: "command",
  commandRunner: {
    command: `node --disable-warning=ExperimentalWarning --test --test-reporter=dot --test-concurrency=1 ${module.tests.join(" ")}`,
  },
  coverageAnalysis: "off",
  incremental: true,
  incrementalFile: `mutation/${module.name}.incremental.json`,
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: `reports/mutation/${module.name}.html` },
  jsonReporter: { fileName: `reports/mutation/${module.name}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  thresholds: { high: 95, low: 85, break: 85 }, // scripts/mutation.mjs BREAK too,
  concurrency: Number(process.env.CRED_AUTH_MUTATION_CONCURRENCY ?? 2),
  timeoutMS: 10_000,
  tempDirName: ".stryker-tmp",
  ignorePatterns: ["/reports", "/.tmp", "/dist", "/docs/api", "/coverage", "/bench/results.json"],
  cleanTempDir: true,
};
